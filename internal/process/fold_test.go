package process_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/process"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// regionEvent is an error event of one group carrying region and a user.
func regionEvent(region string, user int) ingest.Event {
	e := errEvent("payment failed", ingest.Error)
	e.Attributes = json.RawMessage(fmt.Sprintf(`{"region":%q,"user":{"id":"u%d"}}`, region, user))
	return e
}

// regionTotal is the group's count of region values.
func regionTotal(t *testing.T, db *store.DB, groupID string) int64 {
	t.Helper()
	fs, err := db.Read().GroupFacets(context.Background(), groupID, []string{"region"}, 10)
	if err != nil {
		t.Fatal(err)
	}
	return fs[0].Total
}

// TestCountsDeferredUnderABacklog: a full claim (a backlog) records its
// value counts to be folded later; a claim that empties the queue in one
// part folds them first and counts its own at once.
func TestCountsDeferredUnderABacklog(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := newEnv(t, db)
		for i := range 6 {
			e.queue(regionEvent("eu", i), regionEvent("us", i))
		}
		p := process.New(db, process.Options{Now: e.clock.Now, ClaimBatches: 4})
		if did, err := p.ProcessOne(ctx); !did || err != nil {
			t.Fatalf("ProcessOne = %v, %v", did, err)
		}
		g := e.groups()[0]
		if g.EventCount != 8 || regionTotal(t, db, g.ID) != 0 {
			t.Fatalf("after a full claim: %d events, region counted %d; want 8 events, counts deferred", g.EventCount, regionTotal(t, db, g.ID))
		}
		if has, err := db.Read().HasPendingCounts(ctx); err != nil || !has {
			t.Fatalf("HasPendingCounts = %v, %v; want true", has, err)
		}
		if did, err := p.ProcessOne(ctx); !did || err != nil { // the last 2 batches: not full
			t.Fatalf("ProcessOne = %v, %v", did, err)
		}
		// The claim that empties the queue folds what the backlog deferred
		// before it applies its own, written at once: when the events are
		// counted, so are their values.
		if has, err := db.Read().HasPendingCounts(ctx); err != nil || has {
			t.Fatalf("after the claim that emptied the queue HasPendingCounts = %v, %v; want false", has, err)
		}
		fs, err := db.Read().GroupFacets(ctx, g.ID, []string{"region", "user.id"}, 10)
		if err != nil {
			t.Fatal(err)
		}
		if fs[0].Total != 12 || len(fs[0].Values) != 2 || fs[1].Total != 12 || len(fs[1].Values) != 6 {
			t.Fatalf("after the queue emptied: %+v; want region 12 over 2 values, user.id 12 over 6", fs)
		}
		if g := e.groups()[0]; g.UserCount != 6 {
			t.Fatalf("user_count = %d, want 6", g.UserCount)
		}
	})
}

// TestStartedWorkersFoldWhenIdle: running workers fold what a backlog
// deferred as soon as the queue is empty, without waiting for FoldEvery.
func TestStartedWorkersFoldWhenIdle(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		for i := range 20 {
			e.queue(regionEvent("eu", i))
		}
		p := process.New(db, process.Options{Now: e.clock.Now, ClaimBatches: 4, Idle: time.Hour})
		if err := p.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		defer p.Stop()
		deadline := time.Now().Add(30 * time.Second)
		for {
			gs := e.groups()
			if len(gs) == 1 && gs[0].EventCount == 20 && regionTotal(t, db, gs[0].ID) == 20 {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("groups %+v: the deferred counts were not folded in 30 s", gs)
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}

// TestIdleWorkerFoldsAnotherProcessCounts: on PostgreSQL, counts another
// process deferred and never folded (it was killed) are folded by an idle
// worker's sweep.
func TestIdleWorkerFoldsAnotherProcessCounts(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		if !db.ConcurrentWrites() {
			t.Skip("one process owns a SQLite file: its own restart folds what it left")
		}
		ctx := context.Background()
		e := newEnv(t, db)
		e.send(regionEvent("eu", 1))
		g := e.groups()[0]
		p := process.New(db, process.Options{Now: e.clock.Now, Idle: 10 * time.Millisecond})
		if err := p.Start(ctx); err != nil {
			t.Fatal(err)
		}
		defer p.Stop()
		time.Sleep(100 * time.Millisecond) // its start-up fold is done
		counts := []store.FacetCount{{GroupID: g.ID, Key: "region", Value: "eu", N: 5}}
		if err := db.Tx(ctx, func(c *store.Conn) error { return c.AddPendingCounts(ctx, counts, nil) }); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(30 * time.Second)
		for regionTotal(t, db, g.ID) != 6 {
			if time.Now().After(deadline) {
				t.Fatalf("region counted %d after 30 s; want 6, the other process's 5 folded", regionTotal(t, db, g.ID))
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}

// TestFoldBudgetFromPace: fold transactions are sized from the pace they
// measure, as apply parts are: from store.FoldCounts, up to
// process.MaxFoldCounts when folds are fast against the target, halving
// each transaction when they are slow (each taking at least one row),
// every count folded either way.
func TestFoldBudgetFromPace(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		for _, tc := range []struct {
			name   string
			target time.Duration
			want   func(int64) bool
		}{
			{"fast", time.Hour, func(n int64) bool { return n == process.MaxFoldCounts }},
			{"slow", time.Nanosecond, func(n int64) bool { return n < store.FoldCounts/4 }},
		} {
			e := newEnv(t, db)
			e.queue(regionEvent("eu", 1))
			p := process.New(db, process.Options{Now: e.clock.Now, ApplyTarget: tc.target})
			if p.FoldBudget() != store.FoldCounts {
				t.Fatalf("%s: the first fold takes %d counts, want %d", tc.name, p.FoldBudget(), store.FoldCounts)
			}
			if err := p.Drain(ctx); err != nil {
				t.Fatal(err)
			}
			g := e.groups()[0]
			per := store.FoldCounts * 3 / 4
			for row := range 4 {
				counts := make([]store.FacetCount, per)
				for i := range counts {
					counts[i] = store.FacetCount{GroupID: g.ID, Key: "request_id", Value: fmt.Sprintf("r%d-%d", row, i), N: 1}
				}
				if err := db.Tx(ctx, func(c *store.Conn) error { return c.AddPendingCounts(ctx, counts, nil) }); err != nil {
					t.Fatal(err)
				}
			}
			if err := p.FoldCounts(ctx); err != nil {
				t.Fatal(err)
			}
			if got := p.FoldBudget(); !tc.want(got) {
				t.Errorf("%s: fold budget %d after folding, from %d", tc.name, got, store.FoldCounts)
			}
			if has, err := db.Read().HasPendingCounts(ctx); err != nil || has {
				t.Errorf("%s: HasPendingCounts = %v, %v after FoldCounts; want everything folded", tc.name, has, err)
			}
			fs, err := db.Read().GroupFacets(ctx, g.ID, []string{"request_id"}, 10)
			if err != nil {
				t.Fatal(err)
			}
			if want := int64(4 * per); fs[0].Total != want {
				t.Errorf("%s: request_id counted %d, want %d", tc.name, fs[0].Total, want)
			}
		}
	})
}

// TestSteadyLoadDefersTheClaimThatEmptiesTheQueue: while deferred counts
// wait and the last fold is under FoldEvery old, a claim that empties the
// queue defers its counts too if another commit comes within Linger (a
// steady stream catches up many times a second; folding each time wrote
// every value once a part), and otherwise (the end of a burst) folds first
// and counts its own at once, so that once the events are counted so are
// their values. FoldEvery -1 (ERRATA_COUNTS_LAG=0) never defers it.
func TestSteadyLoadDefersTheClaimThatEmptiesTheQueue(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		for _, c := range []struct {
			name      string
			every     time.Duration
			streaming bool
			counted   int64 // when the queue is empty, before another fold
		}{
			{"stream", 0, true, 0},
			{"burst ended", 0, false, 6},
			{"stream, no lag", -1, true, 6},
		} {
			ctx := context.Background()
			e := newEnv(t, db)
			for i := range 6 {
				e.queue(regionEvent("eu", i))
			}
			p := process.New(db, process.Options{Now: e.clock.Now, ClaimBatches: 4, FoldEvery: c.every})
			if err := p.FoldCounts(ctx); err != nil { // a fold just now
				t.Fatal(err)
			}
			done := make(chan struct{})
			if c.streaming { // commits keep waking the worker
				go func() {
					for {
						select {
						case <-done:
							return
						case <-time.After(time.Millisecond):
							p.Wake()
						}
					}
				}()
			}
			for range 2 { // a full claim (deferred), then the last 2 batches
				if did, err := p.ProcessOne(ctx); !did || err != nil {
					t.Fatalf("%s: ProcessOne = %v, %v", c.name, did, err)
				}
			}
			close(done)
			g := e.groups()[0]
			if n := regionTotal(t, db, g.ID); g.EventCount != 6 || n != c.counted {
				t.Fatalf("%s: queue emptied a moment after a fold: %d events, region counted %d; want 6 events, %d counted", c.name, g.EventCount, n, c.counted)
			}
			if err := p.FoldCounts(ctx); err != nil {
				t.Fatal(err)
			}
			if n := regionTotal(t, db, g.ID); n != 6 {
				t.Fatalf("%s: after the fold region counted %d, want 6", c.name, n)
			}
		}
	})
}
