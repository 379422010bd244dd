package loadgen

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestRunJSONL(t *testing.T) {
	t.Parallel()
	tg, srv := newTarget(t, "", func(n int) int {
		if n == 2 {
			return 429
		}
		return 0
	})
	var w waits
	h := http.Header{}
	h.Set("X-Scope-OrgID", "tenant-1")
	c := Config{Target: TargetJSONL, URL: srv.URL + "/loki/api/v1/push", Key: "svc_live_secret", Header: h,
		ContentType: "application/json", Gzip: true, Concurrency: 2, Batches: 3, MaxRetries: 3, sleep: w.sleep}
	g := smallGenerator(t, 25)
	rep, err := Run(context.Background(), c, g)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if rep.EventsAccepted != 75 || rep.Refusals.Status429 != 1 || rep.Retries != 1 {
		t.Errorf("report %+v, want 75 events accepted after one 429", rep)
	}
	for _, hd := range tg.headers {
		if hd.Get("Authorization") != "" {
			t.Errorf("the API key went to a JSONL target: %q", hd.Get("Authorization"))
		}
		if hd.Get("X-Scope-OrgID") != "tenant-1" || hd.Get("Content-Type") != "application/json" || hd.Get("Content-Encoding") != "gzip" {
			t.Errorf("headers %v", hd)
		}
	}

	// The lines must be the very events of the errata batches, with the
	// batch's service, environment and release merged in.
	var want []string
	var size int
	for i := range 3 {
		b := g.Batch(i)
		var batch struct {
			Service, Environment, Release string
			Events                        []map[string]any
		}
		if err := json.Unmarshal(encoded(g, i), &batch); err != nil {
			t.Fatal(err)
		}
		for _, ev := range batch.Events {
			ev["service"], ev["environment"], ev["release"] = batch.Service, batch.Environment, batch.Release
			delete(ev, "timestamp") // stamped when sent: TestRunStampsSendTime checks them
			line, _ := json.Marshal(ev)
			want = append(want, string(line))
		}
		_, s := EncodeJSONL(nil, &b)
		size += s
	}
	var got []string
	for _, body := range tg.bodies {
		if !bytes.HasSuffix(body, []byte("\n")) {
			t.Error("body does not end with a newline")
		}
		for line := range strings.SplitSeq(strings.TrimSuffix(string(body), "\n"), "\n") {
			var ev map[string]any
			if err := json.Unmarshal([]byte(line), &ev); err != nil {
				t.Fatalf("line %q: %v", line, err)
			}
			if ev["service"] == "" || ev["message"] == "" || ev["level"] == nil || ev["timestamp"] == nil {
				t.Errorf("line lacks service, message, level or timestamp: %s", line)
			}
			delete(ev, "timestamp")
			norm, _ := json.Marshal(ev)
			got = append(got, string(norm))
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %d lines, want the %d events of batches 0-2", len(got), len(want))
	}
	if wantMean := float64(size) / 75; rep.MeanEventBytes != wantMean {
		t.Errorf("mean event = %v bytes, want the mean line %v", rep.MeanEventBytes, wantMean)
	}
}

func TestConfigValidate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		c    Config
		want string // part of the error; "" for none
	}{
		{"defaults", Config{Key: "k", Concurrency: 1, Duration: time.Second}, ""},
		{"no key", Config{Concurrency: 1, Duration: time.Second}, "--key"},
		{"jsonl without url", Config{Target: TargetJSONL, Concurrency: 1, Batches: 1}, "--url"},
		{"jsonl drain", Config{Target: TargetJSONL, URL: "http://127.0.0.1:1/x", Concurrency: 1, Batches: 1, WaitDrain: true}, "--wait-drain"},
		{"bad url", Config{Key: "k", URL: "ftp://x", Concurrency: 1, Batches: 1}, "--url"},
		{"unbounded", Config{Key: "k", Concurrency: 1}, "--duration"},
		{"no workers", Config{Key: "k", Batches: 1}, "--concurrency"},
		{"bad target", Config{Target: "kafka", Key: "k", Concurrency: 1, Batches: 1}, "--target"},
	} {
		err := tc.c.Validate()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want one naming %s", tc.name, err, tc.want)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		h    string
		want time.Duration
	}{
		{"", time.Second},
		{"0", 0},
		{"7", 7 * time.Second},
		{"soon", time.Second},
		{now.Add(5 * time.Second).Format(http.TimeFormat), 5 * time.Second},
		{now.Add(-time.Hour).Format(http.TimeFormat), 0},
	} {
		if got := retryAfter(tc.h, now); got != tc.want {
			t.Errorf("retryAfter(%q) = %s, want %s", tc.h, got, tc.want)
		}
	}
}

func TestParseGauge(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text string
		want float64
		ok   bool
	}{
		{"# TYPE errata_ingest_backlog_events gauge\nerrata_ingest_backlog_events 1234\n", 1234, true},
		{"errata_ingest_backlog_events_total 5\nerrata_ingest_backlog_events 0\n", 0, true},
		{"errata_ingest_backlog_events{role=\"a\"} 3\nerrata_ingest_backlog_events{role=\"b\"} 4.5e1 1700000000\n", 48, true},
		{"errata_ingest_backlog_batches 3\n", 0, false},
		{"errata_ingest_backlog_events NaNx\n", 0, false},
	} {
		got, err := parseGauge(strings.NewReader(tc.text), BacklogMetric)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseGauge(%q) = %v, %v; want %v, ok=%v", tc.text, got, err, tc.want, tc.ok)
		}
	}
}

func TestPercentile(t *testing.T) {
	t.Parallel()
	var s []time.Duration
	for i := 1; i <= 200; i++ {
		s = append(s, time.Duration(i)*time.Millisecond)
	}
	for _, tc := range []struct {
		p    float64
		want time.Duration
	}{{50, 100 * time.Millisecond}, {99, 198 * time.Millisecond}, {99.9, 200 * time.Millisecond}, {99.5, 199 * time.Millisecond}, {100, 200 * time.Millisecond}, {0, time.Millisecond}} {
		if got := percentile(s, tc.p); got != tc.want {
			t.Errorf("percentile(1..200ms, %v) = %s, want %s", tc.p, got, tc.want)
		}
	}
	if got := percentile(nil, 50); got != 0 {
		t.Errorf("percentile(nil) = %s", got)
	}
}
