package intake

import (
	"context"
	"time"
)

// A preemptible reservation holds room for bytes that have not arrived yet:
// an OTLP/gRPC export reserves what the largest message needs before gRPC
// reads it, since gRPC reads it out of the handler's sight. A call that
// opens and sends nothing would hold that room until the read timeout, and
// a few such calls would leave no room to anyone else (the idle-call
// lockout, docs/decisions.md). So a request that waits for room takes it
// back from the reservation that has waited longest for its bytes, once
// that one has waited at least its grace: the channel Preemptible
// returned is closed, and its owner refuses its call (UNAVAILABLE with a
// RetryInfo) and releases what it holds. Without a request waiting, nothing
// is preempted, and a slow message has until the read timeout.
type preemptible struct {
	r        *Reservation
	account  string
	eligible time.Time // since + grace
	done     chan struct{}
}

// Preemptible marks what r holds as room for bytes still to arrive:
// from grace on, a request that waits for room (for the whole budget, or
// for r's account's share) may take it back. The channel is closed when it
// does; settle ends the mark once the bytes have arrived (or the owner
// gives up) and reports whether r kept its room. The owner releases r
// either way.
func (r *Reservation) Preemptible(grace time.Duration) (preempted <-chan struct{}, settle func() bool) {
	b := r.budget
	p := &preemptible{r: r, account: r.account, eligible: time.Now().Add(grace), done: make(chan struct{})}
	b.mu.Lock()
	if b.preemptibles == nil {
		b.preemptibles = map[*preemptible]struct{}{}
	}
	b.preemptibles[p] = struct{}{}
	b.awaiting.Add(1)
	b.mu.Unlock()
	return p.done, func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		if _, ok := b.preemptibles[p]; !ok {
			return false
		}
		delete(b.preemptibles, p)
		b.awaiting.Add(-1)
		return true
	}
}

// Awaiting is how many reservations hold room for bytes still to arrive
// (errata_ingest_memory_awaiting_messages in /metrics).
func (b *Budget) Awaiting() int64 { return b.awaiting.Load() }

// Preempted is how many reservations have had their room taken back by a
// request that waited for it.
func (b *Budget) Preempted() int64 { return b.preempted.Load() }

// preempt takes back the room of the eligible preemptible reservation that
// has waited longest, other than waiter's: of account's reservations when
// account is not "", of any otherwise. It reports whether it found one.
func (b *Budget) preempt(waiter *Reservation, account string) bool {
	if b.awaiting.Load() == 0 {
		return false
	}
	now := time.Now()
	b.mu.Lock()
	defer b.mu.Unlock()
	var oldest *preemptible
	for p := range b.preemptibles {
		if p.r == waiter || now.Before(p.eligible) || (account != "" && p.account != account) {
			continue
		}
		if oldest == nil || p.eligible.Before(oldest.eligible) {
			oldest = p
		}
	}
	if oldest == nil {
		return false
	}
	delete(b.preemptibles, oldest)
	b.awaiting.Add(-1)
	b.preempted.Add(1)
	close(oldest.done)
	return true
}

// preemptPause is how many shareTicks a waiter lets pass after taking
// room back before it takes more: its owner releases the room at once,
// unless the machine is too busy to run it.
const preemptPause = 10

// preemptWhileWaiting takes back a preemptible reservation's room while ctx
// lasts (looking every shareTick, and at most one every ten ticks), for a request waiting for room in the whole
// budget; the returned function stops it. A reservation whose room was
// taken back gives it to the semaphore as its owner releases it, and the
// semaphore hands it to its waiters in order.
func (b *Budget) preemptWhileWaiting(ctx context.Context, waiter *Reservation) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		t := time.NewTicker(shareTick)
		defer t.Stop()
		for skip := 0; ; skip-- {
			// After taking room back, give its owner a few ticks to
			// release it before taking more.
			if skip <= 0 && b.preempt(waiter, "") {
				skip = preemptPause
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	return cancel
}
