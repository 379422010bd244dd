package loadgen

import (
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// How the pacer learns the refill rate over two answers: at most every
// boundEvery, over two answers at least boundSpan apart, remembering the
// answers of the last histSpan.
const (
	boundEvery = 250 * time.Millisecond
	boundSpan  = time.Second
	histSpan   = 5 * time.Second
)

// pacer keeps a run within the rate limit the server advertises on its
// answers. Errata's carry RateLimit-Limit (the size of the project's token
// bucket), RateLimit-Remaining (the whole tokens left once this request
// took its own) and RateLimit-Reset (the seconds, rounded up, until the
// bucket is full again); the refill rate itself is not sent. The pacer
// keeps a count of the bucket's tokens that is never above the server's,
// and a refill rate never above the server's, so that a request it lets
// through finds a token:
//   - an answer's Remaining, less every request that may have taken a
//     token since it was counted (those still out, and those answered
//     while this one was out), is the count from then on;
//   - the rate is the largest lower bound the answers prove: one answer
//     proves (Limit − Remaining − 1) / Reset; two answers a second or more
//     apart prove the tokens that must have come in between (the change
//     of Remaining plus the requests surely admitted in between) over the
//     longest time that can have passed.
//
// A request that finds the count under one token waits for the refill.
// Until an answer carries the headers (or if none ever does, as from a
// JSONL target), the pacer lets everything through.
type pacer struct {
	now func() time.Time

	mu      sync.Mutex
	known   bool
	limit   float64 // RateLimit-Limit
	rate    float64 // tokens a second, a lower bound; 0 while unknown
	tokens  float64 // the count at at; below 0 when requests wait for tokens
	at      time.Time
	fullAt  time.Time // when the last answer said the bucket would be full
	out     int       // requests let through and not answered yet
	answers int64     // answers so far, of every kind
	hist    []answered
	boundAt time.Time
	waits   int64
	waited  time.Duration
}

// answered is an answer that carried the headers.
type answered struct {
	sent, back time.Time
	remaining  float64
	took       bool // a 2xx: it surely took a token
}

// pass is a request on its way: when it was sent and how many answers
// had come back by then.
type pass struct {
	sent    time.Time
	answers int64
}

func newPacer() *pacer { return &pacer{now: time.Now} }

// reserve counts one request about to be sent and returns how long it
// must wait for a token first. Every reserve is followed by one observe,
// or by cancel when the request is not sent after all.
func (p *pacer) reserve() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.out++
	if !p.known {
		return 0
	}
	now := p.now()
	p.tokens, p.at = p.level(now)-1, now
	if p.tokens >= 0 {
		return 0
	}
	var wait time.Duration
	if p.rate > 0 {
		wait = time.Duration(-p.tokens / p.rate * float64(time.Second))
	} else {
		// No rate proven (a bucket of one token): a whole reset per
		// request waiting.
		wait = max(p.fullAt.Sub(now), time.Second) * time.Duration(math.Ceil(-p.tokens))
	}
	p.waits++
	p.waited += wait
	return wait
}

// send marks the request reserved last as sent now.
func (p *pacer) send() pass {
	p.mu.Lock()
	defer p.mu.Unlock()
	return pass{sent: p.now(), answers: p.answers}
}

// cancel gives back a reservation whose request was not sent.
func (p *pacer) cancel() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.out--
	if p.known {
		p.tokens++
	}
}

// level is the count at now: the last count plus the refill since,
// capped at the bucket's size.
func (p *pacer) level(now time.Time) float64 {
	return min(p.limit, p.tokens+p.rate*now.Sub(p.at).Seconds())
}

// observe takes the answer to the request sent with ps: h its headers (nil
// after a network error), ok whether it was a 2xx.
func (p *pacer) observe(ps pass, h http.Header, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.out--
	during := p.answers - ps.answers // answered while this one was out
	p.answers++
	limit, remaining, reset, has := rateHeaders(h)
	if !has {
		return
	}
	now := p.now()
	p.known, p.limit = true, limit
	if reset > 0 {
		p.rate = max(p.rate, (limit-remaining-1)/reset)
	}
	p.tokens, p.at = min(limit, remaining-float64(p.out)-float64(during)), now
	p.fullAt = now.Add(time.Duration(reset) * time.Second)
	p.learn(answered{sent: ps.sent, back: now, remaining: remaining, took: ok})
}

// learn keeps a and, now and then, the rate that a and an answer at
// least boundSpan older prove.
func (p *pacer) learn(a answered) {
	cut := 0
	for cut < len(p.hist) && a.back.Sub(p.hist[cut].back) > histSpan {
		cut++
	}
	p.hist = append(p.hist[cut:], a)
	if !a.took || a.back.Sub(p.boundAt) < boundEvery {
		return
	}
	p.boundAt = a.back
	first := -1
	for k := len(p.hist) - 2; k >= 0; k-- {
		if h := p.hist[k]; h.took && h.back.Before(a.sent.Add(-boundSpan)) {
			first = k
			break
		}
	}
	if first < 0 {
		return
	}
	a1 := p.hist[first]
	// Requests sent after a1 came back and back before a was sent were
	// admitted between the two: each took a token that came in between.
	var admitted float64
	for _, h := range p.hist[first+1 : len(p.hist)-1] {
		if h.took && h.sent.After(a1.back) && h.back.Before(a.sent) {
			admitted++
		}
	}
	// a1 had fewer than remaining+1 tokens after taking its own, a at
	// least remaining after taking its own, and the two were admitted
	// within a.back − a1.sent of each other.
	if bound := (a.remaining - a1.remaining + admitted) / a.back.Sub(a1.sent).Seconds(); bound > p.rate {
		p.rate = bound
	}
}

// rateHeaders reads RateLimit-Limit, -Remaining and -Reset; has is false
// unless all three are there and make sense.
func rateHeaders(h http.Header) (limit, remaining, reset float64, has bool) {
	if h == nil {
		return 0, 0, 0, false
	}
	var vals [3]float64
	for i, name := range [...]string{"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"} {
		n, err := strconv.ParseInt(h.Get(name), 10, 64)
		if err != nil || n < 0 {
			return 0, 0, 0, false
		}
		vals[i] = float64(n)
	}
	if vals[0] < 1 || vals[1] > vals[0] {
		return 0, 0, 0, false
	}
	return vals[0], vals[1], vals[2], true
}

// RateLimit is what the run learned of the server's rate limit and how it
// kept to it.
type RateLimit struct {
	// Paced is false with Config.IgnoreRateLimit.
	Paced bool `json:"paced"`
	// Limit is the last RateLimit-Limit seen (the bucket's size); 0 when
	// no answer carried the headers.
	Limit int64 `json:"limit"`
	// RatePerSecond is the refill rate the answers proved (a lower bound
	// of the server's): the pace kept once the bucket was empty.
	RatePerSecond float64 `json:"rate_per_second"`
	// Waits counts the requests held back for a token, WaitSeconds their
	// summed waits.
	Waits       int64   `json:"waits"`
	WaitSeconds float64 `json:"wait_seconds"`
}

// report is what p learned, for the run's report.
func (p *pacer) report() RateLimit {
	if p == nil {
		return RateLimit{}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return RateLimit{Paced: true, Limit: int64(p.limit), RatePerSecond: p.rate, Waits: p.waits, WaitSeconds: p.waited.Seconds()}
}
