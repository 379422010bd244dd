package process

import (
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/loadgen"
)

// BenchmarkFacets is the per-event cost of the values an error event adds
// to its group's counts, for an event like the load generator's.
func BenchmarkFacets(b *testing.B) {
	e := ingest.Event{Service: "checkout", Environment: "production", Release: "1.4.2", Attributes: []byte(
		`{"region":"eu-west-1","host":"checkout-7f9c","logger":"app.payments","http.method":"POST","http.route":"/api/v1/orders/{id}",` +
			`"http.status_code":500,"request_id":"req_9f3e2a1b0bd69ad7","user_id":"usr_48213"}`)}
	var kvs []facetKV
	b.ReportAllocs()
	for b.Loop() {
		kvs, _, _ = facets(&e, kvs)
	}
}

// BenchmarkFacetTally is the per-event cost of counting the values of the
// load generator's error events in their group's tally (a part of 64
// events, then the tally recycled).
func BenchmarkFacetTally(b *testing.B) {
	g := generatedEvents(b, 64)
	kvss := make([][]facetKV, len(g))
	for i := range g {
		kvss[i], _, _ = facets(&g[i], nil)
	}
	m := &memos{}
	b.ReportAllocs()
	for b.Loop() {
		t := m.facetTally()
		for _, kvs := range kvss {
			t.add(kvs)
		}
		t.reset()
		m.facetTallies.Put(t)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(kvss)), "ns/event")
}

// generatedEvents returns n error events of the load generator's most
// frequent template, as one group of a part sees them.
func generatedEvents(b *testing.B, n int) []ingest.Event {
	g, err := loadgen.NewGenerator(loadgen.DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	var out []ingest.Event
	template := -1
	for i := 0; len(out) < n && i < 1000; i++ {
		batch := g.Batch(i)
		body, _ := loadgen.EncodeBatch(nil, &batch)
		events, err := ingest.Decode(body, time.Now())
		if err != nil {
			b.Fatal(err)
		}
		for j, ev := range batch.Events {
			if ev.Level == "info" || ev.Level == "debug" || len(out) == n {
				continue
			}
			if template < 0 {
				template = ev.Template
			}
			if ev.Template == template && (len(out) == 0 || events[j].Service == out[0].Service) {
				out = append(out, events[j])
			}
		}
	}
	if len(out) < n {
		b.Fatalf("%d events of one group, want %d", len(out), n)
	}
	return out
}
