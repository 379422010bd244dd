package process

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/errata-dev/errata/internal/store"
)

// DefaultFoldEvery is Options.FoldEvery's default: how often processing
// folds the value counts and event ids it deferred while it had a backlog
// or a steady load (store.AddPendingCounts) into their groups, so how
// stale facets, key:value search, user_count and look-ups by id may be
// while events keep coming. A worker that finds the queue empty folds at
// once; without a backlog nothing is deferred. Under the busy-senders
// preset folding every 5 s rather than every second gained 9–14 % of the
// whole server's throughput (docs/decisions.md, "Value counts under a
// backlog").
const DefaultFoldEvery = 5 * time.Second

// folder folds deferred counts: at most one fold at a time in a process.
type folder struct {
	mu sync.Mutex
	// pending is set when this process may have deferred counts to fold:
	// at start (another process, or this one before a crash, may have
	// left some) and after each deferring apply commits.
	pending atomic.Bool
	// last is when the last fold began (UnixNano), read without mu by
	// steady.
	last atomic.Int64
	// budget sizes fold transactions as applyBudget sizes apply parts: in
	// counts and ids, from store.FoldCounts towards what the writer takes
	// in the apply target. Repeated values fold cheaply, in large
	// transactions that write each page once; values new to their groups
	// each dirty a page of their own, in smaller ones.
	budget *applyBudget
}

// MaxFoldCounts bounds the fold budget: the most counts and ids one fold
// transaction takes, however fast the writer applies them.
const MaxFoldCounts = 65536

// deferPart reports whether the value counts and ids of a claim's part
// are deferred (docs/decisions.md, "Value counts under a backlog"): those
// of a full claim (the worker has a backlog) and of each part of a claim
// but its last are, so that a second of parts folded at once writes each
// count once rather than once a part. The last part of a claim that
// emptied the queue folds what waits first and writes its own counts at
// once, so that once its events are counted their values are too: a
// server without a backlog has exact counts as soon as its events are
// processed, and so has one whose burst of events just ended. Only when a
// fold waits that is not due (folder.steady) and another commit comes
// within Linger, a steady stream that would otherwise fold each time the
// worker catches up, is that part deferred too.
func (p *Processor) deferPart(ctx context.Context, full, more bool) bool {
	if full || more {
		return true
	}
	if p.fold.steady(p.opts.FoldEvery) && p.streaming(ctx) {
		return true
	}
	p.foldDue(ctx, true)
	return false
}

// streaming waits up to Linger for a commit's wake-up (Wake): whether
// events keep coming. Commits of other processes wake nobody here, so
// with several processes on PostgreSQL a stream looks like its end, and
// is folded each time the worker catches up.
func (p *Processor) streaming(ctx context.Context) bool {
	if p.opts.Linger <= 0 {
		return false
	}
	t := time.NewTimer(p.opts.Linger)
	defer t.Stop()
	select {
	case <-p.wake:
		return true
	case <-t.C:
		return false
	case <-ctx.Done():
		return false
	}
}

// steady reports whether counts are deferred and their next fold is not
// due yet (see deferPart). Under a steady load the worker catches up many
// times a second, and folding each time wrote every (group, key, value)
// once a part rather than once in every (about 10 % of the whole server's
// throughput, docs/decisions.md "Value counts under a backlog").
func (f *folder) steady(every time.Duration) bool {
	return f.pending.Load() && f.sinceLast() < every
}

// sinceLast is how long ago the last fold began.
func (f *folder) sinceLast() time.Duration { return time.Since(time.Unix(0, f.last.Load())) }

// foldDue folds the deferred counts when Options.FoldEvery has passed since the
// last fold, or at once when idle (the queue had nothing to claim, or the
// claim in hand empties it).
func (p *Processor) foldDue(ctx context.Context, idle bool) {
	if !p.fold.pending.Load() {
		return
	}
	if idle {
		// Wait for another worker's fold rather than skip: counts that
		// worker's part committed during it would otherwise wait for the
		// next event.
		p.fold.mu.Lock()
	} else if !p.fold.mu.TryLock() {
		return // another worker folds
	}
	defer p.fold.mu.Unlock()
	if !p.fold.pending.Load() || !idle && p.fold.sinceLast() < p.opts.FoldEvery {
		return
	}
	if err := p.foldAll(ctx); err != nil {
		p.opts.Logger.Warn("folding deferred value counts failed; the next fold tries again", "err", err)
	}
}

// foldAll folds every deferred count, one bucket a transaction. Each
// fold's rows are read, decoded and summed before its transaction
// (store.ReadPendingFold), which holds the writer only to write them.
func (p *Processor) foldAll(ctx context.Context) error {
	p.fold.pending.Store(false)
	p.fold.last.Store(time.Now().UnixNano())
	for b := 0; b < store.PendingBuckets; {
		f, err := p.db.Read().ReadPendingFold(ctx, b, p.fold.budget.size())
		if err == nil && f.Rows > 0 {
			err = p.db.TxRedone(store.ApartFromIngest(ctx), func(c *store.Conn) error {
				began := time.Now()
				err := c.ApplyPendingFold(ctx, f)
				p.fold.budget.observe(f.Counts, time.Since(began))
				return err
			})
		}
		switch {
		case errors.Is(err, store.ErrPendingMoved):
			continue // folded meanwhile by another: read the bucket again
		case err != nil:
			p.fold.pending.Store(true)
			return err
		case f.Rows == 0:
			b++
		}
	}
	return nil
}

// FoldCounts folds every deferred count now (for tests and tools).
func (p *Processor) FoldCounts(ctx context.Context) error {
	p.fold.mu.Lock()
	defer p.fold.mu.Unlock()
	return p.foldAll(ctx)
}
