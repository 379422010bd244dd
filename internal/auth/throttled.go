package auth

import (
	"context"
	"sync"
	"time"
)

// throttledNoteEvery is how often the audit log of an account's
// organizations is told that its sign-ins are being refused by the
// failure limits: once a quarter of an hour an account and process, so that
// a client hammering an account leaves a trace without writing an entry a
// request.
const throttledNoteEvery = 15 * time.Minute

// throttledNotes remembers when each account's refused sign-ins were last
// recorded. It is bounded: past maxThrottledNotes accounts it forgets
// those recorded longer ago than throttledNoteEvery, or else all of them
// (an account may then be recorded again sooner).
type throttledNotes struct {
	mu   sync.Mutex
	last map[string]time.Time
}

const maxThrottledNotes = 10000

// due reports whether a refusal of the account with address email at now
// is to be recorded, and if so marks it recorded.
func (n *throttledNotes) due(email string, now time.Time) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if at, ok := n.last[email]; ok && now.Sub(at) < throttledNoteEvery {
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
	n.last[email] = now
	return true
}

// noteThrottled records in the audit log of an account's organizations
// that a sign-in to it was refused by the failure limits (429): a
// brute-force attempt throttled is otherwise invisible to their admins. An
// address of no account records nothing.
func (s *Service) noteThrottled(ctx context.Context, canonical, legacy string) {
	if !s.throttled.due(canonical, s.clock()) {
		return
	}
	if u, err := s.userByEmail(ctx, canonical, legacy); err == nil {
		s.recordFailure(ctx, u, "rate-limited")
	}
}
