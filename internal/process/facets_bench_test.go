package process

import (
	"testing"

	"github.com/errata-dev/errata/internal/ingest"
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
