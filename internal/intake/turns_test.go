package intake

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestTurns: one holder per key at a time; another key, or no key, goes at
// once; a waiter past its wait is ErrMemoryBusy; the last one out leaves
// no entry behind.
func TestTurns(t *testing.T) {
	var tu turns
	ctx := context.Background()
	done, err := tu.take(ctx, "a", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tu.take(ctx, "a", 50*time.Millisecond); !errors.Is(err, ErrMemoryBusy) {
		t.Fatalf("a second take of a held key: %v, want ErrMemoryBusy", err)
	}
	other, err := tu.take(ctx, "b", 50*time.Millisecond)
	if err != nil {
		t.Fatalf("another key waited: %v", err)
	}
	other()
	if none, err := tu.take(ctx, "", 0); err != nil {
		t.Fatalf("no key waited: %v", err)
	} else {
		none()
	}
	got := make(chan error, 1)
	go func() {
		next, err := tu.take(ctx, "a", 5*time.Second)
		if err == nil {
			next()
		}
		got <- err
	}()
	time.Sleep(20 * time.Millisecond)
	done()
	if err := <-got; err != nil {
		t.Fatalf("the waiter once the turn was given back: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	held, _ := tu.take(ctx, "c", time.Second)
	cancel()
	if _, err := tu.take(cctx, "c", time.Second); !errors.Is(err, context.Canceled) {
		t.Fatalf("a waiter whose request ended: %v, want context.Canceled", err)
	}
	held()
	tu.mu.Lock()
	defer tu.mu.Unlock()
	if len(tu.m) != 0 {
		t.Fatalf("entries left after every turn was given back: %v", tu.m)
	}
}
