package store_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// TestFillInfoSummaries checks that filling many summaries at once gives
// each exactly what InfoSummaryDetail gives it: the same services and the
// same top templates in the same order, ties broken by hash.
func TestFillInfoSummaries(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		c := db.Write()
		p, other := seedProject(t, c), seedProject(t, c)
		h0 := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
		tpl := func(hash string, n int64) store.TemplateCount {
			return store.TemplateCount{Hash: hash, Template: "tpl " + hash, Sample: "sample " + hash, Count: n}
		}
		add := func(projectID string, hour int, services map[string]int64, tpls ...store.TemplateCount) {
			t.Helper()
			var events int64
			for _, x := range tpls {
				events += x.Count
			}
			d := store.InfoDelta{ProjectID: projectID, WindowStart: h0.Add(time.Duration(hour) * time.Hour),
				WindowEnd: h0.Add(time.Duration(hour+1) * time.Hour), Events: events, Services: services, Templates: tpls}
			if _, err := c.AddInfo(ctx, d, id.New(id.InfoSummary), now); err != nil {
				t.Fatalf("AddInfo: %v", err)
			}
		}
		// Hour 0: eight templates, more than top, with a five-way tie of 7
		// across the cut, added out of hash order; a second batch then
		// brings "h1" up into the tie.
		add(p.ID, 0, map[string]int64{"api": 20, "worker": 20, "cron": 3},
			tpl("h9", 7), tpl("h3", 10), tpl("h7", 7), tpl("h1", 2), tpl("h5", 7), tpl("h4", 7), tpl("h8", 1), tpl("h2", 3))
		add(p.ID, 0, map[string]int64{"api": 1}, tpl("h1", 5), tpl("h2", 1))
		// Hour 1: two tied templates, one service.
		add(p.ID, 1, map[string]int64{"api": 4}, tpl("zz", 2), tpl("aa", 2))
		// Hour 2: neither services nor templates.
		add(p.ID, 2, nil)
		// Hour 3: exactly top templates, all tied.
		add(p.ID, 3, map[string]int64{"a": 1, "b": 1},
			tpl("e", 1), tpl("d", 1), tpl("c", 1), tpl("b", 1), tpl("a", 1))
		// Hour 4: many templates, so the cut lands well inside (and AddInfo
		// writes them in several statements: 100, 100, 32, 4 and 1).
		var many []store.TemplateCount
		for i := range 237 {
			many = append(many, tpl(fmt.Sprintf("m%03d", (i*7)%237), int64(i%4)))
		}
		add(p.ID, 4, map[string]int64{"api": 237}, many...)
		// Another project's window, not asked for: nothing of it may leak.
		add(other.ID, 0, map[string]int64{"api": 99}, tpl("h3", 99), tpl("x", 1000))

		r := db.Read()
		list, err := r.ListInfoSummaries(ctx, p.ID, nil, nil, "", 100)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 5 {
			t.Fatalf("%d summaries, want 5", len(list))
		}
		// FillInfoSummaries on this database, and the ROW_NUMBER query
		// (PostgreSQL's path) forced on both.
		fills := map[string]func(context.Context, []store.InfoSummary, int) error{
			"FillInfoSummaries": r.FillInfoSummaries, "windowed": r.FillInfoSummariesWindowed,
		}
		for name, fill := range fills {
			for _, top := range []int{1, 5, 6, 100} {
				got := append([]store.InfoSummary(nil), list...)
				if err := fill(ctx, got, top); err != nil {
					t.Fatalf("%s(top %d): %v", name, top, err)
				}
				for i, v := range got {
					want, err := r.InfoSummaryDetail(ctx, v.ID, top)
					if err != nil {
						t.Fatal(err)
					}
					if !reflect.DeepEqual(v, want) {
						t.Errorf("%s, top %d, window %d: batched\n%+v\nInfoSummaryDetail\n%+v", name, top, i, v, want)
					}
				}
			}
		}

		// The order itself, not only agreement: count descending, then hash.
		byStart := map[time.Time]store.InfoSummary{}
		got := append([]store.InfoSummary(nil), list...)
		if err := r.FillInfoSummaries(ctx, got, 5); err != nil {
			t.Fatal(err)
		}
		windowed := append([]store.InfoSummary(nil), list...)
		if err := r.FillInfoSummariesWindowed(ctx, windowed, 5); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, windowed) {
			t.Errorf("FillInfoSummaries\n%+v\nwindowed\n%+v", got, windowed)
		}
		for _, v := range got {
			byStart[v.WindowStart] = v
		}
		hashes := func(v store.InfoSummary) []string {
			var out []string
			for _, x := range v.Top {
				out = append(out, x.Hash)
			}
			return out
		}
		for hour, want := range map[int][]string{
			0: {"h3", "h1", "h4", "h5", "h7"},
			1: {"aa", "zz"},
			2: nil,
			3: {"a", "b", "c", "d", "e"},
		} {
			if got := hashes(byStart[h0.Add(time.Duration(hour)*time.Hour)]); !reflect.DeepEqual(got, want) {
				t.Errorf("hour %d: top %v, want %v", hour, got, want)
			}
		}
		// Every one of hour 4's templates was written, with its count.
		all, err := r.InfoSummaryDetail(ctx, byStart[h0.Add(4*time.Hour)].ID, 1000)
		if err != nil {
			t.Fatal(err)
		}
		stored := map[string]int64{}
		for _, x := range all.Top {
			stored[x.Hash] = x.Count
		}
		wantMany := map[string]int64{}
		for _, x := range many {
			wantMany[x.Hash] = x.Count
		}
		if !reflect.DeepEqual(stored, wantMany) {
			t.Errorf("hour 4: %d templates stored, want %d", len(stored), len(wantMany))
		}
		if s := byStart[h0].Services; !reflect.DeepEqual(s, map[string]int64{"api": 21, "worker": 20, "cron": 3}) {
			t.Errorf("hour 0 services %v", s)
		}
		if v := byStart[h0.Add(2*time.Hour)]; v.Services == nil || len(v.Services) != 0 || v.Top != nil {
			t.Errorf("empty window: services %#v, top %#v", v.Services, v.Top)
		}

		// A summary listed twice is filled at both places; an empty list
		// is no query and no error.
		for name, fill := range fills {
			twice := []store.InfoSummary{list[0], list[0]}
			if err := fill(ctx, twice, 5); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(twice[0], twice[1]) || len(twice[0].Top) == 0 {
				t.Errorf("%s twice: %+v", name, twice)
			}
			if err := fill(ctx, nil, 5); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestInfoCountMigration: summaries written when event_count also counted
// debug events are corrected by migration 00011 (CONTRACT 7).
func TestInfoCountMigration(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		prj := seedProject(t, db.Write()) // before: projects have no number at version 10
		if err := db.MigrateDownTo(ctx, 10); err != nil {
			t.Fatal(err)
		}
		ws := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
		// 37 info and 4 debug events, as the old code counted them.
		d := store.InfoDelta{ProjectID: prj.ID, WindowStart: ws, WindowEnd: ws.Add(time.Hour), Events: 41, Debug: 4, Services: map[string]int64{"api": 41}}
		sid, err := db.Write().AddInfo(ctx, d, id.NewAt(id.InfoSummary, ws), ws)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		s, err := db.Read().InfoSummaryDetail(ctx, sid, 5)
		if err != nil {
			t.Fatal(err)
		}
		if s.EventCount != 37 || s.DebugCount != 4 {
			t.Fatalf("after migration: event_count %d, debug_count %d; want 37 and 4", s.EventCount, s.DebugCount)
		}
	})
}
