package process_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/loadgen"
	"github.com/errata-dev/errata/internal/process"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// BenchmarkProcess measures the queue consumers: realistic 1,000-event
// batches (1% errors over 200 templates, the rest info and debug) are
// queued, then drained by GOMAXPROCS workers into groups, tickets and INFO
// summaries, by as many workers as Processor.Start runs. It reports
// processed events per second.
//
//	go test -run '^$' -bench Process -benchtime 100x -count 6 ./internal/process/
func BenchmarkProcess(b *testing.B) {
	opts := loadgen.DefaultOptions()
	g, err := loadgen.NewGenerator(opts)
	if err != nil {
		b.Fatal(err)
	}
	var payloads [][]byte
	for i := 0; i < 32; i++ {
		batch := g.Batch(i)
		body, _ := loadgen.EncodeBatch(nil, &batch)
		events, err := ingest.Decode(body, time.Now())
		if err != nil {
			b.Fatal(err)
		}
		p, _ := ingest.EncodePayload(events)
		payloads = append(payloads, p)
	}
	for _, d := range storetest.Dialects {
		b.Run(fmt.Sprintf("db=%s", d), func(b *testing.B) {
			db := storetest.Open(b, d)
			e := newEnvTB(b, db)
			ctx := context.Background()
			// Queue b.N batches, committing 16 at a time as ingestion would.
			for i := 0; i < b.N; i += 16 {
				var group []store.Batch
				for j := i; j < min(i+16, b.N); j++ {
					group = append(group, store.Batch{ProjectID: e.prj, ReceivedAt: time.Now(), EventCount: 1000, Payload: payloads[j%len(payloads)]})
				}
				if err := db.Tx(ctx, func(c *store.Conn) error { return c.InsertBatches(ctx, group) }); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			var wg sync.WaitGroup
			workers := runtime.GOMAXPROCS(0) // as Processor.Start runs them
			p := process.New(db, process.Options{})
			for w := 0; w < workers; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if err := p.Drain(ctx); err != nil {
						b.Error(err)
					}
				}()
			}
			wg.Wait()
			b.ReportMetric(float64(b.N)*1000/b.Elapsed().Seconds(), "events/s")
		})
	}
}
