package notify

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/mail"
	"github.com/errata-dev/errata/internal/notify/email"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/tickets"
	"github.com/errata-dev/errata/internal/view"
)

// ChannelURL is a channel's settings page in the dashboard; emails point
// their List-Unsubscribe there.
func ChannelURL(appURL, channelID string) string { return appURL + "/channels/" + channelID }

// notifies reports whether a ticket of this severity is sent at once
// (spec 6.1): critical and high; the rest wait for the digest.
func notifies(severity string) bool { return severity == "critical" || severity == "high" }

// OnTickets queues the deliveries of tickets opened or raised while a batch
// was applied, in that batch's transaction (process.Options.OnTickets).
func (s *Service) OnTickets(ctx context.Context, c *store.Conn, events []tickets.Event) error {
	type target struct {
		p        store.Project
		o        store.Org
		channels []store.Channel
	}
	byProject := map[string]*target{}
	now := s.now()
	for _, ev := range events {
		if !notifies(ev.Ticket.Severity) {
			continue
		}
		t, ok := byProject[ev.Ticket.ProjectID]
		if !ok {
			p, err := c.ProjectByID(ctx, ev.Ticket.ProjectID)
			if err != nil {
				return err
			}
			o, chs, err := recipients(ctx, c, p)
			if err != nil {
				return err
			}
			t = &target{p, o, chs}
			byProject[p.ID] = t
		}
		tv := view.NewTicket(s.opts.AppURL, store.TicketWithGroup{Ticket: ev.Ticket, Group: ev.Group}, now)
		for _, ch := range t.channels {
			d := store.Delivery{ID: id.New(id.Delivery), ChannelID: ch.ID, ProjectID: t.p.ID, Event: store.EventTicket, SubjectID: ev.Ticket.ID}
			var body any = TicketBody{Type: store.EventTicket, DeliveryID: d.ID, OrganizationID: t.o.ID,
				Project: ProjectRef{t.p.ID, t.p.Name}, Ticket: tv, TicketURL: tv.URL}
			if ch.Type == store.ChannelEmail {
				body = emailFor(ch, email.RenderTicket(email.Ticket{Project: t.p.Name, ProjectID: t.p.ID, TicketID: tv.ID, Severity: tv.Severity,
					Title: tv.Title, Summary: tv.Summary, URL: tv.URL, Facts: tv.Facts, Reason: ev.Kind}, ChannelURL(s.opts.AppURL, ch.ID)))
			}
			if err := s.queue(ctx, c, d, body, now); err != nil {
				return err
			}
		}
	}
	return nil
}

// recipients are a project's enabled channels that its organization's plan
// allows (after a downgrade, webhook channels are kept but receive nothing).
func recipients(ctx context.Context, c *store.Conn, p store.Project) (store.Org, []store.Channel, error) {
	o, err := c.OrgByID(ctx, p.OrgID)
	if err != nil {
		return store.Org{}, nil, err
	}
	chs, err := c.EnabledChannels(ctx, p.ID)
	if err != nil {
		return store.Org{}, nil, err
	}
	out := chs[:0]
	for _, ch := range chs {
		if AllowedByPlan(o.Plan, ch.Type) {
			out = append(out, ch)
		}
	}
	return o, out, nil
}

func emailFor(ch store.Channel, m mail.Message) emailBody {
	return emailBody{To: ch.Email, Subject: m.Subject, Text: m.Text, HTML: m.HTML, Headers: m.Headers}
}

// queue stores a delivery due now with its frozen body.
func (s *Service) queue(ctx context.Context, c *store.Conn, d store.Delivery, body any, now time.Time) error {
	b, err := marshal(d.Event, body)
	if err != nil {
		return err
	}
	d.Body, d.Status, d.Series, d.NextAttemptAt, d.CreatedAt, d.UpdatedAt = b, store.DeliveryPending, 1, &now, now, now
	if err := c.InsertDelivery(ctx, d); err != nil {
		return err
	}
	s.queued.Store(true)
	return nil
}

func marshal(event string, body any) ([]byte, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return nil, fmt.Errorf("notify: encode %s body: %w", event, err)
	}
	return b, nil
}
