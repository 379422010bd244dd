package process_test

import (
	"context"
	"slices"
	"testing"

	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/process"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// TestClaimSizedFromBatches: a claim takes ClaimBatches batches, and with
// ClaimEvents set, once a claim has shown the batches small, as many as
// hold about ClaimEvents events; without ClaimEvents it stays at
// ClaimBatches. The defaults take 32 one-event batches (Sentry envelopes),
// then the rest of a queue of 100 at once. A claim sized from small
// batches that meets large ones keeps only about ClaimEvents events and
// gives the rest back.
func TestClaimSizedFromBatches(t *testing.T) {
	repeat := func(n, events int) []int { return slices.Repeat([]int{events}, n) }
	for _, c := range []struct {
		name  string
		opts  process.Options
		sizes []int // events of each queued batch, in order
		want  []int // events each claim processes, until the queue is empty
	}{
		{"defaults", process.Options{}, repeat(100, 1), []int{32, 68}},
		{"fixed", process.Options{ClaimBatches: 4}, repeat(10, 1), []int{4, 4, 2}},
		{"sized", process.Options{ClaimBatches: 4, ClaimEvents: 10}, repeat(20, 1), []int{4, 10, 6}},
		{"sized from two-event batches", process.Options{ClaimBatches: 2, ClaimEvents: 10}, repeat(10, 2), []int{4, 10, 6}},
		{"large batches", process.Options{ClaimBatches: 2, ClaimEvents: 4}, repeat(4, 4), []int{8, 8}},
		// The second claim takes 20 batches (sized from one-event ones),
		// keeps 6 (24 events) and gives 8 back; the third, sized from an
		// average of 4, takes 5 and keeps 4.
		{"small then large", process.Options{ClaimBatches: 4, ClaimEvents: 20}, append(repeat(8, 1), repeat(10, 10)...), []int{4, 24, 40, 40}},
	} {
		t.Run(c.name, func(t *testing.T) {
			storetest.Each(t, func(t *testing.T, db *store.DB) {
				ctx := context.Background()
				e := newEnv(t, db)
				for _, n := range c.sizes {
					batch := make([]ingest.Event, n)
					for j := range batch {
						batch[j] = errEvent("claimed", ingest.Error)
					}
					e.queue(batch...)
				}
				opts := c.opts
				opts.Now = e.clock.Now
				p := process.New(db, opts)
				var got []int
				counted := 0
				for len(got) <= len(c.want) {
					did, err := p.ProcessOne(ctx)
					if err != nil {
						t.Fatal(err)
					}
					if !did {
						break
					}
					if g := e.groups(); len(g) == 1 {
						got = append(got, int(g[0].EventCount)-counted)
						counted = int(g[0].EventCount)
					}
				}
				if !slices.Equal(got, c.want) {
					t.Fatalf("claims processed %v events, want %v", got, c.want)
				}
			})
		})
	}
}
