// Package ratelimit keeps one token bucket per key (a caller, a project, an
// email address) and writes the RateLimit-* headers that every answer
// carries: RateLimit-Limit (the bucket size), RateLimit-Remaining (whole
// tokens left) and RateLimit-Reset (seconds until the bucket is full again).
package ratelimit

import (
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Limiter is a set of token buckets, one per key, all with the same rate.
type Limiter struct {
	rate  rate.Limit
	burst int
	now   func() time.Time
	// baseRate and baseBurst are the limit of the whole installation;
	// rate and burst this process's share of it (see Share).
	baseRate  rate.Limit
	baseBurst int

	mu      sync.Mutex
	buckets map[string]*rate.Limiter
	inserts int

	// held counts each key's reservations not yet settled, and settled
	// wakes the callers of Reserve waiting for one of them (reserve.go).
	heldMu  sync.Mutex
	held    map[string]int
	settled map[string]chan struct{}
}

// New returns a Limiter refilling perSecond tokens a second up to burst.
func New(perSecond float64, burst int) *Limiter {
	return &Limiter{rate: rate.Limit(perSecond), burst: burst, baseRate: rate.Limit(perSecond), baseBurst: burst, now: time.Now, buckets: map[string]*rate.Limiter{}}
}

// Share makes this limiter enforce a 1/n share of its limit, rate and
// burst: when n processes each take an even share of the traffic, they
// enforce the limit together. Buckets keep their tokens, capped at the new
// burst.
func (l *Limiter) Share(n int) {
	n = max(n, 1)
	r, b := l.baseRate/rate.Limit(n), max(1, (l.baseBurst+n-1)/n)
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	if r == l.rate && b == l.burst {
		return
	}
	l.rate, l.burst = r, b
	for _, bucket := range l.buckets {
		bucket.SetLimitAt(now, r)
		bucket.SetBurstAt(now, b)
	}
}

// WithClock replaces the clock, for tests.
func (l *Limiter) WithClock(now func() time.Time) *Limiter { l.now = now; return l }

// Result is the state of one key's bucket after a call.
type Result struct {
	Allowed    bool
	Limit      int
	Remaining  int
	Reset      time.Duration
	RetryAfter time.Duration
}

// Allow takes one token from key's bucket if there is one.
func (l *Limiter) Allow(key string) Result { return l.take(key, 1) }

// AllowN takes n tokens from key's bucket if it has them. An n larger
// than the bucket's burst can never be held at once: it passes when the
// bucket is full and leaves the bucket in debt for the rest, so that the
// requests after it wait until the whole n is paid (a large request costs
// what its size says however small the burst).
func (l *Limiter) AllowN(key string, n int) Result {
	n = max(1, n)
	now := l.now()
	b := l.bucket(key, now)
	burst := b.Burst()
	if n <= burst {
		return takeFrom(b, now, n)
	}
	full := b.TokensAt(now) >= float64(burst)
	if full {
		// Reservations of at most the burst each: the first is the full
		// bucket's, the others run its tokens below zero. They are kept,
		// never waited for nor cancelled: that is the debt.
		for left := n; left > 0; left -= burst {
			b.ReserveN(now, min(left, burst))
		}
	}
	res := takeFrom(b, now, 0) // the bucket as it is now, nothing taken
	res.Allowed, res.RetryAfter = full, 0
	if !full { // refused until the bucket is full
		res.RetryAfter = after(b.Limit(), float64(burst)-b.TokensAt(now))
	}
	return res
}

// Peek reports key's bucket without taking a token; Allowed says whether a
// token is there to take.
func (l *Limiter) Peek(key string) Result { return l.take(key, 0) }

func (l *Limiter) bucket(key string, now time.Time) *rate.Limiter {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets[key]
	if !ok {
		b = rate.NewLimiter(l.rate, l.burst)
		b.SetLimitAt(now, l.rate) // a new bucket starts full at now
		l.buckets[key] = b
		l.inserts++
		if l.inserts%1024 == 0 {
			l.sweep(now)
		}
	}
	return b
}

func (l *Limiter) take(key string, n int) Result {
	now := l.now()
	return takeFrom(l.bucket(key, now), now, n)
}

// takeFrom takes n tokens (at most the burst) from bucket b at now if it
// has them, and reports it.
func takeFrom(b *rate.Limiter, now time.Time, n int) Result {
	n = min(n, b.Burst())
	need := float64(max(n, 1))
	allowed := b.TokensAt(now) >= need
	if allowed && n > 0 {
		allowed = b.AllowN(now, n)
	}
	tokens := b.TokensAt(now)
	r, burst := b.Limit(), b.Burst() // the bucket's own: Share may change the limiter's
	res := Result{Allowed: allowed, Limit: burst, Remaining: max(0, int(math.Floor(tokens)))}
	res.Reset = after(r, float64(burst)-tokens)
	if !allowed {
		res.RetryAfter = after(r, need-tokens)
	}
	return res
}

// after is how long rate r takes to refill tokens.
func after(r rate.Limit, tokens float64) time.Duration {
	if tokens <= 0 {
		return 0
	}
	return time.Duration(tokens / float64(r) * float64(time.Second))
}

// sweep forgets full buckets: a new bucket starts full, so nothing is lost.
func (l *Limiter) sweep(now time.Time) {
	for k, b := range l.buckets {
		if b.TokensAt(now) >= float64(l.burst) {
			delete(l.buckets, k)
		}
	}
}

// SetHeaders writes the RateLimit-* headers of r, and Retry-After when r was
// refused.
func (r Result) SetHeaders(h http.Header) {
	h.Set("RateLimit-Limit", strconv.Itoa(r.Limit))
	h.Set("RateLimit-Remaining", strconv.Itoa(r.Remaining))
	h.Set("RateLimit-Reset", strconv.Itoa(ceilSeconds(r.Reset)))
	if !r.Allowed {
		h.Set("Retry-After", strconv.Itoa(max(1, ceilSeconds(r.RetryAfter))))
	}
}

func ceilSeconds(d time.Duration) int {
	return int((d + time.Second - 1) / time.Second)
}
