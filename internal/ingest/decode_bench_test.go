package ingest

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"
)

// benchBatch builds a batch of n realistic events, about 540 bytes each on
// average: mixed levels, about 30% with a multi-line stack trace, a few
// attributes, trace ids on most.
func benchBatch(tb testing.TB, n int) []byte {
	tb.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	levels := []string{"info", "info", "info", "debug", "warn", "error", "ERROR", "fatal", "warning"}
	messages := []string{
		`GET /api/v1/orders/%d responded 200 in %dms`,
		`user %d signed in from 203.0.113.%d`,
		`payment %d declined: card_declined (insufficient funds), retry %d`,
		`cache miss for key "session:%d", falling back to database (shard %d)`,
		`failed to connect to upstream inventory-service:%d after %d attempts: dial tcp: i/o timeout`,
	}
	type event struct {
		Level      string         `json:"level"`
		Message    string         `json:"message"`
		Timestamp  string         `json:"timestamp"`
		StackTrace string         `json:"stack_trace,omitempty"`
		TraceID    string         `json:"trace_id,omitempty"`
		SpanID     string         `json:"span_id,omitempty"`
		Attributes map[string]any `json:"attributes"`
	}
	events := make([]event, n)
	base := time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)
	for i := range events {
		ev := event{
			Level:     levels[r.IntN(len(levels))],
			Message:   fmt.Sprintf(messages[r.IntN(len(messages))], r.IntN(100000), r.IntN(250)),
			Timestamp: base.Add(time.Duration(i) * 137 * time.Millisecond).Format("2006-01-02T15:04:05.000Z07:00"),
			Attributes: map[string]any{
				"http.method": "POST", "http.route": "/api/v1/orders/{id}", "user_id": r.IntN(1e6),
				"region": "eu-west-1", "retry": r.IntN(4) == 0, "logger": "app.checkout.payments",
				"host":       fmt.Sprintf("checkout-api-7d9f8b6c5-%05x", r.IntN(1<<20)),
				"request_id": fmt.Sprintf("%016x%016x", r.Uint64(), r.Uint64()),
			},
		}
		if r.IntN(10) < 8 {
			ev.TraceID = fmt.Sprintf("%032x", r.Uint64())
			ev.SpanID = fmt.Sprintf("%016x", r.Uint64())
		}
		if r.IntN(10) < 3 {
			ev.StackTrace = fmt.Sprintf("Traceback (most recent call last):\n"+
				"  File \"/srv/app/handlers/orders.py\", line %d, in create_order\n    result = charge(order)\n"+
				"  File \"/srv/app/billing/charge.py\", line %d, in charge\n    return gateway.submit(payload)\n"+
				"  File \"/srv/app/billing/gateway.py\", line %d, in submit\n    raise GatewayError(resp.status)\n"+
				"billing.gateway.GatewayError: upstream answered 502",
				r.IntN(300), r.IntN(300), r.IntN(300))
		}
		events[i] = ev
	}
	body, err := json.Marshal(map[string]any{
		"service": "checkout-api", "environment": "production", "release": "2024.05.01-3f2a9c1", "events": events,
	})
	if err != nil {
		tb.Fatal(err)
	}
	return body
}

// BenchmarkDecode decodes 1,000-event batches. Compare runs with benchstat
// (go test -run '^$' -bench Decode -count 10).
func BenchmarkDecode(b *testing.B) {
	for _, n := range []int{MaxEvents} {
		body := benchBatch(b, n)
		received := time.Now()
		b.Run(fmt.Sprintf("events=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			batches := 0
			for b.Loop() {
				if _, err := Decode(body, received); err != nil {
					b.Fatal(err)
				}
				batches++
			}
			runtime.ReadMemStats(&after)
			events := float64(batches * n)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/events, "ns/event")
			b.ReportMetric(float64(after.Mallocs-before.Mallocs)/events, "allocs/event")
			b.ReportMetric(float64(len(body))/float64(n), "B/event")
		})
	}
}

// BenchmarkDecodeStdlib is the baseline Decode replaces: encoding/json into
// typed structs, with no validation at all.
func BenchmarkDecodeStdlib(b *testing.B) {
	body := benchBatch(b, MaxEvents)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		var v struct {
			Service string
			Events  []struct {
				Level, Message, Timestamp, StackTrace, TraceID, SpanID string
				Attributes                                             json.RawMessage
			}
		}
		if err := json.Unmarshal(body, &v); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*MaxEvents), "ns/event")
}

// BenchmarkRedact redacts a small attributes object with one secret.
func BenchmarkRedact(b *testing.B) {
	attrs := json.RawMessage(`{"http.method":"POST","user_id":42,"headers":{"Authorization":"Bearer abc","Accept":"*/*"}}`)
	b.ReportAllocs()
	for b.Loop() {
		if out := Redact(attrs); strings.Contains(string(out), "Bearer") {
			b.Fatal("not redacted")
		}
	}
}
