package loadgen

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// ResidentMetric is the Prometheus process collector's resident memory
// gauge, scraped from /metrics when the server's pid is not given.
const ResidentMetric = "process_resident_memory_bytes"

// probeTimeout bounds one /healthz probe: longer than any answer of a
// healthy server, short enough to see a stall as it happens.
const probeTimeout = 5 * time.Second

// reading is one look at the server during an attack.
type reading struct {
	at   time.Duration // since the watch started
	rss  int64         // bytes; -1 when unreadable
	held int           // the attack's connections still open; -1 if none
	fds  int           // the server's open file descriptors; -1 if unknown
}

// probe is one request the watch made to see whether the server still
// serves others during the attack.
type probe struct {
	latency time.Duration
	answer  string // the status code, or what failed
	ok      bool
}

// watch observes the server while an attack runs: it samples resident
// memory (and held connections), probes /healthz and, with a key, makes
// one-event ingest requests.
type watch struct {
	c      *AttackConfig
	held   func() int // nil for attacks that hold no connections
	client *http.Client
	begin  time.Time

	mu      sync.Mutex
	samples []reading
	health  []probe
	ingest  []probe
	otlp    []probe
	grpc    []probe
	sentry  []probe
	before  reading
	hwm     int64

	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func newWatch(c *AttackConfig, held func() int) *watch {
	return &watch{c: c, held: held, client: &http.Client{Timeout: probeTimeout,
		// Every probe dials anew, as a new client would: a server out of
		// connection slots or file descriptors fails the probe.
		Transport: &http.Transport{DisableKeepAlives: true}}}
}

// start takes the baseline reading and starts sampling and probing.
func (w *watch) start(ctx context.Context) {
	ctx, w.cancel = context.WithCancel(ctx)
	w.begin = time.Now()
	w.before = w.read(ctx)
	w.wg.Go(func() { w.every(ctx, w.c.SampleEvery, false, w.sample) })
	w.wg.Go(func() { w.every(ctx, w.c.ProbeEvery, true, w.probeHealth) })
	if w.c.Key != "" {
		body := probeBody()
		w.wg.Go(func() { w.every(ctx, time.Second, true, func(ctx context.Context) { w.probeIngest(ctx, body) }) })
		w.wg.Go(func() {
			w.every(ctx, time.Second, true, func(ctx context.Context) { w.probeTo(ctx, &w.otlp, "/v1/logs", []byte(otlpProbeBody)) })
		})
	}
	if probesGRPC(w.c) {
		msg := grpcProbeMessage()
		w.wg.Go(func() { w.every(ctx, time.Second, true, func(ctx context.Context) { w.probeGRPC(ctx, msg) }) })
	}
	if w.c.Key != "" && w.c.Number > 0 {
		path := sentryPath(w.c.Number) + "?sentry_key=" + url.QueryEscape(w.c.Key)
		w.wg.Go(func() {
			w.every(ctx, time.Second, true, func(ctx context.Context) { w.probeTo(ctx, &w.sentry, path, []byte(sentryProbeBody)) })
		})
	}
}

// stop ends sampling and probing, waits for the probes in flight and
// reads the server's peak resident memory.
func (w *watch) stop() {
	w.cancel()
	w.wg.Wait()
	if w.c.ServerPID > 0 {
		if st, err := procStatus(w.c.ServerPID); err == nil {
			w.hwm = st["VmHWM"]
		}
	}
}

// every runs fn every d until ctx ends; async runs each call in its own
// goroutine, so that a stalled probe does not delay the next.
func (w *watch) every(ctx context.Context, d time.Duration, async bool, fn func(context.Context)) {
	t := time.NewTicker(d)
	defer t.Stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if async {
			wg.Go(func() { fn(context.WithoutCancel(ctx)) })
		} else {
			fn(ctx)
		}
	}
}

func (w *watch) sample(ctx context.Context) {
	s := w.read(ctx)
	w.mu.Lock()
	w.samples = append(w.samples, s)
	w.mu.Unlock()
}

// read takes one sample now.
func (w *watch) read(ctx context.Context) reading {
	s := reading{at: time.Since(w.begin), rss: -1, held: -1, fds: -1}
	if w.held != nil {
		s.held = w.held()
	}
	if pid := w.c.ServerPID; pid > 0 {
		if st, err := procStatus(pid); err == nil {
			s.rss = st["VmRSS"]
		}
		if fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid)); err == nil {
			s.fds = len(fds)
		}
		return s
	}
	if v, err := scrape(ctx, w.client, joinURL(w.c.URL, "/metrics"), ResidentMetric); err == nil {
		s.rss = int64(v)
	}
	return s
}

func (w *watch) probeHealth(ctx context.Context) {
	p := w.do(ctx, http.MethodGet, "/healthz", nil)
	w.mu.Lock()
	w.health = append(w.health, p)
	w.mu.Unlock()
}

func (w *watch) probeIngest(ctx context.Context, body []byte) {
	p := w.do(ctx, http.MethodPost, "/v1/ingest", body)
	w.mu.Lock()
	w.ingest = append(w.ingest, p)
	w.mu.Unlock()
}

// otlpProbeBody is a one-record OTLP/HTTP JSON export; sentryProbeBody a
// one-event envelope.
const (
	otlpProbeBody   = `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"severityText":"ERROR","body":{"stringValue":"loadgen probe"}}]}]}]}`
	sentryProbeBody = "{}\n{\"type\":\"event\"}\n{\"level\":\"error\",\"message\":\"loadgen probe\"}\n"
)

// probeTo posts body to path and records the answer in *into.
func (w *watch) probeTo(ctx context.Context, into *[]probe, path string, body []byte) {
	p := w.do(ctx, http.MethodPost, path, body)
	w.mu.Lock()
	*into = append(*into, p)
	w.mu.Unlock()
}

// do makes one probe request; a 2xx answer is ok.
func (w *watch) do(ctx context.Context, method, path string, body []byte) probe {
	req, err := http.NewRequestWithContext(ctx, method, joinURL(w.c.URL, path), bytes.NewReader(body))
	if err != nil {
		return probe{answer: "bad request"}
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+w.c.Key)
	}
	t0 := time.Now()
	resp, err := w.client.Do(req)
	if err != nil {
		return probe{latency: time.Since(t0), answer: netError(err)}
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	return probe{latency: time.Since(t0), answer: strconv.Itoa(resp.StatusCode), ok: resp.StatusCode/100 == 2}
}

// probeBody is a one-event POST /v1/ingest body.
func probeBody() []byte {
	o := DefaultOptions()
	o.BatchSize, o.Services, o.Templates, o.StackRatio = 1, 1, 1, 0
	g, err := NewGenerator(o)
	if err != nil {
		panic(err) // the options above are valid
	}
	b := g.Batch(0)
	body, _ := EncodeBatch(nil, &b)
	return body
}

// netError names a failed round trip briefly, for the report.
func netError(err error) string {
	var ne interface{ Timeout() bool }
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		return "timeout"
	case errors.Is(err, io.EOF) || strings.Contains(err.Error(), "connection reset"):
		return "connection closed"
	case strings.Contains(err.Error(), "connection refused"):
		return "connection refused"
	default:
		return "network error"
	}
}

// procStatus reads the kB fields of /proc/<pid>/status, in bytes.
func procStatus(pid int) (map[string]int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]int64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		f := strings.Fields(rest)
		if !ok || len(f) != 2 || f[1] != "kB" {
			continue
		}
		if n, err := strconv.ParseInt(f[0], 10, 64); err == nil {
			out[name] = n << 10
		}
	}
	if _, ok := out["VmRSS"]; !ok {
		return nil, fmt.Errorf("loadgen: no VmRSS in /proc/%d/status", pid)
	}
	return out, sc.Err()
}
