package store_test

import (
	"context"
	"testing"

	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// TestReadyAfterFailedWrites: a database that turned read-only still
// answers a ping, but Ready (behind /readyz) fails once a write failed for
// want of it, by a statement or a transaction, and recovers with the next
// write that succeeds (CONTRACT 7).
func TestReadyAfterFailedWrites(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		if err := db.ExecForTest(ctx, `CREATE TABLE probe_writes (x INTEGER)`); err != nil {
			t.Fatal(err)
		}
		write := func() error { return db.ExecForTest(ctx, `INSERT INTO probe_writes (x) VALUES (1)`) }
		inTx := func() error {
			return db.Tx(ctx, func(c *store.Conn) error { return c.ExecForTest(ctx, `INSERT INTO probe_writes (x) VALUES (2)`) })
		}
		if err := db.Ready(ctx); err != nil {
			t.Fatalf("ready at first: %v", err)
		}
		for name, try := range map[string]func() error{"statement": write, "transaction": inTx} {
			if err := db.SetReadOnlyForTest(ctx, true); err != nil {
				t.Fatal(err)
			}
			if err := try(); !store.IsUnavailable(err) {
				t.Fatalf("%s on a read-only database: %v, want unavailable", name, err)
			}
			if err := db.Ping(ctx); err != nil {
				t.Fatalf("ping: %v (the test wants a database that still answers)", err)
			}
			if err := db.Ready(ctx); err == nil {
				t.Errorf("%s failed for want of a writable database, yet ready", name)
			}
			if err := db.SetReadOnlyForTest(ctx, false); err != nil {
				t.Fatal(err)
			}
			if err := try(); err != nil {
				t.Fatalf("%s once writable again: %v", name, err)
			}
			if err := db.Ready(ctx); err != nil {
				t.Errorf("not ready after a %s succeeded: %v", name, err)
			}
		}
	})
}
