package ratelimit

import (
	"context"
	"testing"
	"time"
)

// reserveLater starts a Reserve of key and returns where its answer comes.
func reserveLater(l *Limiter, key string) <-chan bool {
	out := make(chan bool, 1)
	go func() {
		r, _ := l.Reserve(context.Background(), key)
		out <- r.Allowed
	}()
	return out
}

// answer is the next of two waiters' answers; it fails the test with
// stuck when neither comes within half of MaxReserveWait.
func answer(t *testing.T, a, b <-chan bool, stuck string) bool {
	t.Helper()
	select {
	case got := <-a:
		return got
	case got := <-b:
		return got
	case <-time.After(MaxReserveWait / 2):
		t.Fatal(stuck)
		return false
	}
}

// TestReserveWaitsForHeldTokens: a Reserve that finds the bucket emptied
// by reservations still held waits for them: a token given back goes to a
// waiter, and once every reservation is settled as spent the waiters are
// refused.
func TestReserveWaitsForHeldTokens(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	l := New(1.0/60, 2).WithClock(func() time.Time { return now })
	_, a := l.Reserve(context.Background(), "k")
	_, b := l.Reserve(context.Background(), "k")
	first, second := reserveLater(l, "k"), reserveLater(l, "k")
	select {
	case got := <-first:
		t.Fatalf("a Reserve answered %v while both tokens were held; want it to wait", got)
	case <-time.After(50 * time.Millisecond):
	}
	a.GiveBack()
	a.GiveBack() // a second settling does nothing
	var allowed, refused int
	tally := func(got bool) {
		if got {
			allowed++
		} else {
			refused++
		}
	}
	tally(answer(t, first, second, "no waiter took the token given back"))
	if allowed != 1 {
		t.Fatalf("after one token given back: %d allowed, %d refused; want one allowed", allowed, refused)
	}
	b.Done() // spent; the waiter that took a's token still holds it
	select {
	case got := <-first:
		t.Fatalf("the last waiter answered %v while a reservation is held", got)
	case got := <-second:
		t.Fatalf("the last waiter answered %v while a reservation is held", got)
	case <-time.After(50 * time.Millisecond):
	}
	// Settle the waiter's own reservation as spent: nothing is held, the
	// bucket is empty, and the last waiter is refused at once.
	l.heldMu.Lock()
	held := l.held["k"]
	l.heldMu.Unlock()
	if held != 1 {
		t.Fatalf("held = %d, want the one reservation the waiter took", held)
	}
	(&Reservation{l: l, key: "k", b: l.bucket("k", now)}).Done()
	tally(answer(t, first, second, "the last waiter still waits with nothing held"))
	if allowed != 1 || refused != 1 {
		t.Fatalf("%d allowed, %d refused; want one each", allowed, refused)
	}
}

// TestReserveRefusesAtOnceWithNothingHeld: an empty bucket with no
// reservation in flight is refused without waiting, and a nil
// Reservation's methods do nothing.
func TestReserveRefusesAtOnceWithNothingHeld(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	l := New(1.0/60, 1).WithClock(func() time.Time { return now })
	_, a := l.Reserve(context.Background(), "k")
	a.Done()
	start := time.Now()
	r, res := l.Reserve(context.Background(), "k")
	if r.Allowed || res != nil {
		t.Fatalf("Reserve of an empty bucket = %+v, %v; want refused, nil", r, res)
	}
	if waited := time.Since(start); waited > MaxReserveWait/2 {
		t.Fatalf("a refusal with nothing held waited %v", waited)
	}
	res.GiveBack()
	res.Done()
}
