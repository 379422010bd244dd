package store_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// TestEventRefsKeptWithinRetention: ids are found by organization while
// seen within ERRATA_RETENTION_DAYS, and pruned after.
func TestEventRefsKeptWithinRetention(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		c := db.Write()
		p, other := seedProject(t, c), seedProject(t, c)
		g, og := seedGroupFor(t, c, p.ID, "a"), seedGroupFor(t, c, other.ID, "a")
		old := now.Add(-100 * 24 * time.Hour)
		if err := c.AddEventRefs(ctx, []store.EventRef{
			{store.RefTrace, "t1", p.ID, g, now}, {store.RefTrace, "t1", p.ID, g, old}, {store.RefTrace, "t1", other.ID, og, now},
			{store.RefTrace, "t-old", p.ID, g, old}, {store.RefEvent, "e1", p.ID, g, now},
		}); err != nil {
			t.Fatal(err)
		}
		look := func(kind, ref string) []string {
			t.Helper()
			ids, err := db.Read().LookupRefs(ctx, p.OrgID, kind, ref, 10)
			if err != nil {
				t.Fatal(err)
			}
			return ids
		}
		if got := look(store.RefTrace, "t1"); !slices.Equal(got, []string{g}) {
			t.Errorf("t1 = %v, want only the organization's group", got)
		}
		if got := look(store.RefTrace, "e1"); len(got) != 0 {
			t.Errorf("an event id found as a trace id: %v", got)
		}
		if _, err := c.Prune(ctx, store.DefaultRetention, now); err != nil {
			t.Fatal(err)
		}
		if got := look(store.RefTrace, "t-old"); len(got) != 0 {
			t.Errorf("t-old after retention = %v", got)
		}
		if got := look(store.RefTrace, "t1"); len(got) != 1 {
			t.Errorf("t1 after retention = %v, want kept (seen now)", got)
		}
	})
}

// TestLookupLatestGroupsFirst: groups whose events carried an id in one
// receipt (one last_seen) come newest group first, so that the limit cuts
// the oldest.
func TestLookupLatestGroupsFirst(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		c := db.Write()
		p := seedProject(t, c)
		var refs []store.EventRef
		var groups []string
		for _, fp := range []string{"a", "b", "c"} {
			g := seedGroupFor(t, c, p.ID, fp)
			groups = append(groups, g)
			refs = append(refs, store.EventRef{store.RefTrace, "t1", p.ID, g, now})
		}
		if err := c.AddEventRefs(ctx, refs); err != nil {
			t.Fatal(err)
		}
		got, err := db.Read().LookupRefs(ctx, p.OrgID, store.RefTrace, "t1", 2)
		if err != nil {
			t.Fatal(err)
		}
		if want := []string{groups[2], groups[1]}; !slices.Equal(got, want) {
			t.Errorf("lookup of three groups seen at once, limit 2 = %v, want the two newest %v", got, want)
		}
	})
}
