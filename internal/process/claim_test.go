package process_test

import (
	"context"
	"slices"
	"testing"
	"time"

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

// TestLingerClaimsTogether: after a claim that left no backlog the worker
// waits Linger before it claims again, so that batches committed one by
// one meanwhile (each announced with Wake) are applied together, while a
// batch that wakes an idle worker is claimed at once.
func TestLingerClaimsTogether(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		parts := make(chan int, 100)
		p := process.New(db, process.Options{Now: e.clock.Now, Workers: 1, Linger: time.Second, Idle: time.Minute,
			Observe: func(events int, _ time.Duration) { parts <- events }})
		if err := p.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		defer p.Stop()
		e.queue(errEvent("lingered", ingest.Error))
		p.Wake()
		receive(t, parts, "a batch that woke the idle worker was not processed")
		// Ten batches 20 ms apart, within the worker's linger: without it
		// each would be claimed on its own.
		for i := 0; i < 10; i++ {
			e.queue(errEvent("lingered", ingest.Error))
			p.Wake()
			time.Sleep(20 * time.Millisecond)
		}
		var got []int
		for events := 0; events < 10; {
			n := receive(t, parts, "the ten batches were not processed")
			got = append(got, n)
			events += n
		}
		if len(got) > 2 {
			t.Fatalf("the ten batches were applied in parts of %v events, want one or two parts", got)
		}
	})
}

// receive returns the next value of ch, failing the test with what if none
// comes within 30 s.
func receive[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(30 * time.Second):
		t.Fatal(what)
	}
	var zero T
	return zero
}
