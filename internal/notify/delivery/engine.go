// Package delivery is the delivery engine: it claims due deliveries
// (leased in the store, so a crash only delays them), hands each to its
// sender (webhook or email, which notify provides), and records the
// outcome with the retry schedule and channel health of spec 6.4.
package delivery

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/errata-dev/errata/internal/store"
)

// The engine: one loop claims due deliveries (leased in the store, so a
// crash only delays them), runs at most PerChannel attempts per channel at
// once, queues the rest of a busy channel in memory (at most PerChannel),
// and a committer writes finished attempts in groups. Nothing polls while
// idle more often than Options.Idle; a queued delivery wakes the loop.

type result struct {
	d store.Delivery
	a store.Attempt
	o Outcome // Cancel and Drop: not attempted
}

// record stores what an attempt decided, in c's transaction.
func (r result) record(ctx context.Context, c *store.Conn, now time.Time) error {
	switch r.o {
	case Drop:
		return nil
	case Cancel:
		return c.CancelDelivery(ctx, r.d, now)
	}
	return c.RecordAttempt(ctx, r.d, r.a)
}

type chanState struct {
	running int
	queue   []store.Delivery
}

// run is the state of one run of the engine, from Start to Stop.
type run struct {
	s       *Engine
	send    Send
	mu      sync.Mutex
	chans   map[string]*chanState
	held    int  // deliveries claimed and not yet committed
	stopped bool // no more attempts start
	free    chan struct{}
	results chan result
	wg      sync.WaitGroup // attempts in flight
}

// Start runs the engine until Stop, which ends it after the attempts in
// flight; the deliveries it had claimed but not attempted are taken again
// when their lease ends.
func (s *Engine) Start(ctx context.Context) error {
	ctx, ok, stopped := s.StartInit(ctx)
	if !ok {
		return nil
	}
	ctx = store.AsWork(ctx) // a connection gone silent does not stop deliveries for good
	e := &run{s: s, send: s.newSend(2 * time.Second), chans: map[string]*chanState{}, free: make(chan struct{}, 1),
		results: make(chan result, s.opts.Workers)}
	committed := make(chan struct{})
	go func() { defer close(committed); e.commit() }()
	go func() {
		defer stopped()
		e.loop(ctx)
		e.mu.Lock()
		e.stopped = true
		e.mu.Unlock()
		e.wg.Wait() // attempts in flight finish (each within its time-outs)
		close(e.results)
		<-committed
	}()
	return nil
}

func (e *run) loop(ctx context.Context) {
	s := e.s
	for ctx.Err() == nil {
		now := s.now()
		claimed := 0
		e.mu.Lock()
		room := s.opts.Workers - e.held
		var busy []string
		for id, cs := range e.chans {
			if cs.running+len(cs.queue) >= s.opts.PerChannel {
				busy = append(busy, id)
			}
		}
		e.mu.Unlock()
		if room > 0 {
			ds, err := s.claim(ctx, now, s.opts.PerChannel, room, busy)
			if err != nil && ctx.Err() == nil {
				s.opts.Logger.Warn("claiming deliveries", "err", err)
			}
			for _, d := range ds {
				e.dispatch(ctx, d)
			}
			claimed = len(ds)
			if claimed == room {
				continue // there may be more due
			}
		}
		wait := s.opts.Idle
		if next, ok, err := s.db.Read().NextDeliveryDue(ctx, now); err == nil && ok && next.After(now) && next.Sub(now) < wait {
			wait = next.Sub(now) // a retry is due before the idle poll
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
		case <-s.wake:
		case <-e.free:
		case <-t.C:
		}
		t.Stop()
	}
}

// dispatch starts an attempt, or queues it behind its channel's running ones.
func (e *run) dispatch(ctx context.Context, d store.Delivery) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.held++
	cs := e.chans[d.ChannelID]
	if cs == nil {
		cs = &chanState{}
		e.chans[d.ChannelID] = cs
	}
	if cs.running >= e.s.opts.PerChannel {
		cs.queue = append(cs.queue, d)
		return
	}
	cs.running++
	e.start(ctx, d)
}

func (e *run) start(ctx context.Context, d store.Delivery) {
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		// Attempts outlive a stop request: each ends within its own
		// time-outs, and its result is committed.
		e.results <- e.s.attempt(context.WithoutCancel(ctx), d, e.send)
	}()
}

// finished frees the slot of a committed attempt and starts the next
// queued delivery of its channel.
func (e *run) finished(ctx context.Context, channelID string) {
	e.mu.Lock()
	e.held--
	cs := e.chans[channelID]
	cs.running--
	if len(cs.queue) > 0 && !e.stopped {
		d := cs.queue[0]
		cs.queue = cs.queue[1:]
		cs.running++
		e.start(ctx, d)
	} else if cs.running == 0 && len(cs.queue) == 0 {
		delete(e.chans, channelID)
	}
	e.mu.Unlock()
	select {
	case e.free <- struct{}{}:
	default:
	}
}

// commit writes finished attempts, grouping those that finish together
// into one transaction.
func (e *run) commit() {
	ctx := store.AsWork(context.Background())
	batch := make([]result, 0, 256)
	for r := range e.results {
		batch = append(batch[:0], r)
	more:
		for len(batch) < cap(batch) {
			select {
			case r, ok := <-e.results:
				if !ok {
					break more
				}
				batch = append(batch, r)
			default:
				break more
			}
		}
		// One order for the rows every transaction locks (the deliveries
		// and their channels' health), so that two processes recording at
		// once cannot deadlock; a transaction that loses a race anyway runs
		// again.
		slices.SortFunc(batch, func(a, b result) int {
			return cmp.Or(cmp.Compare(a.d.ChannelID, b.d.ChannelID), cmp.Compare(a.d.ID, b.d.ID))
		})
		var err error
		for try := 0; try < maxCommitTries; try++ {
			now := e.s.now()
			err = e.s.db.Tx(ctx, func(c *store.Conn) error {
				for _, r := range batch {
					err := r.record(ctx, c, now)
					if errors.Is(err, store.ErrLeaseLost) {
						e.s.opts.Logger.Warn("delivery lease lost: another process took it over", "delivery_id", r.d.ID)
						continue
					}
					if err != nil {
						return err
					}
				}
				return nil
			})
			if !errors.Is(err, store.ErrConflict) && !store.IsUnavailable(err) {
				break
			}
			time.Sleep(time.Duration(try+1) * 50 * time.Millisecond)
		}
		if err != nil {
			// The deliveries stay leased and are attempted again when
			// their leases end: at least once, never lost.
			e.s.opts.Logger.Error("recording delivery attempts", "err", err, "attempts", len(batch))
		}
		for _, r := range batch {
			if err == nil && r.a.Outcome != "" && e.s.opts.Observe != nil {
				e.s.opts.Observe(r.d.Event, r.a.Outcome, r.a.Duration)
			}
			if r.a.Outcome == store.OutcomeFailed {
				e.s.opts.Logger.Warn("delivery given up", "delivery_id", r.d.ID, "channel_id", r.d.ChannelID, "error_class", r.a.ErrorClass, "error", r.a.Error)
			}
			e.finished(ctx, r.d.ChannelID)
		}
	}
}

// maxCommitTries bounds the runs of a transaction recording attempts that
// lost a race (a deadlock or serialization failure) or met a database
// blip: its deliveries would otherwise stay leased and be sent again.
const maxCommitTries = 5

// claim leases due deliveries in a transaction of its own (on PostgreSQL
// the claims of every process are serialised there, see
// store.ClaimDeliveries).
func (s *Engine) claim(ctx context.Context, now time.Time, perChannel, limit int, exclude []string) ([]store.Delivery, error) {
	var ds []store.Delivery
	err := s.db.Tx(ctx, func(c *store.Conn) error {
		var err error
		ds, err = c.ClaimDeliveries(ctx, now, now.Add(s.opts.Lease), perChannel, limit, exclude)
		return err
	})
	return ds, err
}

// DeliverDue attempts every delivery due now, one at a time, and records
// the outcomes; it returns how many it attempted. Tests and tools use it
// with an injected clock instead of the engine.
func (s *Engine) DeliverDue(ctx context.Context) (int, error) {
	send := s.newSend(0) // no caching across calls: the clock may jump
	n := 0
	for {
		now := s.now()
		ds, err := s.claim(ctx, now, MaxAttempts*1000, 100, nil)
		if err != nil || len(ds) == 0 {
			return n, err
		}
		for _, d := range ds {
			r := s.attempt(ctx, d, send)
			err := s.db.Tx(ctx, func(c *store.Conn) error { return r.record(ctx, c, s.now()) })
			if err != nil {
				return n, err
			}
			n++
		}
	}
}
