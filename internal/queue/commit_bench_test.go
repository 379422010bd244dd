package queue_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/loadgen"
	"github.com/errata-dev/errata/internal/queue"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// BenchmarkCommit is the durable commit of one realistic 1,000-event batch
// at a time (no group commit: one op, one transaction, one fsync), with
// its payload compressed as intake writes it and, for comparison, plain:
// what a batch's 202 waits for once the committer takes it.
//
//	go test -run '^$' -bench Commit -count 6 ./internal/queue/
func BenchmarkCommit(b *testing.B) {
	g, err := loadgen.NewGenerator(loadgen.DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	batch := g.Batch(0)
	body, _ := loadgen.EncodeBatch(nil, &batch)
	events, err := ingest.Decode(body, time.Now())
	if err != nil {
		b.Fatal(err)
	}
	plain := ingest.AppendPayload(nil, events)
	payloads := map[string][]byte{"compressed": ingest.CompressPayload(nil, plain), "plain": plain}
	for _, d := range storetest.Dialects {
		for _, kind := range []string{"compressed", "plain"} {
			b.Run(fmt.Sprintf("db=%s/payload=%s", d, kind), func(b *testing.B) {
				db := storetest.Open(b, d)
				prj := seedProject(b, db)
				c := queue.NewCommitter(db, queue.Options{})
				if err := c.Start(context.Background()); err != nil {
					b.Fatal(err)
				}
				defer c.Stop()
				p := payloads[kind]
				b.SetBytes(int64(len(p)))
				for b.Loop() {
					if err := c.Enqueue(context.Background(), store.Batch{ProjectID: prj, ReceivedAt: time.Now(), EventCount: len(events), Payload: p}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/commit")
			})
		}
	}
}
