package store_test

import (
	"context"
	"testing"

	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// TestFacetsWithoutRowidMigration: migration 00050 keeps the value counts
// and event ids when it rebuilds their SQLite tables WITHOUT ROWID, and
// when it rolls back; counting goes on after it.
func TestFacetsWithoutRowidMigration(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		c := db.Write()
		p := seedProject(t, c)
		g := seedGroupFor(t, c, p.ID, "a")
		add := func(n int64) {
			t.Helper()
			if err := db.Tx(ctx, func(c *store.Conn) error {
				return c.AddFacets(ctx, []store.FacetCount{{GroupID: g, Key: "user.id", Value: "u1", N: n}})
			}); err != nil {
				t.Fatal(err)
			}
		}
		add(2)
		if err := c.AddEventRefs(ctx, []store.EventRef{{Kind: store.RefTrace, Ref: "t1", ProjectID: p.ID, GroupID: g, LastSeen: now}}); err != nil {
			t.Fatal(err)
		}
		withoutRowid := func() int {
			t.Helper()
			if db.Dialect() != store.SQLite {
				return 2
			}
			var n int
			if err := db.Write().QueryRowForTest(ctx, `SELECT COUNT(*) FROM sqlite_master WHERE name IN ('group_facets', 'event_refs')
				AND sql LIKE '%WITHOUT ROWID%'`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		check := func(when string, count int64, rowless int) {
			t.Helper()
			fs, err := db.Read().GroupFacets(ctx, g, []string{"user.id"}, 10)
			if err != nil || len(fs) != 1 || fs[0].Total != count {
				t.Errorf("%s: facets = %+v, %v; want user.id u1 %d times", when, fs, err, count)
			}
			if ids, err := db.Read().LookupRefs(ctx, p.OrgID, store.RefTrace, "t1", 10); err != nil || len(ids) != 1 || ids[0] != g {
				t.Errorf("%s: lookup = %v, %v; want [%s]", when, ids, err, g)
			}
			if got := withoutRowid(); db.Dialect() == store.SQLite && got != rowless {
				t.Errorf("%s: %d of the tables are WITHOUT ROWID, want %d", when, got, rowless)
			}
		}
		check("migrated", 2, 2)
		if err := db.MigrateDownTo(ctx, 49); err != nil {
			t.Fatal(err)
		}
		check("rolled back", 2, 0)
		if _, err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		add(3)
		check("migrated again", 5, 2)
	})
}
