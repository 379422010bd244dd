package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// chartInfo adds n INFO events to projectID's window [start, start+length).
func chartInfo(t testing.TB, c *store.Conn, projectID string, start time.Time, length time.Duration, n int64) {
	t.Helper()
	d := store.InfoDelta{ProjectID: projectID, WindowStart: start, WindowEnd: start.Add(length), Events: n}
	if _, err := c.AddInfo(context.Background(), d, id.New(id.InfoSummary), now); err != nil {
		t.Fatalf("AddInfo: %v", err)
	}
}

func TestEventsPerHour(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		c := db.Write()
		p, other := seedProject(t, c), seedProject(t, c)
		h0 := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
		g1, g2 := seedGroupFor(t, c, p.ID, "a"), seedGroupFor(t, c, p.ID, "b")
		og := seedGroupFor(t, c, other.ID, "a")
		for _, x := range []struct {
			group string
			at    time.Time
			n     int
		}{
			{g1, h0.Add(5 * time.Minute), 3},
			{g2, h0.Add(59 * time.Minute), 4},                 // same hour, other group: 7
			{g1, h0.Add(2*time.Hour + 30*time.Minute), 2},     // hour 2
			{g1, h0.Add(-time.Minute), 100},                   // before the range
			{g1, h0.Add(4 * time.Hour), 100},                  // at to: excluded
			{og, h0.Add(time.Hour), 50},                       // another project
			{g2, h0.Add(3*time.Hour + 59*time.Minute), 1},     // hour 3
			{g2, h0.Add(3*time.Hour + 59*time.Minute + 1), 1}, // same minute
		} {
			if err := c.AddGroupCount(ctx, x.group, x.at, x.n); err != nil {
				t.Fatal(err)
			}
		}
		// INFO: 15-minute windows sum into their hour; a 2-hour window
		// counts in its first hour.
		chartInfo(t, c, p.ID, h0, 15*time.Minute, 10)
		chartInfo(t, c, p.ID, h0.Add(45*time.Minute), 15*time.Minute, 5)
		chartInfo(t, c, p.ID, h0.Add(2*time.Hour), 2*time.Hour, 40)
		chartInfo(t, c, p.ID, h0.Add(-time.Hour), time.Hour, 1000)  // before
		chartInfo(t, c, p.ID, h0.Add(4*time.Hour), time.Hour, 1000) // at to
		chartInfo(t, c, other.ID, h0.Add(time.Hour), time.Hour, 70)

		// from inside the first hour still starts there; to at an hour's
		// start excludes that hour.
		got, err := db.Read().EventsPerHour(ctx, p.ID, h0.Add(20*time.Minute), h0.Add(4*time.Hour))
		if err != nil {
			t.Fatalf("EventsPerHour: %v", err)
		}
		want := []store.HourCount{
			{Hour: h0, Errors: 7, Info: 15},
			{Hour: h0.Add(time.Hour)},
			{Hour: h0.Add(2 * time.Hour), Errors: 2, Info: 40},
			{Hour: h0.Add(3 * time.Hour), Errors: 2},
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("EventsPerHour =\n%v, want\n%v", got, want)
		}
		// to inside an hour includes that hour.
		if got, err := db.Read().EventsPerHour(ctx, p.ID, h0, h0.Add(3*time.Hour+time.Second)); err != nil || len(got) != 4 {
			t.Fatalf("to inside an hour: %d hours, %v; want 4", len(got), err)
		}
		if got, err := db.Read().EventsPerHour(ctx, p.ID, h0, h0); err != nil || len(got) != 0 {
			t.Fatalf("empty range = %v, %v", got, err)
		}
		empty, err := db.Read().EventsPerHour(ctx, seedProject(t, c).ID, h0, h0.Add(24*time.Hour))
		if err != nil || len(empty) != 24 || empty[23] != (store.HourCount{Hour: h0.Add(23 * time.Hour)}) {
			t.Fatalf("new project = %v, %v; want 24 zero hours", empty, err)
		}
		if _, err := db.Read().EventsPerHour(ctx, p.ID, h0, h0.Add(store.MaxChartHours*time.Hour+time.Hour)); err == nil {
			t.Fatalf("a range over MaxChartHours is accepted")
		}
	})
}

// TestProjectHoursFollowGroupHours checks that the batched counts of the
// processor (AddGroupCounts: multi-row statements on PostgreSQL) keep the
// project hours equal to the sum of their groups' hours, per project, and
// that pruning drops old project hours with the group hours.
func TestProjectHoursFollowGroupHours(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		c := db.Write()
		p, other := seedProject(t, c), seedProject(t, c)
		a, b, o := seedGroupFor(t, c, p.ID, "a"), seedGroupFor(t, c, p.ID, "b"), seedGroupFor(t, c, other.ID, "a")
		h0 := time.Date(2026, 11, 22, 5, 0, 0, 0, time.UTC)
		counts := []store.GroupCount{
			{GroupID: a, Minute: h0, N: 1}, {GroupID: a, Minute: h0.Add(time.Minute), N: 2}, {GroupID: b, Minute: h0.Add(30 * time.Minute), N: 4},
			{GroupID: o, Minute: h0, N: 8}, {GroupID: b, Minute: h0.Add(time.Hour), N: 16},
		}
		withProject := make([]store.GroupCount, len(counts)) // the processor's counts name the project
		for i, gc := range counts {
			gc.ProjectID = p.ID
			if gc.GroupID == o {
				gc.ProjectID = other.ID
			}
			withProject[i] = gc
		}
		// The second time updates the rows the first created.
		for _, batch := range [][]store.GroupCount{counts, withProject} {
			if err := db.Tx(ctx, func(c *store.Conn) error { return c.AddGroupCounts(ctx, batch) }); err != nil {
				t.Fatalf("AddGroupCounts: %v", err)
			}
		}
		for _, x := range []struct {
			project string
			want    [2]int64
		}{{p.ID, [2]int64{14, 32}}, {other.ID, [2]int64{16, 0}}} {
			got, err := db.Read().EventsPerHour(ctx, x.project, h0, h0.Add(2*time.Hour))
			if err != nil || len(got) != 2 || got[0].Errors != x.want[0] || got[1].Errors != x.want[1] {
				t.Errorf("EventsPerHour(%s) = %v, %v; want errors %v", x.project, got, err, x.want)
			}
		}
		if _, err := c.Prune(ctx, store.Retention{Minutes: time.Hour, Hours: time.Hour, Records: time.Hour}, h0.Add(2*time.Hour)); err != nil {
			t.Fatalf("Prune: %v", err)
		}
		got, err := db.Read().EventsPerHour(ctx, p.ID, h0, h0.Add(2*time.Hour))
		if err != nil || got[0].Errors != 0 || got[1].Errors != 32 {
			t.Errorf("after pruning hours before %v: %v, %v; want errors [0 32]", h0.Add(time.Hour), got, err)
		}
	})
}

func TestClosedInfoSummaries(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		c := db.Write()
		p, other := seedProject(t, c), seedProject(t, c)
		h0 := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
		for i := range 5 { // windows [h0-1h, h0) ... [h0+3h, h0+4h)
			chartInfo(t, c, p.ID, h0.Add(time.Duration(i-1)*time.Hour), time.Hour, int64(i+1))
		}
		chartInfo(t, c, other.ID, h0, time.Hour, 100)
		starts := func(list []store.InfoSummary) []int {
			var out []int
			for _, v := range list {
				out = append(out, int(v.WindowStart.Sub(h0)/time.Hour))
			}
			return out
		}
		// (h0+30m, h0+3h]: the windows ending at h0+1h, h0+2h and h0+3h.
		from, to := h0.Add(30*time.Minute), h0.Add(3*time.Hour)
		all, err := db.Read().ClosedInfoSummaries(ctx, p.ID, from, to, to, 10)
		if err != nil || fmt.Sprint(starts(all)) != "[2 1 0]" {
			t.Fatalf("ClosedInfoSummaries = %v, %v; want window starts [2 1 0] hours", starts(all), err)
		}
		first, err := db.Read().ClosedInfoSummaries(ctx, p.ID, from, to, to, 2)
		if err != nil || fmt.Sprint(starts(first)) != "[2 1]" {
			t.Fatalf("first page = %v, %v", starts(first), err)
		}
		rest, err := db.Read().ClosedInfoSummaries(ctx, p.ID, from, to, first[1].WindowStart, 2)
		if err != nil || fmt.Sprint(starts(rest)) != "[0]" {
			t.Fatalf("second page = %v, %v", starts(rest), err)
		}
	})
}

// TestPruneInChunks: Prune deletes more rows than one chunk in several
// statements and counts them all, keeping the rows retention still keeps.
func TestPruneInChunks(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		c := db.Write()
		p := seedProject(t, c)
		g := seedGroupFor(t, c, p.ID, "a")
		h0 := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
		var counts []store.GroupCount
		for i := range 2600 { // minutes [h0, h0+2600m)
			counts = append(counts, store.GroupCount{GroupID: g, ProjectID: p.ID, Minute: h0.Add(time.Duration(i) * time.Minute), N: 1})
		}
		if err := db.Tx(ctx, func(c *store.Conn) error { return c.AddGroupCounts(ctx, counts) }); err != nil {
			t.Fatal(err)
		}
		now := h0.Add(2600 * time.Minute)
		pruned, err := c.Prune(ctx, store.Retention{Minutes: 100 * time.Minute, Hours: 365 * 24 * time.Hour, Records: time.Hour}, now)
		if err != nil || pruned.Minutes != 2500 {
			t.Fatalf("Prune = %+v, %v; want 2,500 minute counts, in three chunks", pruned, err)
		}
		got, err := db.Read().GroupCountBetween(ctx, g, h0, now)
		if err != nil || got != 100 {
			t.Fatalf("after pruning: %d events counted by minute, %v; want the 100 latest minutes", got, err)
		}
	})
}
