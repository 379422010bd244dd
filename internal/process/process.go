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
	"log/slog"
	"runtime"
	"sync"
	"time"

	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/tickets"
)

// Options tune a Processor.
type Options struct {
	// Workers process batches in parallel (default GOMAXPROCS).
	Workers int
	// Lease is how long a claimed batch stays with its worker (default 5m).
	Lease time.Duration
	// Idle is the longest wait for new work before polling the queue again
	// (default 250ms); a local commit wakes the workers at once.
	Idle time.Duration
	// InfoWindow is the INFO summary window (ERRATA_INFO_WINDOW).
	InfoWindow time.Duration
	// ClaimBatches is the most batches one transaction applies together
	// (default 32).
	ClaimBatches int
	// Samples is how many latest sample events a group keeps besides its
	// first (default 10).
	Samples int
	Spike   tickets.SpikeRule
	// OnTickets runs in the batch's transaction with the tickets it opened
	// or raised (notification enqueues its deliveries there).
	OnTickets func(ctx context.Context, c *store.Conn, events []TicketEvent) error
	// AfterTickets runs after a transaction in which OnTickets ran has
	// committed (notification wakes its delivery engine there).
	AfterTickets func()
	// Observe, if set, is told about every processed batch.
	Observe func(events int, d time.Duration)
	Now     func() time.Time
	Logger  *slog.Logger
}

// Processor is the queue consumer service.
type Processor struct {
	db   *store.DB
	opts Options
	wake chan struct{}
	hot  hotGroups

	cancel context.CancelFunc
	wg     sync.WaitGroup
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
	if opts.InfoWindow <= 0 {
		opts.InfoWindow = time.Hour
	}
	if opts.ClaimBatches <= 0 {
		opts.ClaimBatches = 32
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
	return &Processor{db: db, opts: opts, wake: make(chan struct{}, 1)}
}

// Wake tells the workers that a batch was committed.
func (p *Processor) Wake() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// Start launches the workers.
func (p *Processor) Start() {
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	for i := 0; i < p.opts.Workers; i++ {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			p.work(ctx)
		}()
	}
}

// Stop lets each worker finish the batch in hand and waits for them.
func (p *Processor) Stop() {
	if p.cancel != nil {
		p.cancel()
	}
	p.wg.Wait()
}

func (p *Processor) work(ctx context.Context) {
	for ctx.Err() == nil {
		did, err := p.ProcessOne(context.WithoutCancel(ctx))
		if err != nil {
			p.opts.Logger.Error("processing a batch failed; it will be retried when its lease expires", "err", err)
		}
		if did && err == nil {
			p.Wake() // more may be waiting: let the next idle worker look too
			continue
		}
		t := time.NewTimer(p.opts.Idle)
		select {
		case <-ctx.Done():
		case <-p.wake:
		case <-t.C:
		}
		t.Stop()
	}
}

// ProcessOne claims up to ClaimBatches batches, processes them together and
// completes them in one transaction. It reports false when the queue had
// nothing to claim.
func (p *Processor) ProcessOne(ctx context.Context) (bool, error) {
	now := p.opts.Now().UTC().Truncate(time.Millisecond)
	batches, err := p.db.Write().ClaimBatches(ctx, now, now.Add(p.opts.Lease), p.opts.ClaimBatches)
	if err != nil {
		return false, err
	}
	if len(batches) == 0 {
		return false, nil
	}
	start := time.Now()
	pr, err := prepare(batches, p.opts.InfoWindow)
	if err != nil {
		return true, err
	}
	// Two workers on PostgreSQL can race to create the same group: the
	// loser's transaction fails on the unique key and simply runs again.
	var ticketEvents int
	for attempt := 0; ; attempt++ {
		err = p.db.Tx(ctx, func(c *store.Conn) error {
			evs, err := p.apply(ctx, c, pr, p.opts.Now().UTC().Truncate(time.Millisecond))
			ticketEvents = len(evs)
			return err
		})
		if errors.Is(err, store.ErrConflict) && attempt < 5 {
			continue
		}
		break
	}
	if errors.Is(err, store.ErrLeaseLost) {
		p.opts.Logger.Warn("batch lease lost to another worker; dropping this worker's copy", "batches", len(batches))
		return true, nil
	}
	if err == nil && ticketEvents > 0 && p.opts.AfterTickets != nil {
		p.opts.AfterTickets()
	}
	if err == nil && p.opts.Observe != nil {
		events := 0
		for _, b := range batches {
			events += b.EventCount
		}
		p.opts.Observe(events, time.Since(start))
	}
	return true, err
}

// Drain processes until the queue is empty (for tests and tools).
func (p *Processor) Drain(ctx context.Context) error {
	for {
		did, err := p.ProcessOne(ctx)
		if err != nil {
			return err
		}
		if !did {
			return nil
		}
	}
}
