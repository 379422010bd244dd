package notify_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/notify"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
	"github.com/errata-dev/errata/internal/tickets"
)

// TestSpikeRaisedAtOpeningIsToldAfterTheNew: a ticket opened and raised by
// one batch is told twice (CONTRACT 6: "notified again"), the "new" first:
// the spike's deliveries are due tickets.RaisedAfterOpening later, so that
// concurrent attempts do not deliver them in either order.
func TestSpikeRaisedAtOpeningIsToldAfterTheNew(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		r := newRig(t, db, notify.Options{})
		rc := r.receiver(t, status(204))
		r.webhookChannel(t, rc.srv.URL+"/hooks/errata")
		ctx, now := context.Background(), r.clock.Now()
		g := store.Group{ID: id.New(id.Group), ProjectID: r.proj.ID, Service: "api", Fingerprint: id.New("fp_"), Title: "boom",
			Status: store.GroupUnresolved, FirstSeen: now, LastSeen: now, EventCount: 60, UpdatedAt: now}
		opened := store.Ticket{ID: id.New(id.Ticket), ProjectID: r.proj.ID, GroupID: g.ID, Severity: "high", Status: store.TicketOpen,
			Reason: store.ReasonNew, Title: g.Title, FirstSeen: now, CreatedAt: now, UpdatedAt: now}
		raised := opened
		raised.Severity, raised.Reason = "critical", store.ReasonSpike
		err := db.Tx(ctx, func(c *store.Conn) error {
			if err := c.InsertGroup(ctx, g); err != nil {
				return err
			}
			if err := c.InsertTicket(ctx, raised); err != nil {
				return err
			}
			return r.svc.OnTickets(ctx, c, []tickets.Event{{Ticket: opened, Group: g, Kind: store.ReasonNew},
				{Ticket: raised, Group: g, Kind: store.ReasonSpike, Delay: tickets.RaisedAfterOpening}})
		})
		if err != nil {
			t.Fatal(err)
		}
		if n := r.deliverDue(t); n != 1 {
			t.Fatalf("attempted %d deliveries at once, want the new one only", n)
		}
		r.clock.Set(now.Add(tickets.RaisedAfterOpening + time.Millisecond))
		if n := r.deliverDue(t); n != 1 {
			t.Fatalf("attempted %d deliveries after the delay, want the spike", n)
		}
		var reasons []string
		for _, req := range rc.requests() {
			var b struct {
				Ticket struct {
					Facts struct {
						Reason string `json:"reason"`
					} `json:"facts"`
				} `json:"ticket"`
			}
			if err := json.Unmarshal(req.body, &b); err != nil {
				t.Fatal(err)
			}
			reasons = append(reasons, b.Ticket.Facts.Reason)
		}
		if len(reasons) != 2 || reasons[0] != store.ReasonNew || reasons[1] != store.ReasonSpike {
			t.Fatalf("received %v, want new then spike", reasons)
		}
	})
}
