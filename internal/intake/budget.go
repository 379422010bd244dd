package intake

import (
	"context"
	"errors"
	"time"

	"golang.org/x/sync/semaphore"
)

// ErrMemoryBusy means the memory budget stayed spent for the whole wait:
// the request is answered 503 overloaded and the client resends later.
var ErrMemoryBusy = errors.New("intake: memory budget spent")

// Budget bounds the bytes of request bodies held for decoding at one
// moment, across every transport (ERRATA_INGEST_MEMORY). A request
// reserves what it is about to hold before it holds it — the body as
// sent, then as it decompresses, in steps — so that many small requests
// that inflate into large ones cannot together exhaust the process.
type Budget struct {
	sem  *semaphore.Weighted
	size int64
	wait time.Duration
}

// NewBudget returns a budget of size bytes; a request waits at most wait
// for room, in all.
func NewBudget(size int64, wait time.Duration) *Budget {
	return &Budget{sem: semaphore.NewWeighted(size), size: size, wait: wait}
}

// Size is the whole budget in bytes.
func (b *Budget) Size() int64 { return b.size }

// Reservation is one request's share of the budget: what it holds, and
// how long it has waited for room. However many steps a request reserves
// in (a body as it arrives and as it inflates, then what decoding it
// needs), together they wait at most the budget's wait, so a request
// refused for memory is refused within that wait (CONTRACT 7: "waits up to
// 1 s, then gets 503 overloaded").
type Reservation struct {
	budget *Budget
	held   int64
	waited time.Duration
}

// Reserve starts an empty reservation on b.
func (b *Budget) Reserve() *Reservation { return &Reservation{budget: b} }

// Held is the bytes the reservation holds.
func (r *Reservation) Held() int64 { return r.held }

// Grow adds n bytes to the reservation, waiting for room no longer than
// what is left of the budget's wait; it returns ErrMemoryBusy past that,
// or ctx's error when ctx ends first. Like Acquire, it takes at most the
// whole budget.
func (r *Reservation) Grow(ctx context.Context, n int64) error {
	n = min(n, r.budget.size-r.held)
	if n <= 0 {
		return nil
	}
	if r.budget.sem.TryAcquire(n) {
		r.held += n
		return nil
	}
	left := r.budget.wait - r.waited
	if left <= 0 {
		return ErrMemoryBusy
	}
	start := time.Now()
	wctx, cancel := context.WithTimeout(ctx, left)
	defer cancel()
	err := r.budget.sem.Acquire(wctx, n)
	r.waited += time.Since(start)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return ErrMemoryBusy
	}
	r.held += n
	return nil
}

// Shrink gives back n of the bytes held (all of them at most).
func (r *Reservation) Shrink(n int64) {
	n = min(n, r.held)
	if n > 0 {
		r.budget.sem.Release(n)
		r.held -= n
	}
}

// Release gives back everything the reservation holds.
func (r *Reservation) Release() { r.Shrink(r.held) }
