package store_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// BenchmarkEventsPerHour reads the overview's 14 days of hours for a project
// whose 1,000 groups each have a count in every one of those hours (336,000
// group_hours rows, the worst case; a second project of 100 groups beside
// it), and one INFO window an hour. Before project_hours (migration 00008)
// the same chart summed the group_hours rows: 117 ms on SQLite and 102 ms
// on PostgreSQL; now it reads 336 rows of each table.
//
//	go test -run '^$' -bench EventsPerHour -benchtime 200x ./internal/store/
func BenchmarkEventsPerHour(b *testing.B) {
	for _, d := range storetest.Dialects {
		b.Run(string(d), func(b *testing.B) {
			if d == store.Postgres {
				storetest.PostgresBase(b)
			}
			db := storetest.Open(b, d)
			ctx := context.Background()
			end := now.Truncate(time.Hour)
			start := end.Add(-14 * 24 * time.Hour)
			var p store.Project
			for k := range 2 {
				prj := seedProjectB(b, db.Write())
				if k == 0 {
					p = prj
				}
				groups := make([]string, 1000-900*k)
				for g := range groups {
					groups[g] = seedGroupB(b, db.Write(), prj.ID, "fp"+strconv.Itoa(g))
				}
				// One transaction an hour with a count for every group, as
				// the processor writes them: each project hour is written once.
				for h := start; h.Before(end); h = h.Add(time.Hour) {
					counts := make([]store.GroupCount, len(groups))
					for g, gid := range groups {
						counts[g] = store.GroupCount{GroupID: gid, ProjectID: prj.ID, Minute: h, N: 1}
					}
					if err := db.Tx(ctx, func(c *store.Conn) error { return c.AddGroupCounts(ctx, counts) }); err != nil {
						b.Fatal(err)
					}
				}
				for h := start; h.Before(end); h = h.Add(time.Hour) {
					chartInfo(b, db.Write(), prj.ID, h, time.Hour, 5)
				}
			}
			b.ResetTimer()
			for b.Loop() {
				got, err := db.Read().EventsPerHour(ctx, p.ID, start, end)
				if err != nil || len(got) != 336 || got[0].Errors != 1000 || got[335].Info != 5 {
					b.Fatalf("EventsPerHour: %d hours, first %+v, %v", len(got), got[0], err)
				}
			}
		})
	}
}

// seedProjectB is seedProject for benchmarks.
func seedProjectB(b testing.TB, c *store.Conn) store.Project {
	b.Helper()
	ctx := context.Background()
	o := store.Org{ID: id.New(id.Org), Name: "Acme", Plan: "team", CreatedAt: now, UpdatedAt: now}
	p := store.Project{ID: id.New(id.Project), OrgID: o.ID, Name: "web", CreatedAt: now, UpdatedAt: now}
	if err := c.CreateOrg(ctx, o); err != nil {
		b.Fatal(err)
	}
	if err := c.CreateProject(ctx, p); err != nil {
		b.Fatal(err)
	}
	return p
}

// seedGroupB is seedGroupFor for benchmarks.
func seedGroupB(b testing.TB, c *store.Conn, projectID, fp string) string {
	b.Helper()
	g := store.Group{ID: id.New(id.Group), ProjectID: projectID, Service: "s", Fingerprint: fp, Status: store.GroupUnresolved, FirstSeen: now, LastSeen: now, UpdatedAt: now}
	if err := c.InsertGroup(context.Background(), g); err != nil {
		b.Fatal(err)
	}
	return g.ID
}
