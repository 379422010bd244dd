package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// TestFinishBatches deletes a part's batches, more than one statement
// holds and from two claims, with their payloads; when one of them has
// been claimed again since (its lease lost), it deletes none of them.
func TestFinishBatches(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		p := seedProject(t, db.Write())
		insert := func(n int) {
			t.Helper()
			bs := make([]store.Batch, n)
			for i := range bs {
				bs[i] = store.Batch{ProjectID: p.ID, ReceivedAt: now, EventCount: 1, Payload: []byte("x")}
			}
			if err := db.Tx(ctx, func(c *store.Conn) error { return c.InsertBatches(ctx, bs) }); err != nil {
				t.Fatal(err)
			}
		}
		claim := func(at time.Time, n int) []store.Batch {
			t.Helper()
			rows, err := db.Write().ClaimBatchRows(ctx, at, at.Add(time.Minute), n)
			if err != nil || len(rows) != n {
				t.Fatalf("ClaimBatchRows: %d, %v; want %d", len(rows), err, n)
			}
			return rows
		}
		backlog := func() int64 {
			t.Helper()
			n, _, _, err := db.Read().Backlog(ctx)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		insert(80)
		// Two claims (two leases), 70 batches: three statements at least.
		part := append(claim(now, 40), claim(now.Add(time.Millisecond), 30)...)
		if err := db.Tx(ctx, func(c *store.Conn) error { return c.FinishBatches(ctx, part) }); err != nil {
			t.Fatal(err)
		}
		if n := backlog(); n != 10 {
			t.Fatalf("backlog after finishing 70 of 80 batches: %d, want 10", n)
		}
		rest := claim(now, 10)
		// One batch's lease ends and another claim takes it.
		stale := rest[7]
		rest[7].LeaseUntil = rest[7].LeaseUntil.Add(-time.Millisecond)
		err := db.Tx(ctx, func(c *store.Conn) error { return c.FinishBatches(ctx, rest) })
		if !errors.Is(err, store.ErrLeaseLost) {
			t.Fatalf("FinishBatches with a lost lease = %v, want ErrLeaseLost", err)
		}
		if n := backlog(); n != 10 {
			t.Fatalf("backlog after a part that lost a lease: %d, want 10 (rolled back)", n)
		}
		rest[7] = stale
		if err := db.Tx(ctx, func(c *store.Conn) error { return c.FinishBatches(ctx, rest) }); err != nil {
			t.Fatal(err)
		}
		payloads, err := db.Read().LoadPayloads(ctx, rest)
		if n := backlog(); n != 0 || err != nil || len(payloads) != 0 {
			t.Fatalf("after finishing every batch: backlog %d, %d payloads left (%v); want none", n, len(payloads), err)
		}
	})
}
