package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// TestDriverContract runs the contract every driver keeps (driver.go) on
// both databases: what the shared code asks of a driver must hold however
// the driver does it. A new capability adds its case here.
func TestDriverContract(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		t.Run("concurrent batch claims take each batch once", func(t *testing.T) { contractBatchClaims(t, db) })
		t.Run("delivery claims keep their bounds", func(t *testing.T) { contractDeliveryClaims(t, db) })
		t.Run("row locks serialise read-modify-write", func(t *testing.T) { contractRowLock(t, db) })
		t.Run("upserts add up", func(t *testing.T) { contractUpserts(t, db) })
		t.Run("commits and schema", func(t *testing.T) { contractCommits(t, db) })
	})
}

// contractBatchClaims: claims racing in transactions of their own lease
// every batch exactly once, in queue order within a claim, with payloads.
func contractBatchClaims(t *testing.T, db *store.DB) {
	ctx := context.Background()
	p := seedProject(t, db.Write())
	const total = 40
	var batches []store.Batch
	for i := range total {
		batches = append(batches, store.Batch{ProjectID: p.ID, ReceivedAt: now, EventCount: 1, Payload: fmt.Appendf(nil, "b%d", i)})
	}
	if err := db.Tx(ctx, func(c *store.Conn) error { return c.InsertBatches(ctx, batches) }); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[int64]int{}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Distinct leases: on PostgreSQL each counts as a claim of
			// the project, up to MaxProjectClaims at once.
			at := now.Add(time.Duration(w) * time.Millisecond)
			for {
				var got []store.Batch
				if err := db.Tx(ctx, func(c *store.Conn) error {
					var err error
					got, err = c.ClaimBatches(ctx, at, at.Add(time.Hour), 3)
					return err
				}); err != nil || len(got) == 0 {
					if err != nil {
						t.Error(err)
					}
					return
				}
				mu.Lock()
				for i, b := range got {
					seen[b.ID]++
					if i > 0 && b.ID <= got[i-1].ID || len(b.Payload) == 0 || b.Attempts != 1 || !b.LeaseUntil.Equal(at.Add(time.Hour)) {
						t.Errorf("claimed %+v: want ascending ids, a payload, one attempt, the lease", b)
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	// On PostgreSQL a claim never takes a project that MaxProjectClaims
	// claims hold: the rest waits for their leases to run out, and is
	// then claimed with the batches whose lease ran out.
	for len(seen) < total {
		later := now.Add(2 * time.Hour)
		got, err := db.Write().ClaimBatches(ctx, later, later.Add(time.Hour), total)
		if err != nil || len(got) == 0 {
			t.Fatalf("claim after the leases = %d, %v; %d of %d claimed", len(got), err, len(seen), total)
		}
		for _, b := range got {
			switch {
			case b.Attempts == 1:
				seen[b.ID]++
			case seen[b.ID] == 0:
				t.Fatalf("batch %d has %d attempts but no claim took it", b.ID, b.Attempts)
			}
		}
	}
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("batch %d claimed %d times while leased", id, n)
		}
	}
}

// contractDeliveryClaims: a claim takes at most perChannel a channel and
// of the system emails, none of an excluded channel (nor system emails
// when "" is excluded), at most limit, oldest due first, and nothing leased.
func contractDeliveryClaims(t *testing.T, db *store.DB) {
	ctx := context.Background()
	w := db.Write()
	p := seedProject(t, w)
	a, b, c := seedChannel(t, w, p.ID), seedChannel(t, w, p.ID), seedChannel(t, w, p.ID)
	for i := range 5 {
		for _, ch := range []store.Channel{a, b, c} {
			queueDelivery(t, w, ch, now.Add(-time.Hour+time.Duration(i)*time.Minute))
		}
		due := now.Add(-30*time.Minute + time.Duration(i)*time.Second)
		sys := store.Delivery{ID: id.New(id.Delivery), ProjectID: p.ID, Event: store.EventTicket, SubjectID: "tkt_x",
			Body: []byte(`{}`), Status: store.DeliveryPending, Series: 1, NextAttemptAt: &due, CreatedAt: now, UpdatedAt: now}
		if err := w.InsertDelivery(ctx, sys); err != nil {
			t.Fatal(err)
		}
	}
	claim := func(at time.Time, perChannel, limit int, exclude ...string) map[string]int {
		t.Helper()
		var ds []store.Delivery
		if err := db.Tx(ctx, func(c *store.Conn) error {
			var err error
			ds, err = c.ClaimDeliveries(ctx, at, at.Add(time.Minute), perChannel, limit, exclude)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		per := map[string]int{}
		for i, d := range ds {
			per[d.ChannelID]++
			if i > 0 && d.NextAttemptAt.Before(*ds[i-1].NextAttemptAt) {
				t.Fatalf("claim not oldest due first: %v after %v", d.NextAttemptAt, ds[i-1].NextAttemptAt)
			}
		}
		if len(ds) > limit {
			t.Fatalf("claimed %d, limit %d", len(ds), limit)
		}
		return per
	}
	if got := claim(now, 2, 100, a.ID, ""); got[a.ID] != 0 || got[""] != 0 || got[b.ID] != 2 || got[c.ID] != 2 {
		t.Fatalf("claim excluding a and system emails = %v, want 2 of b and of c", got)
	}
	if got := claim(now, 2, 100, b.ID, c.ID); got[a.ID] != 2 || got[""] != 2 || len(got) != 2 {
		t.Fatalf("claim excluding b and c = %v, want 2 of a and 2 system emails", got)
	}
	// Nothing leased is taken again (on PostgreSQL the leased count
	// against perChannel; on SQLite the caller excludes its channels).
	if got := claim(now, 5, 100); got[a.ID] != 3 || got[b.ID] != 3 || got[c.ID] != 3 || got[""] != 3 {
		t.Fatalf("claim of the rest = %v, want the 3 left of each", got)
	}
	// Once the leases ran out: oldest due first across channels, b's and
	// c's first are older than any system email.
	if got := claim(now.Add(2*time.Minute), 1, 2, a.ID); len(got) != 2 || got[b.ID] != 1 || got[c.ID] != 1 {
		t.Fatalf("claim of 2 after the leases = %v, want one each of b and c", got)
	}
}

// contractRowLock: transactions that read a row to write it back
// (LockGroup, then UpdateGroup) never lose each other's update.
func contractRowLock(t *testing.T, db *store.DB) {
	ctx := context.Background()
	p := seedProject(t, db.Write())
	gid := seedGroupFor(t, db.Write(), p.ID, "locked")
	const n = 12
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- db.Tx(ctx, func(c *store.Conn) error {
				g, err := c.LockGroup(ctx, gid)
				if err != nil {
					return err
				}
				g.EventCount++
				return c.UpdateGroup(ctx, g)
			})
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if g, err := db.Read().GroupByID(ctx, gid); err != nil || g.EventCount != n {
		t.Fatalf("event count = %d, %v; want %d", g.EventCount, err, n)
	}
}

// contractUpserts: counts of one group and minute given several times in
// one call (one multi-row statement on a server, one statement each on
// SQLite) add up, and add to what was there; project numbers only grow.
func contractUpserts(t *testing.T, db *store.DB) {
	ctx := context.Background()
	w := db.Write()
	p := seedProject(t, w)
	g1, g2 := seedGroupFor(t, w, p.ID, "one"), seedGroupFor(t, w, p.ID, "two")
	m := now.Truncate(time.Hour)
	counts := []store.GroupCount{{GroupID: g1, ProjectID: p.ID, Minute: m, N: 2}, {GroupID: g1, ProjectID: p.ID, Minute: m, N: 3},
		{GroupID: g2, ProjectID: p.ID, Minute: m.Add(time.Minute), N: 4}}
	for range 2 {
		if err := db.Tx(ctx, func(c *store.Conn) error { return c.AddGroupCounts(ctx, counts) }); err != nil {
			t.Fatal(err)
		}
	}
	for gid, want := range map[string]int64{g1: 10, g2: 8} {
		if n, err := db.Read().GroupCountBetween(ctx, gid, m, m.Add(time.Hour)); err != nil || n != want {
			t.Fatalf("group %s count = %d, %v; want %d", gid, n, err, want)
		}
	}
	hours, err := db.Read().EventsPerHour(ctx, p.ID, m, m.Add(time.Hour))
	if err != nil || len(hours) != 1 || hours[0].Errors != 18 {
		t.Fatalf("EventsPerHour = %+v, %v; want 18 errors", hours, err)
	}
	q := seedProject(t, w)
	if got, _ := db.Read().ProjectByID(ctx, q.ID); got.Number <= 0 {
		t.Fatalf("project number = %d", got.Number)
	}
	first, _ := db.Read().ProjectByID(ctx, p.ID)
	if second, _ := db.Read().ProjectByID(ctx, q.ID); second.Number <= first.Number {
		t.Fatalf("project numbers %d then %d, want growing", first.Number, second.Number)
	}
}

// contractCommits: a queue transaction waits for the disk, a redone one
// commits (and rolls back) like any other, the advisory locks hold inside
// a transaction, and the schema is migrated to this build's latest.
func contractCommits(t *testing.T, db *store.DB) {
	ctx := context.Background()
	v, err := db.DurabilitySetting(ctx)
	if want := map[store.Dialect]string{store.SQLite: "2", store.Postgres: "on"}[db.Dialect()]; err != nil || v != want {
		t.Fatalf("durability = %q, %v; want %q", v, err, want)
	}
	p := seedProject(t, db.Write())
	err = db.TxRedone(ctx, func(c *store.Conn) error {
		if err := c.LockProjects(ctx, []string{p.ID, p.ID}); err != nil {
			return err
		}
		if err := c.LockSignUps(ctx); err != nil {
			return err
		}
		if err := c.LockProject(ctx, p.ID); err != nil {
			return err
		}
		return c.AddGroupCount(ctx, seedGroupFor(t, c, p.ID, "redone"), now, 1)
	})
	if err != nil {
		t.Fatalf("TxRedone: %v", err)
	}
	if hours, err := db.Read().EventsPerHour(ctx, p.ID, now.Truncate(time.Hour), now.Truncate(time.Hour).Add(time.Hour)); err != nil || len(hours) != 1 || hours[0].Errors != 1 {
		t.Fatalf("after TxRedone: %+v, %v", hours, err)
	}
	boom := errors.New("boom")
	if err := db.TxRedone(ctx, func(c *store.Conn) error {
		_ = c.AddGroupCount(ctx, seedGroupFor(t, c, p.ID, "rolled back"), now, 1)
		return boom
	}); !errors.Is(err, boom) {
		t.Fatalf("TxRedone = %v, want fn's error", err)
	}
	if hours, err := db.Read().EventsPerHour(ctx, p.ID, now.Truncate(time.Hour), now.Truncate(time.Hour).Add(time.Hour)); err != nil || len(hours) != 1 || hours[0].Errors != 1 {
		t.Fatalf("after a rolled back TxRedone: %+v, %v", hours, err)
	}
	if v, err := db.DurabilitySetting(ctx); err != nil || v != map[store.Dialect]string{store.SQLite: "2", store.Postgres: "on"}[db.Dialect()] {
		t.Fatalf("durability after TxRedone = %q, %v: the lazy commit leaked", v, err)
	}
	s, err := db.Schema(ctx)
	if err != nil || s.Version != s.Latest || s.Latest == 0 || s.Dialect != db.Dialect() {
		t.Fatalf("schema = %+v, %v", s, err)
	}
}
