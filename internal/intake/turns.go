package intake

import (
	"context"
	"sync"
	"time"
)

// turns lets one holder at a time per key go (the zero value is ready):
// the first lines of one client address's keyless br and zstd bodies are
// decoded one at a time (readSent), so that a client sending many at once
// takes no more of the unauthenticated share than one, and the other
// addresses' decodes fit beside it.
type turns struct {
	mu sync.Mutex
	m  map[string]*turn
}

type turn struct {
	ch      chan struct{} // holds a token while the turn is taken
	waiting int           // holders and waiters: the entry goes with the last
}

// take waits, at most wait, for key's turn and returns the function that
// gives it back; ErrMemoryBusy past wait, or ctx's error. The empty key
// (no address known) never waits.
func (t *turns) take(ctx context.Context, key string, wait time.Duration) (func(), error) {
	if key == "" {
		return func() {}, nil
	}
	t.mu.Lock()
	if t.m == nil {
		t.m = map[string]*turn{}
	}
	tu := t.m[key]
	if tu == nil {
		tu = &turn{ch: make(chan struct{}, 1)}
		t.m[key] = tu
	}
	tu.waiting++
	t.mu.Unlock()
	leave := func() {
		t.mu.Lock()
		if tu.waiting--; tu.waiting == 0 {
			delete(t.m, key)
		}
		t.mu.Unlock()
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case tu.ch <- struct{}{}:
		return func() { <-tu.ch; leave() }, nil
	case <-timer.C:
		leave()
		return nil, ErrMemoryBusy
	case <-ctx.Done():
		leave()
		return nil, ctx.Err()
	}
}
