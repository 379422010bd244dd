package ingest_test

import (
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/loadgen"
)

// BenchmarkBatchStages is the CPU of each stage a realistic 1,000-event
// batch (the load generator's, about 540 bytes an event) goes through
// between its request body and the queue, and back out to a worker. The
// durable commit's share is BenchmarkCommit in internal/queue.
//
//	go test -run '^$' -bench BatchStages -benchmem -count 6 ./internal/ingest/
func BenchmarkBatchStages(b *testing.B) {
	g, err := loadgen.NewGenerator(loadgen.DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	batch := g.Batch(0)
	body, _ := loadgen.EncodeBatch(nil, &batch)
	received := time.Now()
	events, err := ingest.Decode(body, received)
	if err != nil {
		b.Fatal(err)
	}
	plain := ingest.AppendPayload(nil, events)
	packed := ingest.CompressPayload(nil, plain)
	stage := func(name string, size int, fn func()) {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(size))
			for b.Loop() {
				fn()
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/batch")
		})
	}
	var buf []byte
	stage("decode", len(body), func() { _, _ = ingest.Decode(body, received) })
	stage("scrub+clamp", len(body), func() { ingest.ScrubNUL(events); ingest.ClampFuture(events, received) })
	stage("encode", len(plain), func() { buf = ingest.AppendPayload(buf[:0], events) })
	stage("compress", len(plain), func() { buf = ingest.CompressPayload(buf[:0], plain) })
	stage("read-compressed", len(plain), func() { _, _ = ingest.DecodePayload(packed) })
	stage("read-plain", len(plain), func() { _, _ = ingest.DecodePayload(plain) })
	b.Logf("body %d bytes, payload %d bytes, compressed %d bytes (%.0f %%)", len(body), len(plain), len(packed), 100*float64(len(packed))/float64(len(plain)))
}
