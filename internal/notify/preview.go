package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"maps"
	"slices"
	"time"

	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/notify/chat"
	"github.com/errata-dev/errata/internal/notify/email"
	"github.com/errata-dev/errata/internal/notify/notice"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/view"
)

// Preview is what a channel would be sent for a ticket in one format: the
// request's content type, the headers the format adds (or, for an email,
// its subject) and the body, JSON indented for reading.
type Preview struct {
	Format      string
	ContentType string
	Headers     []notice.Fact
	Body        string
	// Current marks the channel's own format.
	Current bool
}

// TicketPreviews renders what ch would be sent for the most recent ticket
// of its project, or for a sample ticket when the project has none
// (sample true): in every webhook format for a webhook channel (its own
// marked Current), or the email for an email channel. The ticket is shown
// as it would be sent now.
func (s *Service) TicketPreviews(ctx context.Context, ch store.Channel) (previews []Preview, ticket view.Ticket, sample bool, err error) {
	r := s.db.Read()
	p, err := r.ProjectByID(ctx, ch.ProjectID)
	if err != nil {
		return nil, view.Ticket{}, false, err
	}
	now := s.now()
	recent, err := r.ListTickets(ctx, p.ID, store.TicketFilter{}, "", 1)
	if err != nil {
		return nil, view.Ticket{}, false, err
	}
	if len(recent) == 1 {
		ticket = view.NewTicket(s.opts.AppURL, recent[0])
	} else {
		ticket, sample = sampleTicket(s.opts.AppURL, p, now), true
	}
	n := notice.Notification{Project: notice.Ref{ID: p.ID, Name: p.Name}, Ticket: notice.TicketOf(ticket, ticket.URL)}
	if ch.Type == store.ChannelEmail {
		// No unsubscribe link: a preview is shown to viewers, who cannot stop
		// the channel, and a real link would let them.
		m, err := email.Render(n, email.Links{Channel: ChannelURL(s.opts.AppURL, ch.ID)})
		if err != nil {
			return nil, ticket, sample, err
		}
		return []Preview{{Format: store.FormatEmail, ContentType: "text/plain", Headers: []notice.Fact{{Name: "Subject", Value: m.Subject}},
			Body: m.Text, Current: true}}, ticket, sample, nil
	}
	for _, format := range chat.Formats() {
		pv := Preview{Format: format, Current: format == ch.Format}
		if format == chat.Errata {
			b, err := marshal(store.EventTicket, TicketBody{Type: store.EventTicket, DeliveryID: "dlv_preview", OrganizationID: p.OrgID,
				Project: ProjectRef{p.ID, p.Name}, Ticket: ticket, TicketURL: ticket.URL})
			if err != nil {
				return nil, ticket, sample, err
			}
			pv.ContentType, pv.Body = "application/json", indented(b)
		} else {
			rd, err := chat.Render(format, n)
			if err != nil {
				return nil, ticket, sample, err
			}
			pv.ContentType, pv.Body = rd.ContentType, indented(rd.Body)
			for _, k := range slices.Sorted(maps.Keys(rd.Headers)) {
				pv.Headers = append(pv.Headers, notice.Fact{Name: k, Value: rd.Headers[k]})
			}
		}
		previews = append(previews, pv)
	}
	return previews, ticket, sample, nil
}

// sampleTicket is the ticket previews show for a project without tickets.
func sampleTicket(appURL string, p store.Project, now time.Time) view.Ticket {
	first := now.Add(-42 * time.Minute).Truncate(time.Minute)
	g := store.Group{ID: "grp_sample", ProjectID: p.ID, Service: "checkout", Title: "TypeError: cannot read properties of undefined (reading 'id')",
		ExceptionType: "TypeError", Culprit: "cart.js in applyCoupon", Level: int(ingest.Error), Status: store.GroupUnresolved, FirstSeen: first,
		LastSeen: now.Add(-2 * time.Minute), EventCount: 128, LastEnvironment: "production", FirstRelease: "4.2.0", LastRelease: "4.2.1",
		SampleMessage: "TypeError: cannot read properties of undefined (reading 'id')"}
	t := store.Ticket{ID: "tkt_sample", ProjectID: p.ID, GroupID: g.ID, Severity: "high", Status: store.TicketOpen, Reason: store.ReasonNew,
		Title: g.Title, FirstSeen: first, CreatedAt: first, UpdatedAt: first}
	return view.NewTicket(appURL, store.TicketWithGroup{Ticket: t, Group: g})
}

// indented is a JSON body indented for reading; another body as it is.
func indented(b []byte) string {
	var out bytes.Buffer
	if json.Indent(&out, b, "", "  ") != nil {
		return string(b)
	}
	return out.String()
}
