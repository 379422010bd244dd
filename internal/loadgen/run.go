package loadgen

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// The targets a run can send to.
const (
	// TargetErrata posts batches to <URL>/v1/ingest with the project key.
	TargetErrata = "errata"
	// TargetJSONL posts the same events as newline-delimited JSON to URL.
	TargetJSONL = "jsonl"
	// TargetSentry posts Sentry envelopes, one event each as SDKs send
	// them, to <DSN's base>/api/<number>/envelope/ with the DSN's key.
	TargetSentry = "sentry"
)

// How the sentry target sends its key.
const (
	SentryAuthHeader = "header" // X-Sentry-Auth, as sentry-go and server SDKs
	SentryAuthQuery  = "query"  // ?sentry_key=, as the JavaScript SDKs
)

// Config says where to send load, how hard and for how long.
type Config struct {
	Target string // TargetErrata, TargetJSONL or TargetSentry
	// URL is the base URL of Errata, or the full URL of a JSONL endpoint.
	URL string
	// Key is the project API key, sent as a Bearer token to Errata only:
	// it is never sent to a JSONL target (use Header for those).
	Key string
	// DSN is the Sentry DSN of the sentry target (from key creation):
	// it gives URL, Key and the project number. SentryAuth says where the
	// key goes (SentryAuthHeader, the default, or SentryAuthQuery).
	DSN         string
	SentryAuth  string
	Header      http.Header // extra request headers
	ContentType string      // JSONL only; default application/x-ndjson
	Gzip        bool
	Concurrency int
	// Duration bounds the run when Batches is 0; with Batches set the run
	// stops after that many batches instead.
	Duration time.Duration
	Batches  int
	Rate     float64 // batches per second, 0 for unlimited
	// Distinct, when positive, generates and encodes only that many batches
	// up front and sends them in turn, so that the generator's CPU does not
	// compete with the server's when both run on one machine.
	Distinct int
	// Timeout bounds each request; MaxRetries the resends of one refused
	// batch. Both keep a run bounded against a stuck or refusing target.
	Timeout    time.Duration
	MaxRetries int
	// IgnoreRateLimit sends without keeping to the rate limit the
	// server's RateLimit-* headers advertise (for a server whose limit
	// was raised for a benchmark); 429 answers are still resent after
	// their Retry-After.
	IgnoreRateLimit bool
	// WaitDrain polls <URL>/metrics after sending until the ingest backlog
	// is empty or DrainTimeout passes; DrainPoll is the polling interval.
	WaitDrain    bool
	DrainTimeout time.Duration
	DrainPoll    time.Duration
	// Token (a session token of a member of Project) turns on the count
	// check: the project's counts are read before the run and after the
	// drain, and what the run added must be the events accepted. It
	// implies WaitDrain.
	Token   string
	Project string
	// Readers, when positive, read the project's group list and INFO
	// summaries (first pages) every ReadEvery (default 1s) from the start
	// of the run to its end, count check included, each reporting its own
	// latency: a dashboard open during the load. They sign in with
	// ReaderToken, else Token, as a member of Project.
	Readers     int
	ReaderToken string
	ReadEvery   time.Duration
	// Preset names the preset the settings came from, for the report.
	Preset string
	Client *http.Client // default: a client with Timeout

	sentryEndpoint string // the sentry target's envelope URL, from the DSN

	// sleep waits d or until ctx ends; tests replace it to record the
	// waits that Retry-After asks for without spending them.
	sleep func(ctx context.Context, d time.Duration) error
}

// Validate checks c and fills in its defaults.
func (c *Config) Validate() error {
	switch c.Target {
	case "", TargetErrata:
		c.Target = TargetErrata
		if c.URL == "" {
			c.URL = "http://127.0.0.1:8080"
		}
		if c.Key == "" {
			return errors.New("--key is required with --target errata")
		}
	case TargetJSONL:
		if c.URL == "" {
			return errors.New("--url is required with --target jsonl (the full URL to post to)")
		}
		if c.WaitDrain {
			return errors.New("--wait-drain works with --target errata only")
		}
		if c.ContentType == "" {
			c.ContentType = "application/x-ndjson"
		}
	case TargetSentry:
		if err := c.useDSN(); err != nil {
			return err
		}
	default:
		return fmt.Errorf("--target must be errata, jsonl or sentry, got %q", c.Target)
	}
	switch {
	case c.Readers < 0:
		return fmt.Errorf("--readers must not be negative, got %d", c.Readers)
	case c.Readers > 0 && (c.Project == "" || c.readToken() == ""):
		return errors.New("--readers needs --project and a session token of a member (--reader-token or --token)")
	case c.Readers > 0 && c.Target == TargetJSONL:
		return errors.New("--readers works with --target errata or sentry only")
	case c.Token != "" && c.Project == "", c.Project != "" && c.Token == "" && c.Readers == 0:
		return errors.New("--token and --project go together: the count check reads the project with the token")
	case c.Token != "" && c.Target == TargetJSONL:
		return errors.New("--token works with --target errata or sentry only")
	case c.Token != "":
		c.WaitDrain = true
	}
	u, err := url.Parse(c.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("--url must be an http:// or https:// URL, got %q", c.URL)
	}
	switch {
	case c.Concurrency < 1:
		return fmt.Errorf("--concurrency must be at least 1, got %d", c.Concurrency)
	case c.Batches < 0:
		return fmt.Errorf("--batches must not be negative, got %d", c.Batches)
	case c.Batches == 0 && c.Duration <= 0:
		return errors.New("--duration must be positive when --batches is not set")
	case c.Rate < 0:
		return fmt.Errorf("--rate must not be negative, got %g", c.Rate)
	}
	if c.Timeout <= 0 {
		c.Timeout = 30 * time.Second
	}
	if c.MaxRetries < 0 {
		c.MaxRetries = 0
	}
	if c.DrainTimeout <= 0 {
		c.DrainTimeout = 5 * time.Minute
	}
	if c.ReadEvery <= 0 {
		c.ReadEvery = time.Second
	}
	if c.DrainPoll <= 0 {
		c.DrainPoll = 250 * time.Millisecond
	}
	if c.Client == nil {
		c.Client = &http.Client{Timeout: c.Timeout, Transport: &http.Transport{
			Proxy: http.ProxyFromEnvironment, MaxIdleConnsPerHost: c.Concurrency,
		}}
	}
	if c.sleep == nil {
		c.sleep = sleep
	}
	return nil
}

// Run sends batches from g as c says and reports what happened. It stops by
// itself after c.Duration or c.Batches batches, or earlier when ctx ends or
// the target refuses the credentials or the URL (401, 403, 404): the report
// is returned with the error then.
func Run(ctx context.Context, c Config, g *Generator) (*Report, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	endpoint := c.URL
	switch c.Target {
	case TargetErrata:
		endpoint = joinURL(c.URL, "/v1/ingest")
	case TargetSentry:
		endpoint = c.sentryEndpoint
	}
	// dispatch ends at the deadline: no new batch and no more retry waits
	// after it; requests in flight finish (bounded by c.Timeout).
	dispatch, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if c.Batches == 0 {
		var stop context.CancelFunc
		dispatch, stop = context.WithTimeout(dispatch, c.Duration)
		defer stop()
	}
	var lim *rate.Limiter
	if c.Rate > 0 {
		lim = rate.NewLimiter(rate.Limit(c.Rate), 1)
	}

	var pre *prebuilt
	if c.Distinct > 0 {
		pre = prebuild(&c, g, c.Distinct)
	}
	var pace *pacer
	if !c.IgnoreRateLimit {
		pace = newPacer()
	}
	var before *Counts
	if c.Token != "" {
		n, err := readCounts(ctx, &c)
		if err != nil {
			return nil, err
		}
		before = &n
	}
	rd := startReaders(ctx, &c)
	start := time.Now()
	stats := send(ctx, dispatch, cancel, lim, &c, sender{c: &c, g: g, endpoint: endpoint, pre: pre, pace: pace})
	end := time.Now()

	rep := newReport(&c, g, stats, end.Sub(start))
	rep.RateLimit = pace.report()
	err := context.Cause(dispatch)
	if errors.Is(err, context.DeadlineExceeded) {
		err = nil // the duration ran out: the normal end
	}
	if err == nil && c.WaitDrain && rep.EventsAccepted > 0 {
		d, derr := waitDrain(ctx, &c, start, rep.EventsAccepted)
		rep.Drain = d
		err = derr
	}
	if err == nil && before != nil {
		rep.Counts, err = checkCounts(ctx, &c, *before, rep.EventsAccepted)
	}
	rep.Readers = rd.finish()
	return rep, err
}

// send dispatches the batch numbers (all of c.Batches, or until dispatch
// ends, at most lim's rate) to c.Concurrency senders made from proto, and
// returns their statistics once every one is done.
func send(ctx, dispatch context.Context, fail context.CancelCauseFunc, lim *rate.Limiter, c *Config, proto sender) []*workerStats {
	next := make(chan int)
	go func() {
		defer close(next)
		for i := 0; c.Batches == 0 || i < c.Batches; i++ {
			if lim != nil && lim.Wait(dispatch) != nil {
				return
			}
			select {
			case next <- i:
			case <-dispatch.Done():
				return
			}
		}
	}()
	stats := make([]*workerStats, c.Concurrency)
	var wg sync.WaitGroup
	for w := range stats {
		st := newWorkerStats()
		stats[w] = st
		wg.Go(func() {
			s := proto
			s.st, s.ctx, s.dispatch, s.fail = st, ctx, dispatch, fail
			for i := range next {
				s.batch(i)
			}
		})
	}
	wg.Wait()
	return stats
}

func joinURL(base, path string) string {
	for len(base) > 0 && base[len(base)-1] == '/' {
		base = base[:len(base)-1]
	}
	return base + path
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
