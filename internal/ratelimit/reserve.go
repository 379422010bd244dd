package ratelimit

import (
	"context"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// MaxReserveWait bounds how long Reserve waits for the reservations that
// empty a bucket to settle.
const MaxReserveWait = 5 * time.Second

// Reservation is a token taken by Reserve before the work it pays for is
// done. Exactly one of GiveBack (the work did not need it: a sign-in that
// succeeds) and Done (it stays spent) settles it; later calls do nothing,
// so `defer res.Done()` after Reserve settles every path that did not give
// it back.
type Reservation struct {
	l    *Limiter
	key  string
	b    *rate.Limiter
	once sync.Once
}

// Reserve takes one token from key's bucket before the work it pays for is
// done, so that concurrent callers cannot all pass a Peek and then all take
// a token. When the bucket is empty only because reservations are still
// held, it waits (at most MaxReserveWait, and no longer than ctx) for them
// to settle: a token given back is taken by a waiter, so N concurrent
// attempts that turn out not to need their token all pass, while N that
// keep theirs count as N. When not allowed, the reservation is nil (its
// methods do nothing).
func (l *Limiter) Reserve(ctx context.Context, key string) (Result, *Reservation) {
	wait := time.NewTimer(MaxReserveWait)
	defer wait.Stop()
	for {
		l.heldMu.Lock()
		res := l.take(key, 1)
		if res.Allowed {
			if l.held == nil {
				l.held = map[string]int{}
			}
			l.held[key]++
			l.heldMu.Unlock()
			return res, &Reservation{l: l, key: key, b: l.bucket(key, l.now())}
		}
		if l.held[key] == 0 {
			l.heldMu.Unlock()
			return res, nil
		}
		if l.settled == nil {
			l.settled = map[string]chan struct{}{}
		}
		ch := l.settled[key]
		if ch == nil {
			ch = make(chan struct{})
			l.settled[key] = ch
		}
		l.heldMu.Unlock()
		select {
		case <-ch:
		case <-wait.C:
			return res, nil
		case <-ctx.Done():
			return res, nil
		}
	}
}

// GiveBack returns the token to its bucket (up to the burst).
func (r *Reservation) GiveBack() { r.settle(true) }

// Done settles the reservation keeping its token spent.
func (r *Reservation) Done() { r.settle(false) }

func (r *Reservation) settle(giveBack bool) {
	if r == nil {
		return
	}
	r.once.Do(func() {
		l := r.l
		l.heldMu.Lock()
		defer l.heldMu.Unlock()
		if giveBack {
			r.b.AllowN(l.now(), -1) // a reservation of -1 tokens puts one back
		}
		if l.held[r.key]--; l.held[r.key] <= 0 {
			delete(l.held, r.key)
		}
		if ch := l.settled[r.key]; ch != nil {
			close(ch)
			delete(l.settled, r.key)
		}
	})
}
