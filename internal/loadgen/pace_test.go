package loadgen

import (
	"container/heap"
	"fmt"
	"math/rand/v2"
	"net/http"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/ratelimit"
)

// simEvent is one step of a simulated run: a sender sends, the server
// admits (or refuses) the request, the answer comes back.
type simEvent struct {
	at     time.Time
	kind   int // simSend, simAdmit, simAnswer
	sender int
	pass   pass
	header http.Header
	ok     bool
	seq    int // keeps the order of events at the same time
}

const (
	simSend = iota
	simAdmit
	simAnswer
)

type simQueue []*simEvent

func (q simQueue) Len() int { return len(q) }
func (q simQueue) Less(i, j int) bool {
	if !q[i].at.Equal(q[j].at) {
		return q[i].at.Before(q[j].at)
	}
	return q[i].seq < q[j].seq
}
func (q simQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *simQueue) Push(x any)   { *q = append(*q, x.(*simEvent)) }
func (q *simQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

// simResult is what a simulated run saw.
type simResult struct {
	refused   int
	paced     RateLimit
	elapsed   time.Duration
	requests  int
	firstWait time.Time // when the pacer first held a request back
}

// simulate runs senders, each sending n/senders requests one at a time,
// against Errata's own rate limiter (the server's code, on a simulated
// clock), with round trips of 2 to 30 ms split evenly around the
// admission, so that answers come back out of order.
func simulate(perSecond float64, burst, senders, n int) simResult {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := start
	clock := func() time.Time { return now }
	lim := ratelimit.New(perSecond, burst).WithClock(clock)
	p := &pacer{now: clock}
	r := rand.New(rand.NewPCG(uint64(burst), uint64(senders)))
	var q simQueue
	seq := 0
	push := func(e *simEvent) { seq++; e.seq = seq; heap.Push(&q, e) }
	var res simResult
	left := n
	next := func(sender int) {
		if left == 0 {
			return
		}
		left--
		wait := p.reserve()
		if wait > 0 && res.firstWait.IsZero() {
			res.firstWait = now
		}
		push(&simEvent{at: now.Add(wait), kind: simSend, sender: sender})
	}
	for s := range senders {
		next(s)
	}
	rtt := map[int]time.Duration{}
	for q.Len() > 0 {
		e := heap.Pop(&q).(*simEvent)
		now = e.at
		switch e.kind {
		case simSend:
			ps := p.send()
			rtt[e.sender] = time.Duration(2+r.IntN(29)) * time.Millisecond
			push(&simEvent{at: now.Add(rtt[e.sender] / 2), kind: simAdmit, sender: e.sender, pass: ps})
		case simAdmit:
			got := lim.Allow("prj")
			h := http.Header{}
			got.SetHeaders(h)
			if !got.Allowed {
				res.refused++
			}
			push(&simEvent{at: now.Add(rtt[e.sender] - rtt[e.sender]/2), kind: simAnswer, sender: e.sender, pass: e.pass, header: h, ok: got.Allowed})
		case simAnswer:
			p.observe(e.pass, e.header, e.ok)
			res.requests++
			next(e.sender)
		}
	}
	res.elapsed = now.Sub(start)
	res.paced = p.report()
	return res
}

// TestPacerKeepsToTheLimit: against the server's own limiter, the pacer
// is never refused, and once the burst is spent it sends at nearly the
// limit's rate though the rate is never sent, only the bucket's state.
// With a bucket of fewer tokens than about two a sender, the answers
// cannot prove the whole rate: the pace stays under it (never over).
func TestPacerKeepsToTheLimit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		rate           float64
		burst, senders int
		n              int
		slow           bool // the bucket is too small to prove the rate
	}{
		{100, 200, 4, 2000, false},    // Errata's default ingest limit
		{100, 200, 16, 2000, false},   // more senders than a second's tokens
		{50, 10, 4, 600, false},       // a small bucket
		{150, 200, 8, 3000, false},    // a rate the one-answer bound misses
		{1000, 2000, 32, 8000, false}, // the Sentry default
		{5, 2, 1, 60, true},           // a bucket of two tokens
		{20, 10, 4, 200, false},       // a bucket of a few tokens a sender
	} {
		t.Run(fmt.Sprintf("rate=%v/burst=%d/senders=%d", tc.rate, tc.burst, tc.senders), func(t *testing.T) {
			t.Parallel()
			res := simulate(tc.rate, tc.burst, tc.senders, tc.n)
			if res.refused > 0 {
				t.Errorf("%d of %d requests refused, want none", res.refused, res.requests)
			}
			if res.paced.RatePerSecond > tc.rate+1e-9 {
				t.Errorf("rate proven %v/s, above the server's %v/s", res.paced.RatePerSecond, tc.rate)
			}
			// The fastest possible run spends the burst at once and then
			// sends at the rate; the pacer may take up to a fifth longer.
			ideal := time.Duration(float64(tc.n-tc.burst) / tc.rate * float64(time.Second))
			if !tc.slow && res.elapsed > ideal*6/5+time.Second {
				t.Errorf("took %s for %d requests, want about %s (rate proven %.1f/s, %d waits)", res.elapsed, tc.n, ideal, res.paced.RatePerSecond, res.paced.Waits)
			}
			t.Logf("%s for %d requests (ideal %s), rate proven %.2f/s, %d waits", res.elapsed, tc.n, ideal, res.paced.RatePerSecond, res.paced.Waits)
		})
	}
}

// TestPacerRaisedLimit: a server whose limit was raised for a benchmark
// never has a request held back.
func TestPacerRaisedLimit(t *testing.T) {
	t.Parallel()
	res := simulate(100000, 100000, 8, 20000)
	if res.refused > 0 || res.paced.Waits > 0 {
		t.Errorf("%d refused, %d held back; want none", res.refused, res.paced.Waits)
	}
}

func TestRateHeaders(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		limit, remaining, reset string
		ok                      bool
	}{
		{"200", "199", "1", true},
		{"200", "0", "2", true},
		{"", "0", "2", false},
		{"200", "201", "1", false},
		{"0", "0", "0", false},
		{"200", "-1", "1", false},
		{"200", "x", "1", false},
	} {
		h := http.Header{}
		for k, v := range map[string]string{"RateLimit-Limit": tc.limit, "RateLimit-Remaining": tc.remaining, "RateLimit-Reset": tc.reset} {
			if v != "" {
				h.Set(k, v)
			}
		}
		if _, _, _, ok := rateHeaders(h); ok != tc.ok {
			t.Errorf("rateHeaders(%v) ok = %v, want %v", h, ok, tc.ok)
		}
	}
}
