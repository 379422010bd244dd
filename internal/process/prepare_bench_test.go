package process

import (
	"context"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/loadgen"
	"github.com/errata-dev/errata/internal/store"
)

// BenchmarkPrepare measures the work a transaction does outside the
// database: decoding 32 of the load generator's 1,000-event batches,
// fingerprinting their errors, parameterising their INFO messages and, since
// issue 21, collecting their environments and services. It reports events
// per second on one core.
//
//	go test -run '^$' -bench Prepare -benchtime 200x -count 6 ./internal/process/
func BenchmarkPrepare(b *testing.B) {
	g, err := loadgen.NewGenerator(loadgen.DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	batches := make([]store.Batch, 32)
	for i := range batches {
		batch := g.Batch(i)
		body, _ := loadgen.EncodeBatch(nil, &batch)
		events, err := ingest.Decode(body, time.Now())
		if err != nil {
			b.Fatal(err)
		}
		batches[i] = store.Batch{ProjectID: "prj_bench", ReceivedAt: time.Now(), EventCount: len(events),
			Payload: ingest.CompressPayload(nil, ingest.AppendPayload(nil, events))}
	}
	b.ResetTimer()
	for range b.N {
		if _, err := prepare(context.Background(), batches, time.Hour, nil, nil, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)*32000/b.Elapsed().Seconds(), "events/s")
}
