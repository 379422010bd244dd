package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// TestBatchClaimsPerProject: on PostgreSQL a claim holds the batches of one
// project, a project not held by any claim goes first, and at most
// MaxProjectClaims claims hold one project at once; a batch waiting out
// the backoff after a failure does not count as a claim. SQLite (one
// process) claims the oldest batches whatever their project.
func TestBatchClaimsPerProject(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		w := db.Write()
		a, b := seedProject(t, w), seedProject(t, w)
		var batches []store.Batch
		for i := range 12 {
			p := a // a's batches are the oldest
			if i >= 8 {
				p = b
			}
			batches = append(batches, store.Batch{ProjectID: p.ID, ReceivedAt: now, EventCount: 1, Payload: []byte("x")})
		}
		if err := db.Tx(ctx, func(c *store.Conn) error { return c.InsertBatches(ctx, batches) }); err != nil {
			t.Fatal(err)
		}
		at := now
		claim := func() []store.Batch {
			t.Helper()
			at = at.Add(time.Millisecond) // each claim's lease ends at its own time, as in life
			var out []store.Batch
			if err := db.Tx(ctx, func(c *store.Conn) error {
				var err error
				out, err = c.ClaimBatches(ctx, at, at.Add(time.Minute), 3)
				return err
			}); err != nil {
				t.Fatal(err)
			}
			return out
		}
		projects := func(bs []store.Batch) map[string]int {
			m := map[string]int{}
			for _, b := range bs {
				m[b.ProjectID]++
			}
			return m
		}
		if db.Dialect() == store.SQLite {
			if got := projects(claim()); got[a.ID] != 3 {
				t.Fatalf("SQLite claim = %v, want the 3 oldest (a's)", got)
			}
			return
		}
		// A failing batch of a, in its backoff, is not a claim.
		failing := claim()
		if _, err := w.RecordBatchFailure(ctx, failing[0], "boom", 5, at, at.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		if err := w.ReleaseBatches(ctx, failing[1:]); err != nil {
			t.Fatal(err)
		}
		first, second, third, fourth := claim(), claim(), claim(), claim()
		if got := projects(first); len(got) != 1 || got[a.ID] != 3 {
			t.Fatalf("first claim = %v, want 3 of a (the oldest)", got)
		}
		if got := projects(second); len(got) != 1 || got[b.ID] != 3 {
			t.Fatalf("second claim = %v, want 3 of b, held by no claim", got)
		}
		if got := projects(third); len(got) != 1 || got[a.ID] != 3 {
			t.Fatalf("third claim = %v, want 3 of a (a second claim of it)", got)
		}
		if got := projects(fourth); len(got) != 1 || got[b.ID] != 1 {
			t.Fatalf("fourth claim = %v, want b's last batch: a has %d claims", got, store.MaxProjectClaims)
		}
		if got := claim(); len(got) != 0 {
			t.Fatalf("fifth claim = %v, want nothing: both projects are held twice", projects(got))
		}
		// A claim that ends frees its project.
		for _, bt := range first {
			if err := w.FinishBatch(ctx, bt); err != nil {
				t.Fatal(err)
			}
		}
		if got := projects(claim()); got[a.ID] != 1 {
			t.Fatalf("claim after a's first ended = %v, want a's last batch", got)
		}
	})
}
