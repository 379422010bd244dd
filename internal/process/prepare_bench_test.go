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
// per second on one core. Each op prepares the next 32 of 16 or 256
// distinct batches in turn (the load generator's --distinct; each of its
// events is generated afresh, so 256 batches repeat no message within the
// memos' reach and 16 repeat every one), with the memos of a Processor
// kept across ops (memo=on, issue 28) or none (memo=off).
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
	for _, distinct := range []int{16, 256} {
		for _, on := range []bool{false, true} {
			b.Run(fmt.Sprintf("distinct=%d/memo=%s", distinct, map[bool]string{false: "off", true: "on"}[on]), func(b *testing.B) {
				var m *memos
				if on {
					m = newMemos()
				}
				for i := range b.N {
					start := i * 32 % distinct
					ops := append(batches[start:min(start+32, distinct):min(start+32, distinct)], batches[:max(0, start+32-distinct)]...)
					if _, err := prepare(context.Background(), ops, time.Hour, nil, nil, nil, m); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N)*32000/b.Elapsed().Seconds(), "events/s")
			})
		}
	}
}
