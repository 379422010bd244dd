// Package process consumes the durable ingest queue: each batch becomes
// error groups, tickets and INFO summaries, and is deleted in the same
// transaction that stores those results, so a crash mid-batch neither loses
// nor double-counts it. Several processes can share one PostgreSQL queue:
// a batch is claimed with a lease (FOR UPDATE SKIP LOCKED) that expires when
// its worker dies.
package process

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/lifecycle"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/summary"
	"github.com/errata-dev/errata/internal/tickets"
)

// Options tune a Processor.
type Options struct {
	// Workers process batches in parallel (default GOMAXPROCS). The first
	// is always at work; the others help only while the queue has a
	// backlog (see Processor.backlog).
	Workers int
	// Lease is how long a claimed batch stays with its worker (default 5m).
	Lease time.Duration
	// Idle is the longest wait for new work before polling the queue again
	// (default 250ms); a local commit wakes the workers at once.
	Idle time.Duration
	// Linger is how long the first worker waits, after a claim that left
	// no backlog, before it claims again (default DefaultLinger; negative:
	// not at all), so that the batches committed meanwhile are claimed and
	// applied together. A worker woken from idle claims at once.
	Linger time.Duration
	// FoldEvery is how long the value counts and ids deferred under a
	// backlog or a steady load may wait to be folded while events keep
	// coming (default DefaultFoldEvery, ERRATA_COUNTS_LAG; negative: a
	// claim that empties the queue never defers, and a backlog's counts
	// are folded after each claim). A worker that finds the queue empty
	// folds at once.
	FoldEvery time.Duration
	// InfoWindow is the INFO summary window (ERRATA_INFO_WINDOW).
	InfoWindow time.Duration
	// ClaimBatches is the most batches one claim takes (default 32), or
	// the fewest when ClaimEvents is set.
	ClaimBatches int
	// ClaimEvents, when set, lets a claim of small batches take more than
	// ClaimBatches: as many as hold about ClaimEvents events at the
	// previous claim's average, at most MaxClaimBatches. New sets it to
	// DefaultClaimEvents when ClaimBatches is left to its default.
	ClaimEvents int
	// ApplyTarget is how long one transaction applying batches should
	// hold the writer (default DefaultApplyTarget, or ConcurrentApplyTarget
	// on a database with concurrent writers): a claim is applied in parts
	// sized to it (applyBudget), of at most ApplyEvents events (default
	// DefaultApplyEvents or ConcurrentApplyEvents) and at least one batch.
	ApplyTarget time.Duration
	ApplyEvents int
	// Samples is how many latest sample events a group keeps besides its
	// first (default 10).
	Samples int
	Spike   tickets.SpikeRule
	// OnTickets runs in the batch's transaction with the tickets it opened
	// or raised (notification enqueues its deliveries there).
	OnTickets func(ctx context.Context, c *store.Conn, events []tickets.Event) error
	// AfterTickets runs after a transaction in which OnTickets ran has
	// committed (notification wakes its delivery engine there).
	AfterTickets func()
	// Observe, if set, is told about every processed batch.
	Observe func(events int, d time.Duration)
	// OnSetAside, if set, is told when a batch is set aside.
	OnSetAside func()
	// Symbolicate, if set, maps an error event's minified frames through
	// its project's source maps before it is grouped (symbolicate.Event).
	Symbolicate func(ctx context.Context, projectID string, e *ingest.Event) error
	Now         func() time.Time
	Logger      *slog.Logger
}

// Processor is the queue consumer service.
type Processor struct {
	db   *store.DB
	opts Options
	wake chan struct{}
	hot  hotGroups
	// staleChecked is when refreshSearches last looked (UnixNano).
	staleChecked atomic.Int64
	// backlog is set while the latest claim was full (claimSize): the
	// queue holds more than one worker takes at once, and the helper
	// workers (all but the first) join in, woken through help. Without a
	// backlog one worker keeps up, and the batches that arrive while it
	// works make its next claim larger, so each hot group is written once
	// for many batches. A second worker would split the same arrivals into
	// more, smaller transactions: on SQLite each holds the one writer
	// connection that ingestion's commits wait for (4 senders end to end:
	// 124,000-146,000 events/s with two workers always at work,
	// 178,000-193,000 with one; docs/performance.md).
	backlog atomic.Bool
	help    chan struct{}
	// claimAvg is the average events a batch of the latest claim held
	// (0 before the first): what sizes the next claim (claimSize).
	claimAvg atomic.Int64
	budget   *applyBudget
	legacy   legacyGroups
	rules    compiledRules
	releases knownReleases
	memos    *memos
	fold     folder

	lifecycle.Base
}

// New returns a Processor; Start runs it.
func New(db *store.DB, opts Options) *Processor {
	if opts.Workers <= 0 {
		// More workers than cores do not help: batches touch the same hot
		// groups, whose row locks serialise the transactions anyway. Large
		// claims (ClaimBatches) are what amortise each group update.
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	if opts.Lease <= 0 {
		opts.Lease = 5 * time.Minute
	}
	if opts.Idle <= 0 {
		opts.Idle = 250 * time.Millisecond
	}
	if opts.Linger == 0 {
		opts.Linger = DefaultLinger
	}
	if opts.FoldEvery == 0 {
		opts.FoldEvery = DefaultFoldEvery
	}
	if opts.InfoWindow <= 0 {
		opts.InfoWindow = summary.DefaultWindow
	}
	if opts.ClaimBatches <= 0 {
		opts.ClaimBatches = 32
		if opts.ClaimEvents == 0 {
			opts.ClaimEvents = DefaultClaimEvents
		}
	}
	concurrent := db.ConcurrentWrites()
	target, events := DefaultApplyTarget, DefaultApplyEvents
	if concurrent {
		target, events = ConcurrentApplyTarget, ConcurrentApplyEvents
	}
	if opts.ApplyTarget <= 0 {
		opts.ApplyTarget = target
	}
	if opts.ApplyEvents <= 0 {
		opts.ApplyEvents = events
	}
	if opts.Samples <= 0 {
		opts.Samples = 10
	}
	if opts.Spike == (tickets.SpikeRule{}) {
		opts.Spike = tickets.DefaultSpikeRule
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	first := FirstApplyEvents
	if concurrent {
		first = opts.ApplyEvents // nothing ingestion waits for: take claims whole from the start
	}
	p := &Processor{db: db, opts: opts, wake: make(chan struct{}, 1), help: make(chan struct{}, 1), memos: newMemos(),
		budget: newApplyBudget(opts.ApplyTarget, opts.ApplyEvents, first)}
	p.fold.budget = newApplyBudget(opts.ApplyTarget, MaxFoldCounts, store.FoldCounts)
	p.fold.pending.Store(true) // what an earlier run left
	return p
}

// Wake tells the workers that a batch was committed.
func (p *Processor) Wake() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// Start launches the workers; Stop lets each finish the batch in hand and
// waits for them.
func (p *Processor) Start(ctx context.Context) error {
	ctx, ok, stopped := p.StartInit(ctx)
	if !ok {
		return nil
	}
	ctx = store.AsWork(ctx) // a connection gone silent does not stop processing for good
	var wg sync.WaitGroup
	for i := 0; i < p.opts.Workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.work(ctx, i > 0)
		}()
	}
	go func() { wg.Wait(); stopped() }()
	return nil
}

// work processes batches until ctx ends; a helper waits while the queue has
// no backlog.
func (p *Processor) work(ctx context.Context, helper bool) {
	var swept time.Time
	down := false // the database was unavailable at the last try
	for ctx.Err() == nil {
		if helper && !p.backlog.Load() {
			p.idle(ctx, p.help)
			continue
		}
		did, err := p.ProcessOne(context.WithoutCancel(ctx))
		switch {
		case errors.Is(err, store.ErrUnavailable):
			// Said once an outage, not at every try (four a second).
			if !down {
				p.opts.Logger.Warn("the database is unavailable: processing waits for it", "err", err)
			}
			down = true
		case err != nil:
			p.opts.Logger.Error("processing a batch failed; it will be retried when its lease expires", "err", err)
		case down:
			p.opts.Logger.Info("the database is back: processing goes on")
			down = false
		}
		if did && err == nil {
			p.Wake() // more may be waiting: let the next idle worker look too
			p.foldDue(context.WithoutCancel(ctx), false)
			p.refreshSearches(context.WithoutCancel(ctx))
			p.linger(ctx)
			continue
		}
		p.foldDue(context.WithoutCancel(ctx), err == nil)
		p.refreshSearches(context.WithoutCancel(ctx))
		if helper {
			// Only the first worker takes the wake-ups of commits: a
			// helper that took one would go back to waiting for a backlog
			// and leave the new batch to the first worker's timer.
			p.idle(ctx, p.help)
			continue
		}
		p.sweep(context.WithoutCancel(ctx), &swept)
		p.idle(ctx, p.wake)
	}
}

// idle waits up to Idle for a signal on ch or the end of ctx.
func (p *Processor) idle(ctx context.Context, ch <-chan struct{}) {
	t := time.NewTimer(p.opts.Idle)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-ch:
	case <-t.C:
	}
}

// ProcessOne claims up to claimSize batches and processes them in
// parts (applyBudget), each part prepared together and completed in one
// transaction with the batches' deletion. It reports false when the queue
// had nothing to claim.
func (p *Processor) ProcessOne(ctx context.Context) (bool, error) {
	now := p.opts.Now().UTC().Truncate(time.Millisecond)
	var batches []store.Batch
	n := p.claimSize()
	// This claim takes every commit so far: a wake-up from one of them
	// would tell deferPart of a commit it has in hand.
	select {
	case <-p.wake:
	default:
	}
	// The claim and the apply commit without waiting for the disk
	// (TxRedone): a power failure that loses either leaves the batches
	// queued, and they are processed again. The claim writes only the
	// queue rows; the payloads are read after it, without the writer.
	err := p.db.TxRedone(ctx, func(c *store.Conn) error {
		var err error
		batches, err = c.ClaimBatchRows(ctx, now, now.Add(p.opts.Lease), n)
		return err
	})
	if err != nil {
		return false, err
	}
	full := len(batches) == n
	if keep := p.claimKeep(batches); keep < len(batches) {
		p.release(ctx, batches[keep:])
		batches = batches[:keep]
	}
	p.sawClaim(batches)
	if len(batches) > 0 {
		claimed := batches
		if batches, err = p.db.Read().LoadPayloads(ctx, claimed); err != nil {
			p.release(ctx, claimed)
			return true, err
		}
	}
	p.backlog.Store(full)
	if full {
		select {
		case p.help <- struct{}{}:
		default:
		}
	}
	if len(batches) == 0 {
		return false, nil
	}
	for len(batches) > 0 {
		n := p.budget.take(batches)
		deferred := p.deferPart(ctx, full, n < len(batches))
		if err := p.processPart(ctx, batches[:n], deferred); err != nil {
			p.release(ctx, batches[n:])
			return true, err
		}
		batches = batches[n:]
	}
	return true, nil
}

// processPart processes claimed batches together in one transaction.
//
// When that fails, one bad batch must not hold back the others: each batch
// is then processed alone, and a batch that fails alone has the failure
// recorded (see failed). A database that cannot be reached, or a race lost
// to another worker, is not the batch's fault: the batches are released
// and tried again.
func (p *Processor) processPart(ctx context.Context, batches []store.Batch, deferred bool) error {
	err := p.run(ctx, batches, deferred)
	if err != nil && !batchFault(err) {
		// Not the batches' doing (the database, a lost race): let them be
		// claimed again now rather than when the lease ends.
		p.release(ctx, batches)
	}
	if err == nil || !batchFault(err) {
		return err
	}
	if len(batches) == 1 {
		p.failed(ctx, batches[0], err)
		return nil
	}
	p.opts.Logger.Warn("processing a group of batches failed; processing each alone to find the bad one", "batches", len(batches), "err", err)
	for i, b := range batches {
		if err := p.run(ctx, []store.Batch{b}, deferred); err != nil {
			if !batchFault(err) {
				p.release(ctx, batches[i+1:])
				return err
			}
			p.failed(ctx, b, err)
		}
	}
	return nil
}

// release gives up the leases of batches whose processing met a failure
// that is not theirs, so that they are claimed again now rather than when
// the lease ends.
func (p *Processor) release(ctx context.Context, batches []store.Batch) {
	if err := p.db.Write().ReleaseBatches(context.WithoutCancel(ctx), batches); err != nil && !store.IsUnavailable(err) {
		p.opts.Logger.Warn("releasing batches after a failure", "err", err)
	}
}

// batchFault reports whether err may be the batch's own doing, as opposed
// to the database's (unreachable) or a race with another worker.
func batchFault(err error) bool {
	return !store.IsUnavailable(err) && !errors.Is(err, store.ErrConflict) && !errors.Is(err, context.Canceled)
}

// run prepares batches and applies them in one transaction, which runs again
// when it loses a race to another worker; with deferred, the value counts
// and ids are recorded to be folded later (deferPart). A panic is an
// error of the batch.
func (p *Processor) run(ctx context.Context, batches []store.Batch, deferred bool) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic: %v\n%s", v, debug.Stack())
		}
	}()
	start := time.Now()
	old, err := p.legacyLookup(ctx)
	if err != nil {
		return err
	}
	rules, err := p.rulesOf(ctx, batches)
	if err != nil {
		return err
	}
	pr, err := prepare(ctx, batches, p.opts.InfoWindow, old, rules, p.opts.Symbolicate, p.memos)
	if err != nil {
		return err
	}
	pr.deferCounts = deferred
	defer p.memos.recycle(pr)
	// Two workers on PostgreSQL can race to create the same group: the
	// loser's transaction fails on the unique key and simply runs again.
	var ticketEvents int
	events := 0
	for _, b := range batches {
		events += b.EventCount
	}
	for attempt := 0; ; attempt++ {
		err = p.db.TxRedone(store.ApartFromIngest(ctx), func(c *store.Conn) error {
			began := time.Now()
			evs, err := p.apply(ctx, c, pr, p.opts.Now().UTC().Truncate(time.Millisecond))
			ticketEvents = len(evs)
			p.budget.observe(events, time.Since(began))
			return err
		})
		if errors.Is(err, store.ErrConflict) && attempt < 5 {
			continue
		}
		break
	}
	if errors.Is(err, store.ErrLeaseLost) {
		p.opts.Logger.Warn("batch lease lost to another worker; dropping this worker's copy", "batches", len(batches))
		return nil
	}
	if err != nil {
		return err
	}
	p.releases.committed(pr.releases)
	if deferred {
		p.fold.pending.Store(true)
	}
	if ticketEvents > 0 && p.opts.AfterTickets != nil {
		p.opts.AfterTickets()
	}
	if p.opts.Observe != nil {
		p.opts.Observe(events, time.Since(start))
	}
	return nil
}

// MaxFailures is how many times a batch's processing may fail before the
// batch is set aside (CONTRACT 7).
const MaxFailures = 5

// failed records that processing b failed with err. The batch is tried
// again after a backoff of 1, 2, 4 and 8 seconds; at the fifth failure it
// is set aside (`errata queue failed` lists it, `errata queue retry` puts
// it back), logged with its error and counted.
func (p *Processor) failed(ctx context.Context, b store.Batch, cause error) {
	now := p.opts.Now().UTC().Truncate(time.Millisecond)
	retryAt := now.Add(time.Second << min(b.Failures, 4))
	setAside, err := p.db.Write().RecordBatchFailure(ctx, b, cause.Error(), MaxFailures, now, retryAt)
	switch {
	case err != nil:
		p.opts.Logger.Error("processing a batch failed, and recording the failure failed too; it will be retried when its lease ends",
			"batch_id", b.ID, "project_id", b.ProjectID, "err", cause, "record_err", err)
	case setAside:
		p.opts.Logger.Error("batch set aside after failing to process "+strconv.Itoa(MaxFailures)+" times; `errata queue retry` puts it back",
			"batch_id", b.ID, "project_id", b.ProjectID, "events", b.EventCount, "err", cause)
		if p.opts.OnSetAside != nil {
			p.opts.OnSetAside()
		}
	default:
		p.opts.Logger.Warn("processing a batch failed; it will be retried", "batch_id", b.ID, "project_id", b.ProjectID,
			"failures", b.Failures+1, "retry_at", retryAt, "err", cause)
	}
}

// Drain processes until the queue is empty, then ends the ignores whose
// time has come and checks the spikes a burst left unchecked (for tests
// and tools).
func (p *Processor) Drain(ctx context.Context) error {
	for {
		did, err := p.ProcessOne(ctx)
		if err != nil {
			return err
		}
		if !did {
			if err := p.FoldCounts(ctx); err != nil {
				return err
			}
			if _, err := p.ExpireIgnores(ctx); err != nil {
				return err
			}
			_, err := p.checkQuietSpikes(ctx)
			return err
		}
	}
}
