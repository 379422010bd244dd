package store_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// TestUpdateGroupsWritesEachGroup: UpdateGroups leaves every group as
// UpdateGroup would, every mutable field and NULL or not, in statements
// of every length a remainder takes (150 groups: 100, 32, 16 and 2), and
// the groups it was not given as they were; a group that does not exist
// fails the call with ErrNotFound.
func TestUpdateGroupsWritesEachGroup(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		p := seedProject(t, db.Write())
		var want []store.Group
		for i := range 151 {
			g, err := db.Write().GroupByID(ctx, seedGroupFor(t, db.Write(), p.ID, fmt.Sprint("fp", i)))
			if err != nil {
				t.Fatal(err)
			}
			want = append(want, g)
		}
		untouched := want[150]
		want = want[:150]
		at := time.UnixMilli(1_790_000_000_123).UTC()
		for i := range want {
			g := &want[i]
			g.Title, g.ExceptionType, g.Culprit = fmt.Sprint("title ", i), "TypeError", fmt.Sprint("app.js in f", i)
			g.Level, g.Status, g.EventCount = 17+i%4, []string{store.GroupResolved, store.GroupIgnored, store.GroupUnresolved}[i%3], int64(1000+i)
			g.FirstSeen, g.LastSeen, g.UpdatedAt = at.Add(-time.Hour), at.Add(time.Duration(i)*time.Millisecond), at
			g.Environments, g.Releases = []string{"production", fmt.Sprint("env", i)}, []string{fmt.Sprint("1.", i)}
			g.FirstRelease, g.LastRelease, g.LastEnvironment = "1.0", fmt.Sprint("1.", i), "production"
			g.SampleMessage, g.SearchMessage, g.LastTraceID = fmt.Sprint("boom ", i), fmt.Sprint("boom\x1fbang ", i), fmt.Sprintf("%032x", i)
			g.IgnoreRule, g.ResolvedIn = "", ""
			if i%2 == 0 { // every other group has the nullable fields set, the first among them
				resolved, until := at.Add(-time.Minute), at.Add(24*time.Hour)
				g.TicketID, g.ResolvedAt, g.IgnoreUntil = fmt.Sprint("tkt_", i), &resolved, &until
				g.AssigneeID, g.MergedInto, g.IgnoreRule, g.ResolvedIn = "mem_a", fmt.Sprint("grp_x", i), `{"count":10}`, "2.0"
			}
		}
		if err := db.Tx(ctx, func(c *store.Conn) error { return c.UpdateGroups(ctx, want) }); err != nil {
			t.Fatalf("UpdateGroups: %v", err)
		}
		for _, w := range append(want, untouched) {
			got, err := db.Write().GroupByID(ctx, w.ID)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, w) {
				t.Fatalf("group %s after UpdateGroups:\n got %+v\nwant %+v", w.ID, got, w)
			}
		}

		gone := want[3]
		gone.ID = "grp_gone"
		err := db.Tx(ctx, func(c *store.Conn) error { return c.UpdateGroups(ctx, []store.Group{want[0], gone, want[5]}) })
		if !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("UpdateGroups with a group that does not exist = %v, want ErrNotFound", err)
		}
	})
}

// TestInsertGroupEventsKeepsOrderAndFields: InsertGroupEvents stores every
// event whole, in its order (each group's samples list newest first as
// given last), in statements of every length a remainder takes (135
// events: 100, 32, 2 and 1).
func TestInsertGroupEventsKeepsOrderAndFields(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		p := seedProject(t, db.Write())
		groups := []string{seedGroupFor(t, db.Write(), p.ID, "a"), seedGroupFor(t, db.Write(), p.ID, "b"), seedGroupFor(t, db.Write(), p.ID, "c")}
		at := time.UnixMilli(1_790_000_000_123).UTC()
		var es []store.GroupEvent
		for i := range 135 {
			e := store.GroupEvent{GroupID: groups[i%3], First: i < 3, ReceivedAt: at.Add(time.Duration(i) * time.Second),
				Timestamp: at.Add(time.Duration(i) * time.Millisecond), Level: 17 + i%4, Message: fmt.Sprint("boom ", i),
				StackTrace: fmt.Sprint("at f", i), Environment: "production", Release: fmt.Sprint("1.", i),
				TraceID: fmt.Sprintf("%032x", i), SpanID: fmt.Sprintf("%016x", i), Attributes: fmt.Sprintf(`{"i":%d}`, i)}
			if i%2 == 0 {
				e.Symbolication, e.Detail = `{"frames":1}`, fmt.Sprintf(`{"breadcrumbs":[{"message":"m%d"}]}`, i)
			}
			es = append(es, e)
		}
		if err := db.Tx(ctx, func(c *store.Conn) error { return c.InsertGroupEvents(ctx, es) }); err != nil {
			t.Fatalf("InsertGroupEvents: %v", err)
		}
		for gi, g := range groups {
			got, err := db.Write().ListGroupEvents(ctx, g, 0, 100)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 45 {
				t.Fatalf("group %d has %d events, want 45", gi, len(got))
			}
			for k, e := range got { // newest first: the last given first
				want := es[3*(44-k)+gi]
				e.ID = 0
				if !reflect.DeepEqual(e, want) {
					t.Fatalf("group %d, event %d:\n got %+v\nwant %+v", gi, k, e, want)
				}
			}
		}
	})
}

// TestGroupCountsBetweenAsOneByOne: GroupCountsBetween answers each
// window, in order, what GroupCountBetween answers for it: windows of one
// group and of several, empty ones and a group with no counts, 135 of them
// (statements of 100, 32, 2 and 1 rows on PostgreSQL).
func TestGroupCountsBetweenAsOneByOne(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		p := seedProject(t, db.Write())
		groups := []string{seedGroupFor(t, db.Write(), p.ID, "a"), seedGroupFor(t, db.Write(), p.ID, "b"), seedGroupFor(t, db.Write(), p.ID, "c")}
		base := time.UnixMilli(1_790_000_000_000).UTC().Truncate(time.Hour)
		var counts []store.GroupCount
		for m := range 30 {
			for gi, g := range groups[:2] {
				counts = append(counts, store.GroupCount{GroupID: g, ProjectID: p.ID, Minute: base.Add(time.Duration(m) * time.Minute), N: (m+1)*(gi+1) + m%7})
			}
		}
		if err := db.Tx(ctx, func(c *store.Conn) error { return c.AddGroupCounts(ctx, counts) }); err != nil {
			t.Fatal(err)
		}
		var ws []store.CountWindow
		for i := range 135 {
			from := base.Add(time.Duration(i%25) * time.Minute)
			ws = append(ws, store.CountWindow{GroupID: groups[i%3], From: from, To: from.Add(time.Duration(i%9) * time.Minute)})
		}
		got, err := db.Read().GroupCountsBetween(ctx, ws)
		if err != nil {
			t.Fatalf("GroupCountsBetween: %v", err)
		}
		nonzero := 0
		for i, w := range ws {
			want, err := db.Read().GroupCountBetween(ctx, w.GroupID, w.From, w.To)
			if err != nil {
				t.Fatal(err)
			}
			if got[i] != want {
				t.Fatalf("window %d (%+v) = %d, want %d", i, w, got[i], want)
			}
			if want > 0 {
				nonzero++
			}
		}
		if nonzero < 50 {
			t.Fatalf("only %d windows have counts: the test checks too little", nonzero)
		}
	})
}

// TestGroupsSampleMessagesAsOneByOne: GroupsSampleMessages answers each
// group what GroupSampleMessages answers for it (newest first, the first
// sample left out), a group without samples nothing, for 131 groups
// (statements of 100, 16, 8, 4, 2 and 1 groups on PostgreSQL).
func TestGroupsSampleMessagesAsOneByOne(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		p := seedProject(t, db.Write())
		var groups []string
		var es []store.GroupEvent
		at := time.UnixMilli(1_790_000_000_000).UTC()
		for i := range 131 {
			g := seedGroupFor(t, db.Write(), p.ID, fmt.Sprint("fp", i))
			groups = append(groups, g)
			for k := range i % 4 { // 0 to 3 events, the first of them the first sample
				es = append(es, store.GroupEvent{GroupID: g, First: k == 0, ReceivedAt: at, Timestamp: at, Message: fmt.Sprintf("m%d.%d", i, k), Attributes: "{}"})
			}
		}
		if err := db.Tx(ctx, func(c *store.Conn) error { return c.InsertGroupEvents(ctx, es) }); err != nil {
			t.Fatal(err)
		}
		got, err := db.Read().GroupsSampleMessages(ctx, groups)
		if err != nil {
			t.Fatalf("GroupsSampleMessages: %v", err)
		}
		for i, g := range groups {
			want, err := db.Read().GroupSampleMessages(ctx, g)
			if err != nil {
				t.Fatal(err)
			}
			if len(want) != max(0, i%4-1) {
				t.Fatalf("group %d has %d kept samples, want %d", i, len(want), max(0, i%4-1))
			}
			if len(got[g]) != len(want) || len(want) > 0 && !reflect.DeepEqual(got[g], want) {
				t.Fatalf("group %d: %q, want %q", i, got[g], want)
			}
		}
	})
}
