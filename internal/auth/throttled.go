package auth

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/errata-dev/errata/internal/store"
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
	closed bool           // Close: no note starts any more
	wg     sync.WaitGroup // the notes being written
}

// start reports whether a refusal of the address email at now is to be
// recorded, and if so holds one of the maxNoting slots until done.
func (n *throttledNotes) start(email string, now time.Time) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if at, ok := n.last[email]; (ok && now.Sub(at) < throttledNoteEvery) || n.noting >= maxNoting || n.closed {
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
	n.wg.Add(1) // under mu, so that none is added once close has begun
	return true
}

// done ends a note started at now: settled (written, or the address
// names no account), it stays remembered; not (the database failed), it
// is forgotten so that the next refusal tries again.
func (n *throttledNotes) done(email string, now time.Time, settled bool) {
	defer n.wg.Done()
	n.mu.Lock()
	defer n.mu.Unlock()
	n.noting--
	if !settled && n.last[email] == now {
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
		u, err := s.userByEmail(ctx, canonical, legacy)
		settled := errors.Is(err, store.ErrNotFound)
		if err == nil {
			settled = s.recordFailure(ctx, u, "rate-limited")
		}
		s.throttled.done(canonical, now, settled)
	}()
}

// Wait waits for the audit notes being written in the background
// (noteThrottled); tests call it before they read the log.
func (s *Service) Wait() { s.throttled.wg.Wait() }

// Close starts no more notes and waits for those being written: the app
// calls it before it closes the store, where a sign-in still answered
// after the HTTP server's shutdown timed out would otherwise write to a
// closed store (or add to a WaitGroup being waited for).
func (s *Service) Close() { s.throttled.close() }

// close starts no more notes and waits for those started.
func (n *throttledNotes) close() {
	n.mu.Lock()
	n.closed = true
	n.mu.Unlock()
	n.wg.Wait()
}
