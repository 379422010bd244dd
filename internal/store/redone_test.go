package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// syncSetting reads how c's commits wait for the disk: SQLite's
// synchronous (1 NORMAL, 2 FULL), PostgreSQL's synchronous_commit.
func syncSetting(t *testing.T, c *store.Conn, d store.Dialect) string {
	t.Helper()
	q := `PRAGMA synchronous`
	if d == store.Postgres {
		q = `SHOW synchronous_commit`
	}
	var v string
	if err := c.QueryRowForTest(context.Background(), q).Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestTxRedone: a redone transaction commits (or rolls back) like any
// other, without waiting for the disk inside it, and the writer's later
// transactions and statements wait for the disk again, on both
// databases: a 202 of ingestion still means durable.
func TestTxRedone(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		d := db.Dialect()
		lazy, full := "1", "2"
		if d == store.Postgres {
			lazy = "off"
			if err := db.Tx(ctx, func(c *store.Conn) error { full = syncSetting(t, c, d); return nil }); err != nil {
				t.Fatal(err)
			}
			if full == lazy {
				t.Fatalf("the test database commits with synchronous_commit %s already", full)
			}
		}
		err := db.TxRedone(ctx, func(c *store.Conn) error {
			if got := syncSetting(t, c, d); got != lazy {
				t.Errorf("inside: %s, want %s", got, lazy)
			}
			seedUser(t, c, "kept@example.com")
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Read().UserByEmail(ctx, "kept@example.com"); err != nil {
			t.Errorf("the redone transaction's user: %v", err)
		}
		boom := errors.New("boom")
		err = db.TxRedone(ctx, func(c *store.Conn) error { seedUser(t, c, "gone@example.com"); return boom })
		if !errors.Is(err, boom) {
			t.Fatalf("error %v, want boom", err)
		}
		if _, err := db.Read().UserByEmail(ctx, "gone@example.com"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("the rolled back user: %v, want not found", err)
		}
		if err := db.Tx(ctx, func(c *store.Conn) error {
			if got := syncSetting(t, c, d); got != full {
				t.Errorf("a transaction after: %s, want %s", got, full)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if got := syncSetting(t, db.Write(), d); got != full {
			t.Errorf("a statement after: %s, want %s", got, full)
		}
	})
}

// TestWriterPragmas: SQLite's writer keeps 32 MiB of pages (the value
// counts' upserts read them back from the OS with the default 2 MiB) and
// its temporary files, the statement journals of the multi-row upserts
// among them, in memory; its readers keep SQLite's defaults.
func TestWriterPragmas(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		if db.Dialect() != store.SQLite {
			return
		}
		ctx := context.Background()
		for _, c := range []struct {
			pragma         string
			writer, reader int64
		}{
			{"cache_size", -32768, -2000},
			{"temp_store", 2, 0}, // 2 is MEMORY, 0 the default
		} {
			var w, r int64
			if err := db.Tx(ctx, func(conn *store.Conn) error {
				return conn.QueryRowForTest(ctx, `PRAGMA `+c.pragma).Scan(&w)
			}); err != nil {
				t.Fatal(err)
			}
			if err := db.Read().QueryRowForTest(ctx, `PRAGMA `+c.pragma).Scan(&r); err != nil {
				t.Fatal(err)
			}
			if w != c.writer || r != c.reader {
				t.Errorf("%s: writer %d, reader %d; want %d and %d", c.pragma, w, r, c.writer, c.reader)
			}
		}
	})
}
