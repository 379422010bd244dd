package store_test

import (
	"context"
	"testing"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// TestOpenTicketIgnoresAStaleCopy: a resolved ticket keeps its group's
// facts (Ticket.Closed); a release that does not know the copy (before
// migration 00060, running beside this one on the migrated schema) reopens
// a ticket without forgetting it. Open, the ticket reads its group; resolved
// again, it keeps the group's facts of then, not the stale copy.
func TestOpenTicketIgnoresAStaleCopy(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		c := db.Write()
		p := seedProject(t, c)
		g := store.Group{ID: id.New(id.Group), ProjectID: p.ID, Service: "s", Fingerprint: "fp", Status: store.GroupUnresolved,
			FirstSeen: now, LastSeen: now, EventCount: 179, LastRelease: "1.4.9", UpdatedAt: now}
		if err := c.InsertGroup(ctx, g); err != nil {
			t.Fatal(err)
		}
		tk := store.Ticket{ID: id.New(id.Ticket), ProjectID: p.ID, GroupID: g.ID, Severity: "high", Status: store.TicketOpen, Reason: "new",
			Title: "t", FirstSeen: now, CreatedAt: now, UpdatedAt: now}
		if err := c.InsertTicket(ctx, tk); err != nil {
			t.Fatal(err)
		}
		resolve := func() store.Ticket {
			t.Helper()
			cur, err := c.TicketByID(ctx, tk.ID)
			if err != nil {
				t.Fatal(err)
			}
			cur.Status, cur.ResolvedAt = store.TicketResolved, &now
			if err := c.UpdateTicket(ctx, cur); err != nil {
				t.Fatal(err)
			}
			if cur, err = c.TicketByID(ctx, tk.ID); err != nil {
				t.Fatal(err)
			}
			return cur
		}
		if got := resolve(); got.Closed == nil || got.Closed.EventCount != 179 {
			t.Fatalf("resolved: kept %+v, want the group's 179 events", got.Closed)
		}
		// An older release reopens it, and the group moves on.
		if err := db.ExecForTest(ctx, `UPDATE tickets SET status = 'open', resolved_at = NULL WHERE id = ?`, tk.ID); err != nil {
			t.Fatal(err)
		}
		if err := db.ExecForTest(ctx, `UPDATE error_groups SET event_count = 181, last_release = '3.0.0' WHERE id = ?`, g.ID); err != nil {
			t.Fatal(err)
		}
		open, err := c.TicketByID(ctx, tk.ID)
		if err != nil || open.Closed != nil {
			t.Fatalf("open ticket: kept %+v, %v; want none (it reads its group)", open.Closed, err)
		}
		if got := resolve(); got.Closed == nil || got.Closed.EventCount != 181 || got.Closed.Release != "3.0.0" {
			t.Fatalf("resolved again: kept %+v, want the group's facts of now (181, 3.0.0)", got.Closed)
		}
	})
}
