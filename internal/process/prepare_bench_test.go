package process

import (
	"context"
	"fmt"
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
// per second on one core. Each op prepares the next 32 of 256 distinct
// batches (every event generated afresh, as the load generator without
// --distinct makes them), with the memos of a Processor kept across ops
// (memo=on, issue 28) or none (memo=off).
//
//	go test -run '^$' -bench Prepare -benchtime 200x -count 6 ./internal/process/
func BenchmarkPrepare(b *testing.B) {
	g, err := loadgen.NewGenerator(loadgen.DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	batches := make([]store.Batch, 256)
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
	for _, on := range []bool{false, true} {
		b.Run(fmt.Sprintf("memo=%s", map[bool]string{false: "off", true: "on"}[on]), func(b *testing.B) {
			var m *memos
			if on {
				m = newMemos()
			}
			for i := range b.N {
				start := i * 32 % len(batches)
				if _, err := prepare(context.Background(), batches[start:start+32], time.Hour, nil, nil, nil, m); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)*32000/b.Elapsed().Seconds(), "events/s")
		})
	}
}
