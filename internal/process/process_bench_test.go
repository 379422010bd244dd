package process_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/loadgen"
	"github.com/errata-dev/errata/internal/notify"
	"github.com/errata-dev/errata/internal/process"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// BenchmarkProcess measures the queue consumers: realistic 1,000-event
// batches (1% errors over 200 templates, the rest info and debug), their
// payloads compressed as intake writes them, are queued, then drained into
// groups, tickets and INFO summaries by one worker and by GOMAXPROCS
// workers (a backlog, when Processor.Start's helpers join the first). It
// reports processed events per second.
//
//	go test -run '^$' -bench Process -benchtime 100x -count 6 ./internal/process/
func BenchmarkProcess(b *testing.B) {
	opts := loadgen.DefaultOptions()
	g, err := loadgen.NewGenerator(opts)
	if err != nil {
		b.Fatal(err)
	}
	payloads := benchPayloads(b, g, 32)
	for _, d := range storetest.Dialects {
		for _, workers := range []int{1, runtime.GOMAXPROCS(0)} {
			benchProcess(b, fmt.Sprintf("db=%s/workers=%d", d, workers), d, workers, payloads, 1000, process.Options{Workers: workers})
		}
	}
}

// BenchmarkProcessVaried is BenchmarkProcess with varied values: 1,024
// distinct batches over 2,000 templates (as `errata loadgen --templates
// 2000 --distinct 1000`), so that most attribute values of an error event
// are new to its group and the value counts write new rows, where
// BenchmarkProcess's 32 batches repeat theirs. One worker; the drain folds
// the deferred counts before it returns, so their cost is in the figure.
//
//	go test -run '^$' -bench ProcessVaried -benchtime 1024x -count 3 ./internal/process/
func BenchmarkProcessVaried(b *testing.B) {
	opts := loadgen.DefaultOptions()
	opts.Templates = 2000
	g, err := loadgen.NewGenerator(opts)
	if err != nil {
		b.Fatal(err)
	}
	payloads := benchPayloads(b, g, 1024)
	for _, d := range storetest.Dialects {
		benchProcess(b, fmt.Sprintf("db=%s/workers=1", d), d, 1, payloads, 1000, process.Options{Workers: 1})
	}
}

// BenchmarkProcessSingle measures processing batches of one error event,
// as the Sentry endpoints queue them (one envelope, one batch): 4,096
// distinct events over 200 templates, one worker, by the number of batches
// a claim takes (0: the default, sized from the batches' events). What a
// claim costs apart from its events (the claim's transaction, reading the
// payloads, each group's update) is shared by fewer events than with
// 1,000-event batches.
//
//	go test -run '^$' -bench ProcessSingle -benchtime 20000x ./internal/process/
func BenchmarkProcessSingle(b *testing.B) {
	g, err := loadgen.NewGenerator(loadgen.DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	payloads := singlePayloads(b, g, 4096)
	for _, d := range storetest.Dialects {
		// claim=0 is the default: ClaimBatches sized by DefaultClaimEvents.
		for _, claim := range []int{32, 256, 1024, 0} {
			benchProcess(b, fmt.Sprintf("db=%s/claim=%d", d, claim), d, 1, payloads, 1, process.Options{Workers: 1, ClaimBatches: claim})
		}
	}
}

// singlePayloads returns n payloads of one error event each, taken from
// g's batches in turn.
func singlePayloads(b *testing.B, g *loadgen.Generator, n int) [][]byte {
	var payloads [][]byte
	for i := 0; len(payloads) < n; i++ {
		batch := g.Batch(i)
		for _, ev := range batch.Events {
			if ev.Level != "error" && ev.Level != "fatal" || len(payloads) == n {
				continue
			}
			one := batch
			one.Events = []loadgen.Event{ev}
			body, _ := loadgen.EncodeBatch(nil, &one)
			events, err := ingest.Decode(body, time.Now())
			if err != nil {
				b.Fatal(err)
			}
			payloads = append(payloads, ingest.CompressPayload(nil, ingest.AppendPayload(nil, events)))
		}
	}
	return payloads
}

// benchPayloads returns the first n batches of g as intake queues them:
// decoded, encoded as the queue's payload and compressed.
func benchPayloads(b *testing.B, g *loadgen.Generator, n int) [][]byte {
	payloads := make([][]byte, n)
	for i := range payloads {
		batch := g.Batch(i)
		body, _ := loadgen.EncodeBatch(nil, &batch)
		events, err := ingest.Decode(body, time.Now())
		if err != nil {
			b.Fatal(err)
		}
		payloads[i] = ingest.CompressPayload(nil, ingest.AppendPayload(nil, events))
	}
	return payloads
}

// benchProcess queues b.N batches of payloads (of perBatch events each) and
// drains them with workers goroutines of one Processor made with opts.
func benchProcess(b *testing.B, name string, d store.Dialect, workers int, payloads [][]byte, perBatch int, opts process.Options) {
	{
		b.Run(name, func(b *testing.B) {
			db := storetest.Open(b, d)
			e := newEnvTB(b, db)
			ctx := context.Background()
			// Queue b.N batches, committing 16 at a time as ingestion would.
			for i := 0; i < b.N; i += 16 {
				var group []store.Batch
				for j := i; j < min(i+16, b.N); j++ {
					group = append(group, store.Batch{ProjectID: e.prj, ReceivedAt: time.Now(), EventCount: perBatch, Payload: payloads[j%len(payloads)]})
				}
				if err := db.Tx(ctx, func(c *store.Conn) error { return c.InsertBatches(ctx, group) }); err != nil {
					b.Fatal(err)
				}
			}
			b.ResetTimer()
			var wg sync.WaitGroup
			p := process.New(db, opts)
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
			b.ReportMetric(float64(b.N*perBatch)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// BenchmarkProcessTickets measures processing when batches keep opening
// tickets that are notified: 1,000-event batches whose errors (1%) mostly
// start new groups (100,000 templates), in a project with two email
// channels and an errata webhook (and, in the chat=3 runs, Slack, Teams
// and ntfy webhooks too). Every new critical or high ticket queues a
// delivery per channel in the processing transaction, whose cost (building
// the bodies) holds SQLite's only writer. One worker drains the queue. It
// reports processed events and opened tickets per second.
//
//	go test -run '^$' -bench ProcessTickets -benchtime 400x ./internal/process/
func BenchmarkProcessTickets(b *testing.B) {
	opts := loadgen.DefaultOptions()
	opts.Templates = 100_000
	g, err := loadgen.NewGenerator(opts)
	if err != nil {
		b.Fatal(err)
	}
	for _, run := range []struct {
		name  string
		chats []string
	}{{"", nil}, {",chat=3", []string{"slack", "teams", "ntfy"}}} {
		for _, d := range storetest.Dialects {
			benchTickets(b, g, d, run.name, run.chats)
		}
	}
}

func benchTickets(b *testing.B, g *loadgen.Generator, d store.Dialect, name string, chats []string) {
	b.Run(fmt.Sprintf("db=%s%s", d, name), func(b *testing.B) {
		db := storetest.Open(b, d)
		e := newEnvTB(b, db)
		ctx := context.Background()
		channels := addBenchChannels(b, db, e.prj, chats)
		n := notify.New(db, notify.Options{AppURL: "https://errata.example"})
		// Queue b.N distinct batches, so that every one brings new groups.
		for i := 0; i < b.N; i += 16 {
			var group []store.Batch
			for j := i; j < min(i+16, b.N); j++ {
				batch := g.Batch(j)
				body, _ := loadgen.EncodeBatch(nil, &batch)
				events, err := ingest.Decode(body, time.Now())
				if err != nil {
					b.Fatal(err)
				}
				p, _ := ingest.EncodePayload(events)
				group = append(group, store.Batch{ProjectID: e.prj, ReceivedAt: time.Now(), EventCount: len(events), Payload: p})
			}
			if err := db.Tx(ctx, func(c *store.Conn) error { return c.InsertBatches(ctx, group) }); err != nil {
				b.Fatal(err)
			}
		}
		b.ResetTimer()
		// One worker: the cost measured is the transaction's, and two
		// workers creating the same new groups on PostgreSQL lose races
		// that a benchmark cannot wait out (the batch's lease).
		p := process.New(db, process.Options{OnTickets: n.OnTickets, AfterTickets: n.AfterCommit})
		if err := p.Drain(ctx); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		pending, err := db.Read().CountPendingDeliveries(ctx)
		if err != nil || pending == 0 {
			b.Fatalf("pending deliveries = %d, %v; want the tickets' deliveries", pending, err)
		}
		b.ReportMetric(float64(b.N)*1000/b.Elapsed().Seconds(), "events/s")
		b.ReportMetric(float64(pending)/float64(channels)/b.Elapsed().Seconds(), "tickets/s")
	})
}

// addBenchChannels gives a project two email channels, an errata webhook
// and a webhook in each of the chat formats; it returns how many.
func addBenchChannels(b *testing.B, db *store.DB, projectID string, chats []string) int {
	b.Helper()
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	m := store.Member{ID: id.New(id.Member), UserID: id.New(id.User), Role: "owner", CreatedAt: now}
	chs := []store.Channel{
		{Type: store.ChannelEmail, Email: "ops@example.com"},
		{Type: store.ChannelEmail, Email: "dev@example.com"},
		{Type: store.ChannelWebhook, URL: "https://hooks.example.com/errata", Secret: notify.NewSecret()},
	}
	for _, f := range chats {
		chs = append(chs, store.Channel{Type: store.ChannelWebhook, URL: "https://hooks.example.com/" + f, Secret: notify.NewSecret(), Format: f})
	}
	for i, ch := range chs {
		ch.ID, ch.ProjectID, ch.MemberID, ch.Name, ch.Enabled, ch.Health = id.New(id.Channel), projectID, m.ID, fmt.Sprintf("bench %d", i), true, store.HealthOK
		ch.CreatedAt, ch.UpdatedAt = now, now
		if err := db.Write().CreateChannel(ctx, ch); err != nil {
			b.Fatal(err)
		}
	}
	return len(chs)
}
