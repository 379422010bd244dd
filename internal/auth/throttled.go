package auth

import (
	"context"
	"sync"
	"time"
)

// throttledNoteEvery is how often the audit log of an account's
// organizations is told that sign-ins to it are being refused by its
// failure limit: once a quarter of an hour an account and process, so that
// a client hammering an account leaves a trace without writing an entry a
// request.
const throttledNoteEvery = 15 * time.Minute

// maxThrottledNotes bounds the accounts remembered, and maxNoting the
// notes being written at once (more are dropped: the refusals they would
// record go on, and are recorded on a later one).
const (
	maxThrottledNotes = 10000
	maxNoting         = 4
)

// throttledNotes remembers when each account's refused sign-ins were last
// recorded. Past maxThrottledNotes accounts it forgets those recorded
// longer ago than throttledNoteEvery, or else all of them (an account may
// then be recorded again sooner).
type throttledNotes struct {
	mu     sync.Mutex
	last   map[string]time.Time
	noting int
}

// start reports whether a refusal of the address email at now is to be
// recorded, and if so holds one of the maxNoting slots until done.
func (n *throttledNotes) start(email string, now time.Time) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if at, ok := n.last[email]; (ok && now.Sub(at) < throttledNoteEvery) || n.noting >= maxNoting {
		return false
	}
	if n.last == nil {
		n.last = map[string]time.Time{}
	}
	if len(n.last) >= maxThrottledNotes {
		for k, at := range n.last {
			if now.Sub(at) >= throttledNoteEvery {
				delete(n.last, k)
			}
		}
		if len(n.last) >= maxThrottledNotes {
			clear(n.last)
		}
	}
	n.last[email] = now // so that refusals meanwhile start no second note
	n.noting++
	return true
}

// done ends a note started at now: written, it stays remembered; not
// (the address names no account, the database failed), it is forgotten.
func (n *throttledNotes) done(email string, now time.Time, written bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.noting--
	if !written && n.last[email] == now {
		delete(n.last, email)
	}
}

// noteThrottled records in the audit logs of an account's organizations
// that a sign-in to it was refused by its failure limit (429): a
// brute-force attempt throttled is otherwise invisible to their admins. It
// works in the background, so that the refusal answers at once and takes
// the same time whether the address is an account's or not; an address of
// no account records nothing.
func (s *Service) noteThrottled(ctx context.Context, canonical, legacy string) {
	now := s.clock()
	if !s.throttled.start(canonical, now) {
		return
	}
	ctx = context.WithoutCancel(ctx) // the request's address and user agent, not its end
	go func() {
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		written := false
		if u, err := s.userByEmail(ctx, canonical, legacy); err == nil {
			written = s.recordFailure(ctx, u, "rate-limited")
		}
		s.throttled.done(canonical, now, written)
	}()
}
