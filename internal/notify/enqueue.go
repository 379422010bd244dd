package notify

import (
	"context"
	"time"

	"github.com/errata-dev/errata/internal/notify/notice"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/tickets"
	"github.com/errata-dev/errata/internal/view"
)

// ChannelURL is a channel's settings page in the dashboard; emails link
// to it in their footer (their List-Unsubscribe is the one-click link).
func ChannelURL(appURL, channelID string) string { return appURL + "/channels/" + channelID }

// OnTickets queues the deliveries of tickets opened or raised while a batch
// was applied, in that batch's transaction (process.Options.OnTickets):
// one per enabled channel the plan allows whose filters want the ticket
// (its severity, environments and service). Nothing is rendered here: a
// chat message or an email is rendered from the stored notification when
// it is attempted, outside this transaction (SQLite's only writer).
func (s *Service) OnTickets(ctx context.Context, c *store.Conn, events []tickets.Event) error {
	type target struct {
		p        store.Project
		o        store.Org
		channels []store.Channel
	}
	byProject := map[string]*target{}
	now := s.now()
	for _, ev := range events {
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
		var tv *view.Ticket
		o := &outgoing{event: store.EventTicket, subjectID: ev.Ticket.ID,
			errata: func(deliveryID string) any {
				return TicketBody{Type: store.EventTicket, DeliveryID: deliveryID, OrganizationID: t.o.ID,
					Project: ProjectRef{t.p.ID, t.p.Name}, Ticket: *tv, TicketURL: tv.URL}
			},
			notification: func() (notice.Notification, error) {
				return notice.Notification{Project: notice.Ref{ID: t.p.ID, Name: t.p.Name}, Ticket: notice.TicketOf(*tv, tv.URL)}, nil
			}}
		for _, ch := range t.channels {
			if !wants(ch, ev) {
				continue
			}
			if tv == nil {
				v := view.NewTicket(s.opts.AppURL, store.TicketWithGroup{Ticket: ev.Ticket, Group: ev.Group})
				if ev.Group.AssigneeID != "" {
					m, err := c.MemberByID(ctx, ev.Group.AssigneeID)
					if err == nil {
						v.Assignee = view.AssigneeOf(m)
					}
				}
				tv = &v
			}
			if err := s.queueTo(ctx, c, ch, o, now, now.Add(ev.Delay)); err != nil {
				return err
			}
		}
	}
	return nil
}

// recipients are a project's channels that send (enabled, confirmed, not
// unsubscribed) and that its organization's plan allows (after a
// downgrade, webhook channels are kept but receive nothing).
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
		if ch.Sends() && AllowedByPlan(o.Plan, ch.Type) {
			out = append(out, ch)
		}
	}
	return o, out, nil
}

// Broadcast is a notification to every channel of a project that sends and
// that its plan allows, unfiltered (a digest).
type Broadcast struct {
	Event, SubjectID string
	// Errata builds the errata body of the delivery deliveryID to a channel
	// of organization o.
	Errata func(o store.Org, deliveryID string) any
	// Notification builds the notification that chat and email channels
	// render; it is called at most once.
	Notification func() (notice.Notification, error)
}

// QueueToProject queues b to the channels of p that receive it, due now, in
// c's transaction; AfterCommit then wakes the engine.
func (s *Service) QueueToProject(ctx context.Context, c *store.Conn, p store.Project, b Broadcast, now time.Time) error {
	o, chs, err := recipients(ctx, c, p)
	if err != nil {
		return err
	}
	out := &outgoing{event: b.Event, subjectID: b.SubjectID, notification: b.Notification,
		errata: func(deliveryID string) any { return b.Errata(o, deliveryID) }}
	for _, ch := range chs {
		if err := s.queueTo(ctx, c, ch, out, now, now); err != nil {
			return err
		}
	}
	return nil
}
