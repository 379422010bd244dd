package store_test

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// seedSortable makes n groups of p, each with an open ticket, whose event
// counts and last-seen times repeat (ties the id must break), and one group
// merged into another (lists leave it out). It returns the groups listed.
func seedSortable(t *testing.T, c *store.Conn, p store.Project, n int) []store.Group {
	t.Helper()
	ctx := context.Background()
	var out []store.Group
	for i := range n {
		g := store.Group{ID: id.New(id.Group), ProjectID: p.ID, Service: "s", Fingerprint: fmt.Sprint("fp", i), Status: store.GroupUnresolved,
			FirstSeen: now, LastSeen: now.Add(-time.Duration(i%4) * time.Minute), EventCount: int64(i%5 + 1), UpdatedAt: now}
		if i == 3 {
			g.EventCount = 1 << 40 // past 32 bits
		}
		if err := c.InsertGroup(ctx, g); err != nil {
			t.Fatal(err)
		}
		tk := store.Ticket{ID: id.New(id.Ticket), ProjectID: p.ID, GroupID: g.ID, Severity: "high", Status: store.TicketOpen, Reason: "new",
			Title: g.Fingerprint, FirstSeen: now, CreatedAt: now, UpdatedAt: now}
		if err := c.InsertTicket(ctx, tk); err != nil {
			t.Fatal(err)
		}
		g.TicketID = tk.ID
		out = append(out, g)
	}
	merged := store.Group{ID: id.New(id.Group), ProjectID: p.ID, Service: "s", Fingerprint: "merged", Status: store.GroupResolved,
		FirstSeen: now, LastSeen: now.Add(-time.Hour), EventCount: 1 << 50, UpdatedAt: now, MergedInto: out[0].ID}
	if err := c.InsertGroup(ctx, merged); err != nil {
		t.Fatal(err)
	}
	return out
}

// wantOrder sorts groups as order o lists them: value, then id, descending.
func wantOrder(groups []store.Group, o store.Order) []string {
	gs := slices.Clone(groups)
	slices.SortFunc(gs, func(a, b store.Group) int {
		if c := cmp.Compare(store.SortValue(o, b), store.SortValue(o, a)); c != 0 {
			return c
		}
		return cmp.Compare(b.ID, a.ID)
	})
	ids := make([]string, len(gs))
	for i, g := range gs {
		ids[i] = g.ID
	}
	return ids
}

func TestListsInEveryOrderPageByKeyset(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		p := seedProject(t, db.Write())
		groups := seedSortable(t, db.Write(), p, 23)
		for _, o := range store.Orders {
			want := wantOrder(groups, o)
			// Pages of 5, each starting after the last row of the one before.
			var gotGroups, gotTickets []string
			var gk, tk store.Keyset
			for range 10 {
				gs, err := db.Read().ListGroupsBy(ctx, p.ID, store.GroupFilter{}, o, gk, 5)
				if err != nil {
					t.Fatalf("%q: ListGroupsBy: %v", o, err)
				}
				ts, err := db.Read().ListTicketsBy(ctx, p.ID, store.TicketFilter{Status: store.TicketOpen}, o, tk, 5)
				if err != nil {
					t.Fatalf("%q: ListTicketsBy: %v", o, err)
				}
				for _, g := range gs {
					gotGroups = append(gotGroups, g.ID)
				}
				for _, tw := range ts {
					gotTickets = append(gotTickets, tw.GroupID)
				}
				if len(gs) < 5 {
					break
				}
				last, lastT := gs[len(gs)-1], ts[len(ts)-1]
				gk = store.Keyset{Value: store.SortValue(o, last), ID: last.ID}
				tk = store.Keyset{Value: store.SortValue(o, lastT.Group), ID: lastT.ID}
			}
			if !slices.Equal(gotGroups, want) {
				t.Errorf("%q: groups paged as\n%v\nwant\n%v", o, gotGroups, want)
			}
			// Tickets were made in the groups' order, one each: their ids
			// tie-break alike.
			if !slices.Equal(gotTickets, want) {
				t.Errorf("%q: tickets (by group) paged as\n%v\nwant\n%v", o, gotTickets, want)
			}
		}
		// The default order is the API's: ListTickets and ListGroups with a
		// plain id.
		gs, err := db.Read().ListGroups(ctx, p.ID, store.GroupFilter{}, groups[5].ID, 100)
		if err != nil || len(gs) != 5 || gs[0].ID != groups[4].ID {
			t.Errorf("ListGroups before the sixth = %d groups (first %v), %v; want the 5 older", len(gs), gs, err)
		}
		// A filter still applies under an order.
		ts, err := db.Read().ListTicketsBy(ctx, p.ID, store.TicketFilter{Status: store.TicketResolved}, store.OrderEventCount, store.Keyset{}, 10)
		if err != nil || len(ts) != 0 {
			t.Errorf("resolved tickets by count = %d, %v; want none", len(ts), err)
		}
		if _, err := db.Read().ListGroupsBy(ctx, p.ID, store.GroupFilter{}, "title; DROP TABLE tickets", store.Keyset{}, 10); err == nil {
			t.Error("an unknown order is accepted")
		}
	})
}

func TestProjectActivityOfUser(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		c := db.Write()
		u := seedUser(t, c, "home@example.com")
		busy := seedProject(t, c)
		quiet := store.Project{ID: id.New(id.Project), OrgID: busy.OrgID, Name: "quiet", CreatedAt: now, UpdatedAt: now}
		infoOnly := store.Project{ID: id.New(id.Project), OrgID: busy.OrgID, Name: "info", CreatedAt: now, UpdatedAt: now}
		other := seedProject(t, c) // another organization: not the user's
		for _, p := range []store.Project{quiet, infoOnly} {
			if err := c.CreateProject(ctx, p); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.CreateMember(ctx, store.Member{ID: id.New(id.Member), OrgID: busy.OrgID, UserID: u.ID, Role: "viewer", CreatedAt: now}); err != nil {
			t.Fatal(err)
		}
		groups := seedSortable(t, c, busy, 6) // 6 open high tickets; the latest last seen is now
		seedSortable(t, c, other, 2)
		for i, sev := range []string{"critical", "critical", "medium"} {
			tk := store.Ticket{ID: id.New(id.Ticket), ProjectID: busy.ID, GroupID: groups[i].ID, Severity: sev, Status: store.TicketResolved,
				Reason: "new", FirstSeen: now, CreatedAt: now, UpdatedAt: now}
			if i < 2 { // resolved ones are not counted; move two open ones to critical
				tk.Status = store.TicketOpen
				old, _ := db.Read().TicketByID(ctx, groups[i].TicketID)
				old.Severity = sev
				if err := c.UpdateTicket(ctx, old); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if err := c.InsertTicket(ctx, tk); err != nil {
				t.Fatal(err)
			}
		}
		infoAt := now.Add(30 * time.Second)
		if _, err := c.AddInfo(ctx, store.InfoDelta{ProjectID: infoOnly.ID, WindowStart: now.Truncate(time.Hour), WindowEnd: now.Truncate(time.Hour).Add(time.Hour),
			Events: 3}, id.New(id.InfoSummary), infoAt); err != nil {
			t.Fatal(err)
		}
		got, err := db.Read().ProjectActivityOfUser(ctx, u.ID, 100)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 3 {
			t.Fatalf("activity of %d projects, want the user's 3: %+v", len(got), got)
		}
		b := got[busy.ID]
		if b.Critical != 2 || b.High != 4 || b.Medium != 0 || b.LastEvent == nil || !b.LastEvent.Equal(now) {
			t.Errorf("busy project = %+v (last %v), want 2 critical, 4 high, 0 medium, last event %v", b, b.LastEvent, now)
		}
		if q := got[quiet.ID]; q != (store.ProjectActivity{}) {
			t.Errorf("quiet project = %+v, want nothing", q)
		}
		if i := got[infoOnly.ID]; i.LastEvent == nil || !i.LastEvent.Equal(infoAt) {
			t.Errorf("INFO-only project's last event = %v, want the window's update %v", i.LastEvent, infoAt)
		}
	})
}

// TestGroupsByKeysInChunks: processing's read of a part's groups finds every
// existing key however many (the statements come in chunks of 100 and
// powers of two), and no key that has no group, inside a transaction as
// processing reads them.
func TestGroupsByKeysInChunks(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		p := seedProject(t, db.Write())
		groups := seedSortable(t, db.Write(), p, 237)
		keys := []store.GroupKey{{ProjectID: p.ID, Service: "s", Fingerprint: "absent"}}
		for i, g := range groups {
			keys = append(keys, store.GroupKey{ProjectID: g.ProjectID, Service: g.Service, Fingerprint: g.Fingerprint})
			if i%50 == 0 {
				keys = append(keys, store.GroupKey{ProjectID: p.ID, Service: "other", Fingerprint: g.Fingerprint})
			}
		}
		var found map[store.GroupKey]store.Group
		if err := db.Tx(ctx, func(c *store.Conn) (err error) { found, err = c.GroupsByKeys(ctx, keys); return err }); err != nil {
			t.Fatal(err)
		}
		if len(found) != len(groups) {
			t.Errorf("found %d groups of %d keys, want the %d that exist", len(found), len(keys), len(groups))
		}
		for _, g := range groups {
			if got := found[store.GroupKey{ProjectID: g.ProjectID, Service: g.Service, Fingerprint: g.Fingerprint}]; got.ID != g.ID {
				t.Errorf("key %s: group %q, want %s", g.Fingerprint, got.ID, g.ID)
			}
		}
	})
}
