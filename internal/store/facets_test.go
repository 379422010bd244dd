package store_test

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// TestFacetCountsAndUsers: values are counted per group and key, at most
// MaxFacetValues distinct a key a group (the rest under (other)), and
// user_count is exact up to the cap and within 2 % past it.
func TestFacetCountsAndUsers(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		c := db.Write()
		p := seedProject(t, c)
		g, other := seedGroupFor(t, c, p.ID, "a"), seedGroupFor(t, c, p.ID, "b")
		add := func(counts []store.FacetCount) {
			t.Helper()
			if err := db.Tx(ctx, func(c *store.Conn) error { return c.AddFacets(ctx, counts) }); err != nil {
				t.Fatalf("AddFacets: %v", err)
			}
		}
		users := func(id string) int64 {
			t.Helper()
			gr, err := db.Read().GroupByID(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			return gr.UserCount
		}
		add([]store.FacetCount{{g, "environment", "production", 3}, {g, "environment", "staging", 1}, {other, "environment", "staging", 5},
			{g, "user.id", "u1", 2}, {g, "user.id", "u2", 1}})
		add([]store.FacetCount{{g, "environment", "production", 2}, {g, "user.id", "u1", 1}})
		fs, err := db.Read().GroupFacets(ctx, g, []string{"environment", "user.id", "nothing"}, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(fs) != 3 || fs[0].Total != 6 || len(fs[0].Values) != 2 || fs[0].Values[0] != (store.FacetValue{Value: "production", Count: 5}) ||
			fs[1].Total != 4 || fs[2].Total != 0 || len(fs[2].Values) != 0 {
			t.Errorf("facets = %+v", fs)
		}
		if n := users(g); n != 2 {
			t.Errorf("user_count = %d, want 2", n)
		}
		// Past the cap: 3,000 distinct users in batches of 500.
		const total = 3000
		for start := 0; start < total; start += 500 {
			var counts []store.FacetCount
			for i := start; i < start+500; i++ {
				counts = append(counts, store.FacetCount{GroupID: other, Key: "user.id", Value: fmt.Sprintf("user-%d", i), N: 1})
			}
			add(counts)
			if start == 500 {
				if n := users(other); n != 1000 {
					t.Errorf("user_count at the cap = %d, want 1000 exactly", n)
				}
			}
		}
		// Users seen again are not counted twice.
		add([]store.FacetCount{{other, "user.id", "user-5", 1}, {other, "user.id", "user-2999", 1}})
		if n := users(other); math.Abs(float64(n)-total)/total > 0.02 {
			t.Errorf("user_count = %d, want %d within 2 %%", n, total)
		}
		fs, err = db.Read().GroupFacets(ctx, other, []string{"user.id"}, 10)
		if err != nil {
			t.Fatal(err)
		}
		if fs[0].Total != total+2 || fs[0].Values[0] != (store.FacetValue{Value: store.FacetOther, Count: total - store.MaxFacetValues + 1}) {
			t.Errorf("user.id facet = %+v", fs[0])
		}
	})
}

// TestFacetCapCountsNewValuesOnce: values upserted without a check (their
// key far from the cap) are counted as kept values once, whether repeated
// in a call, seen again in a later one or new, so that the cap falls on
// exactly the MaxFacetValues-th distinct value.
func TestFacetCapCountsNewValuesOnce(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		c := db.Write()
		p := seedProject(t, c)
		g := seedGroupFor(t, c, p.ID, "a")
		add := func(counts []store.FacetCount) {
			t.Helper()
			if err := db.Tx(ctx, func(c *store.Conn) error { return c.AddFacets(ctx, counts) }); err != nil {
				t.Fatalf("AddFacets: %v", err)
			}
		}
		// 998 distinct values over four calls, each call repeating some of
		// the previous one's and one value twice.
		for start := 0; start < 998; start += 250 {
			var counts []store.FacetCount
			for i := max(start-10, 0); i < min(start+250, 998); i++ {
				counts = append(counts, store.FacetCount{GroupID: g, Key: "user.id", Value: fmt.Sprintf("u%d", i), N: 1})
			}
			counts = append(counts, store.FacetCount{GroupID: g, Key: "user.id", Value: fmt.Sprintf("u%d", start), N: 1})
			add(counts)
		}
		if gr, err := db.Read().GroupByID(ctx, g); err != nil || gr.UserCount != 998 {
			t.Fatalf("user_count = %d, %v; want 998", gr.UserCount, err)
		}
		// Near the cap: two kept values again and three new ones, of which
		// two are kept and the third is counted under (other).
		add([]store.FacetCount{{g, "user.id", "u0", 1}, {g, "user.id", "u997", 1},
			{g, "user.id", "x1", 1}, {g, "user.id", "x2", 1}, {g, "user.id", "x3", 4}})
		fs, err := db.Read().GroupFacets(ctx, g, []string{"user.id"}, 2000)
		if err != nil {
			t.Fatal(err)
		}
		kept, other := 0, int64(0)
		for _, v := range fs[0].Values {
			if v.Value == store.FacetOther {
				other = v.Count
			} else {
				kept++
			}
		}
		if kept != store.MaxFacetValues || other != 4 {
			t.Errorf("kept %d values and (other) %d; want %d and 4", kept, other, store.MaxFacetValues)
		}
		// 1,001 users: the kept ones and x3, in the sketch.
		if gr, err := db.Read().GroupByID(ctx, g); err != nil || gr.UserCount < store.MaxFacetValues || math.Abs(float64(gr.UserCount)-1001)/1001 > 0.02 {
			t.Errorf("user_count = %d, %v; want 1001 within 2 %%", gr.UserCount, err)
		}
	})
}

// TestProjectFacetKeys: the keys of a project's newest groups, in order and
// without repeats; another project's keys are not among them.
func TestProjectFacetKeys(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		c := db.Write()
		p, q := seedProject(t, c), seedProject(t, c)
		group := func(projectID string, seen time.Duration, keys ...string) {
			t.Helper()
			g := store.Group{ID: id.New(id.Group), ProjectID: projectID, Service: "s", Fingerprint: id.New(id.Group), Status: store.GroupUnresolved,
				FirstSeen: now, LastSeen: now.Add(seen), UpdatedAt: now}
			if err := c.InsertGroup(ctx, g); err != nil {
				t.Fatal(err)
			}
			var counts []store.FacetCount
			for _, k := range keys {
				counts = append(counts, store.FacetCount{GroupID: g.ID, Key: k, Value: "v", N: 1})
			}
			if err := db.Tx(ctx, func(c *store.Conn) error { return c.AddFacets(ctx, counts) }); err != nil {
				t.Fatal(err)
			}
		}
		group(p.ID, -time.Hour, "old_key", "region")
		group(p.ID, 0, "region", "customer.tier")
		group(p.ID, time.Minute, "service", "customer.tier")
		group(q.ID, 2*time.Minute, "other_project_key")
		for _, tc := range []struct {
			recent, limit int
			want          string
		}{
			{10, 10, "customer.tier region service old_key"},
			{2, 10, "customer.tier region service"},
			{10, 2, "customer.tier old_key"},
		} {
			keys, err := db.Read().ProjectFacetKeys(ctx, p.ID, tc.recent, tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			slices.Sort(keys)
			want := strings.Fields(tc.want)
			slices.Sort(want)
			if !slices.Equal(keys, want) {
				t.Errorf("ProjectFacetKeys(%d groups, %d keys) = %v, want %v", tc.recent, tc.limit, keys, want)
			}
		}
	})
}
