package loadgen

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// target stands in for the system under load: a real HTTP server on
// loopback that checks each request and records what it saw. answer picks
// the status of request n (counting from 1); 0 means 202.
type target struct {
	t      *testing.T
	key    string
	answer func(n int) int
	after  string // Retry-After on 429 and 503

	mu       sync.Mutex
	requests int
	wire     int64                  // body bytes as received
	accepted map[[32]byte]int       // decoded bodies answered 2xx
	refused  map[[32]byte]bool      // decoded bodies answered 429/503
	status   map[int]int            // answers other than 2xx
	headers  []http.Header          // of every request
	bodies   [][]byte               // decoded bodies answered 2xx
	received []time.Time            // when each of bodies arrived
	delay    time.Duration          // before each ingest answer
	backlog  func(poll int) float64 // GET /metrics; nil for 404
	polls    int
	api      http.Handler // GET /v1/projects/…; nil for 404
}

func newTarget(t *testing.T, key string, answer func(n int) int) (*target, *httptest.Server) {
	tg := &target{t: t, key: key, answer: answer, after: "1",
		accepted: map[[32]byte]int{}, refused: map[[32]byte]bool{}, status: map[int]int{}}
	srv := httptest.NewServer(tg)
	t.Cleanup(srv.Close)
	return tg, srv
}

func (tg *target) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && r.URL.Path == "/metrics" {
		tg.mu.Lock()
		tg.polls++
		poll := tg.polls
		tg.mu.Unlock()
		if tg.backlog == nil {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintf(w, "# HELP %s x\n# TYPE %s gauge\n%s_total 99\n%s %g\n", BacklogMetric, BacklogMetric, BacklogMetric, BacklogMetric, tg.backlog(poll))
		return
	}
	if r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/v1/projects/") {
		if tg.api == nil {
			http.NotFound(w, r)
			return
		}
		tg.api.ServeHTTP(w, r)
		return
	}
	raw, err := io.ReadAll(r.Body)
	if err != nil {
		tg.t.Errorf("read body: %v", err)
		return
	}
	received := time.Now()
	time.Sleep(tg.delay)
	body := raw
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err == nil {
			body, err = io.ReadAll(zr)
		}
		if err != nil {
			tg.t.Errorf("gunzip: %v", err)
		}
	}
	tg.mu.Lock()
	tg.requests++
	n := tg.requests
	tg.wire += int64(len(raw))
	tg.headers = append(tg.headers, r.Header.Clone())
	tg.mu.Unlock()
	if tg.key != "" && r.Header.Get("Authorization") != "Bearer "+tg.key {
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	code := tg.answer(n)
	sum := sha256.Sum256(body)
	tg.mu.Lock()
	defer tg.mu.Unlock()
	switch code {
	case 0:
		tg.accepted[sum]++
		tg.bodies = append(tg.bodies, body)
		tg.received = append(tg.received, received)
		var b struct{ Events []json.RawMessage }
		_ = json.Unmarshal(body, &b)
		w.WriteHeader(http.StatusAccepted)
		fmt.Fprintf(w, `{"accepted":%d}`, len(b.Events))
	case 429, 503:
		tg.refused[sum] = true
		tg.status[code]++
		w.Header().Set("Retry-After", tg.after)
		w.WriteHeader(code)
	default:
		tg.status[code]++
		w.WriteHeader(code)
	}
}

// waits records the waits a run asks for instead of spending them.
type waits struct {
	mu sync.Mutex
	d  []time.Duration
}

func (w *waits) sleep(ctx context.Context, d time.Duration) error {
	w.mu.Lock()
	w.d = append(w.d, d)
	w.mu.Unlock()
	return ctx.Err()
}

func smallGenerator(t *testing.T, size int) *Generator {
	return newTestGenerator(t, func(o *Options) { o.BatchSize = size })
}

func TestRunRetriesAfter429(t *testing.T) {
	t.Parallel()
	for _, gz := range []bool{false, true} {
		t.Run(fmt.Sprintf("gzip=%v", gz), func(t *testing.T) {
			t.Parallel()
			every4th := func(n int) int {
				if n%4 == 0 {
					return 429
				}
				return 0
			}
			tg, srv := newTarget(t, "svc_live_test", every4th)
			var w waits
			c := Config{URL: srv.URL, Key: "svc_live_test", Gzip: gz, Concurrency: 3, Batches: 12, MaxRetries: 5, sleep: w.sleep}
			rep, err := Run(context.Background(), c, smallGenerator(t, 20))
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			tg.mu.Lock()
			defer tg.mu.Unlock()
			if rep.BatchesAccepted != 12 || rep.EventsAccepted != 240 || rep.EventsGenerated != 240 {
				t.Errorf("accepted %d batches, %d of %d events; want 12, 240 of 240",
					rep.BatchesAccepted, rep.EventsAccepted, rep.EventsGenerated)
			}
			if len(tg.accepted) != 12 {
				t.Errorf("target accepted %d distinct batches, want 12", len(tg.accepted))
			}
			if tg.status[429] == 0 || rep.Refusals.Status429 != int64(tg.status[429]) {
				t.Errorf("report counts %d 429s, target sent %d", rep.Refusals.Status429, tg.status[429])
			}
			if rep.Retries != rep.Refusals.Status429 || len(w.d) != int(rep.Retries) {
				t.Errorf("retries = %d, waits = %d, want one per 429 (%d)", rep.Retries, len(w.d), rep.Refusals.Status429)
			}
			for _, d := range w.d {
				if d != time.Second {
					t.Errorf("waited %s, want the Retry-After of 1s", d)
				}
			}
			for sum := range tg.refused {
				if tg.accepted[sum] == 0 {
					t.Error("a refused batch was never resent")
				}
			}
			for _, body := range tg.bodies {
				checkBatch(t, body)
			}
			if rep.BytesSent != tg.wire {
				t.Errorf("bytes sent = %d, target received %d", rep.BytesSent, tg.wire)
			}
			if gz != (rep.BytesSent < rep.BytesUncompressed) {
				t.Errorf("gzip %v: %d bytes sent of %d", gz, rep.BytesSent, rep.BytesUncompressed)
			}
			if rep.Latency.Samples != 12 || rep.Latency.Max < rep.Latency.P99 || rep.Latency.P99 < rep.Latency.P50 {
				t.Errorf("latency = %+v, want 12 ordered samples", rep.Latency)
			}
			if rep.MeanEventBytes <= 0 || rep.Abandoned != 0 || rep.Dropped != 0 {
				t.Errorf("mean event %v bytes, %d abandoned, %d dropped", rep.MeanEventBytes, rep.Abandoned, rep.Dropped)
			}
			for _, h := range tg.headers {
				if h.Get("Content-Type") != "application/json" || (h.Get("Content-Encoding") == "gzip") != gz {
					t.Errorf("headers %v", h)
				}
			}
			var batches, samples int64
			for _, snd := range rep.Senders {
				batches += snd.BatchesAccepted
				samples += int64(snd.Latency.Samples)
			}
			if len(rep.Senders) != 3 || batches != 12 || samples != 12 {
				t.Errorf("%d senders with %d batches and %d latency samples, want 3 with 12", len(rep.Senders), batches, samples)
			}
			var text bytes.Buffer
			if err := rep.WriteText(&text); err != nil {
				t.Fatal(err)
			}
			for _, line := range []string{"events_accepted          240\n", fmt.Sprintf("refused_429              %d\n", tg.status[429]), "mean_event_bytes",
				"sender_1 ", "sender_3 ", "rate_limit_paced         true\n", "note: the server refused"} {
				if !strings.Contains(text.String(), line) {
					t.Errorf("summary lacks %q:\n%s", line, text.String())
				}
			}
		})
	}
}

// TestRunWaitsRetryAfter spends one real Retry-After wait.
func TestRunWaitsRetryAfter(t *testing.T) {
	t.Parallel()
	tg, srv := newTarget(t, "k", func(n int) int {
		if n == 1 {
			return 503
		}
		return 0
	})
	rep, err := Run(context.Background(), Config{URL: srv.URL + "/", Key: "k", Concurrency: 1, Batches: 2, MaxRetries: 1}, smallGenerator(t, 5))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if rep.Refusals.Status503 != 1 || rep.Retries != 1 || rep.EventsAccepted != 10 || len(tg.accepted) != 2 {
		t.Errorf("report %+v, want one 503 resent and 10 events accepted", rep)
	}
	var text bytes.Buffer
	if err := rep.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "note: the server refused 1 requests as overloaded (503)") {
		t.Errorf("the summary does not explain the 503:\n%s", text.String())
	}
}

func TestRunOtherRefusals(t *testing.T) {
	t.Parallel()
	_, srv := newTarget(t, "k", func(n int) int {
		switch n {
		case 1:
			return 500
		case 2, 3:
			return 429
		}
		return 0
	})
	var w waits
	c := Config{URL: srv.URL, Key: "k", Concurrency: 1, Batches: 3, MaxRetries: 1, sleep: w.sleep}
	rep, err := Run(context.Background(), c, smallGenerator(t, 5))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	// Batch 0 dropped on 500; batch 1 refused twice and abandoned; batch 2 accepted.
	want := Refusals{Status429: 2, Other: 1, ByStatus: map[string]int64{"429": 2, "500": 1}}
	if fmt.Sprint(rep.Refusals) != fmt.Sprint(want) || rep.Dropped != 1 || rep.Abandoned != 1 || rep.BatchesAccepted != 1 {
		t.Errorf("refusals %+v dropped %d abandoned %d accepted %d; want %+v, 1, 1, 1",
			rep.Refusals, rep.Dropped, rep.Abandoned, rep.BatchesAccepted, want)
	}
}

func TestRunStopsOnBadKey(t *testing.T) {
	t.Parallel()
	_, srv := newTarget(t, "right", func(int) int { return 0 })
	rep, err := Run(context.Background(), Config{URL: srv.URL, Key: "wrong", Concurrency: 2, Batches: 1000}, smallGenerator(t, 5))
	if err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("Run error = %v, want a 401", err)
	}
	if rep == nil || rep.BatchesAccepted != 0 || rep.Refusals.ByStatus["401"] == 0 || rep.Refusals.ByStatus["401"] > 10 {
		t.Errorf("report %+v, want a few 401s and nothing accepted", rep)
	}
}

func TestRunStopsAfterDuration(t *testing.T) {
	t.Parallel()
	_, srv := newTarget(t, "k", func(int) int { return 0 })
	c := Config{URL: srv.URL, Key: "k", Concurrency: 2, Duration: 300 * time.Millisecond, Rate: 20}
	rep, err := Run(context.Background(), c, smallGenerator(t, 5))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if rep.BatchesAccepted == 0 || rep.EventsAccepted != 5*rep.BatchesAccepted {
		t.Errorf("accepted %d batches, %d events", rep.BatchesAccepted, rep.EventsAccepted)
	}
}

func TestRunWaitDrain(t *testing.T) {
	t.Parallel()
	tg, srv := newTarget(t, "k", func(int) int { return 0 })
	tg.backlog = func(poll int) float64 { return float64(max(0, 3-poll) * 100) }
	var w waits
	c := Config{URL: srv.URL, Key: "k", Concurrency: 2, Batches: 4, WaitDrain: true, sleep: w.sleep}
	rep, err := Run(context.Background(), c, smallGenerator(t, 10))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if d := rep.Drain; d == nil || !d.Drained || d.LastBacklog != 0 || d.EndToEndEventsPerSecond <= 0 || tg.polls != 3 {
		t.Errorf("drain %+v after %d polls, want drained on the third", d, tg.polls)
	}
	var out bytes.Buffer
	if err := rep.WriteJSON(&out); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(out.Bytes(), &back); err != nil || back.Drain == nil || back.EventsAccepted != 40 ||
		len(back.Senders) != 2 || back.Senders[0].BatchesAccepted+back.Senders[1].BatchesAccepted != 4 || !back.RateLimit.Paced {
		t.Errorf("JSON summary %s: %v", out.String(), err)
	}

	tg2, srv2 := newTarget(t, "k", func(int) int { return 0 }) // no /metrics
	c.URL = srv2.URL
	if _, err := Run(context.Background(), c, smallGenerator(t, 10)); err == nil {
		t.Errorf("Run against a target without /metrics: no error after %d polls", tg2.polls)
	}
}
