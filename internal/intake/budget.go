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

// NewBudget returns a budget of size bytes; a reservation waits at most
// wait for room.
func NewBudget(size int64, wait time.Duration) *Budget {
	return &Budget{sem: semaphore.NewWeighted(size), size: size, wait: wait}
}

// Size is the whole budget in bytes.
func (b *Budget) Size() int64 { return b.size }

// Acquire reserves n bytes, waiting up to the budget's wait for room; it
// returns ErrMemoryBusy past that, or ctx's error when ctx ends first. A
// reservation larger than the whole budget takes the whole budget.
func (b *Budget) Acquire(ctx context.Context, n int64) (int64, error) {
	if n <= 0 {
		return 0, nil
	}
	n = min(n, b.size)
	if b.sem.TryAcquire(n) {
		return n, nil
	}
	wctx, cancel := context.WithTimeout(ctx, b.wait)
	defer cancel()
	if err := b.sem.Acquire(wctx, n); err != nil {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		return 0, ErrMemoryBusy
	}
	return n, nil
}

// Release gives back n bytes reserved with Acquire (what Acquire returned).
func (b *Budget) Release(n int64) {
	if n > 0 {
		b.sem.Release(n)
	}
}
