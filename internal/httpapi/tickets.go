package httpapi

import (
	"context"
	"time"

	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/tickets"
)

// TicketView is a ticket (spec 4.8; the ticket of a ticket webhook body).
type TicketView struct {
	ID         string         `json:"id" doc:"tkt_ identifier"`
	ProjectID  string         `json:"project_id"`
	GroupID    string         `json:"group_id"`
	Severity   string         `json:"severity" enum:"critical,high,medium"`
	Status     string         `json:"status" enum:"open,resolved"`
	Title      string         `json:"title"`
	Summary    string         `json:"summary" doc:"One or two sentences: what, where, how often, since when, which release"`
	Facts      map[string]any `json:"facts" doc:"service, environment, release, level, first_seen, last_seen, event_count, group_id, reason (new, regression, spike), sample_message, trace_id when known, and more"`
	URL        string         `json:"url" doc:"Dashboard address: {app_url}/tickets/{id}"`
	CreatedAt  Timestamp      `json:"created_at"`
	UpdatedAt  Timestamp      `json:"updated_at"`
	ResolvedAt *Timestamp     `json:"resolved_at" nullable:"true"`
}

// TicketItem is a ticket in a list.
type TicketItem struct {
	ID        string    `json:"id"`
	Severity  string    `json:"severity" enum:"critical,high,medium"`
	Status    string    `json:"status" enum:"open,resolved"`
	Title     string    `json:"title"`
	URL       string    `json:"url"`
	CreatedAt Timestamp `json:"created_at"`
}

// TicketURL is a ticket's dashboard address.
func TicketURL(appURL, id string) string { return appURL + "/tickets/" + id }

// ticketView builds the ticket object; the webhook body reuses it.
func ticketView(appURL string, tg store.TicketWithGroup, now time.Time) TicketView {
	t := tg.Ticket
	return TicketView{ID: t.ID, ProjectID: t.ProjectID, GroupID: t.GroupID, Severity: t.Severity, Status: t.Status, Title: t.Title,
		Summary: tickets.Summary(t, tg.Group, now), Facts: tickets.Facts(t, tg.Group, TimeFormat), URL: TicketURL(appURL, t.ID),
		CreatedAt: ts(t.CreatedAt), UpdatedAt: ts(t.UpdatedAt), ResolvedAt: tsPtr(t.ResolvedAt)}
}

// TicketPath names a ticket.
type TicketPath struct {
	TicketID string `path:"ticket_id" doc:"tkt_ identifier"`
}

func (s *Server) listTickets(ctx context.Context, in *struct {
	ProjectPath
	ListParams
	Status      string `query:"status" enum:"open,resolved" doc:"Only tickets with this status"`
	Severity    string `query:"severity" enum:"critical,high,medium" doc:"Only tickets of this severity"`
	Service     string `query:"service" doc:"Only tickets of groups of this service"`
	Environment string `query:"environment" doc:"Only tickets of groups seen in this environment"`
}) (*struct{ Body *Page[TicketItem] }, error) {
	f := store.TicketFilter{Status: in.Status, Severity: in.Severity, Service: in.Service, Environment: in.Environment}
	scope := "tickets:" + in.ProjectID + ":" + f.Status + ":" + f.Severity + ":" + f.Service + ":" + f.Environment
	page, err := list(s, scope, in.ListParams, func(before string, limit int) ([]store.TicketWithGroup, error) {
		return s.db.Read().ListTickets(ctx, in.ProjectID, f, before, limit)
	}, func(t store.TicketWithGroup) string { return t.ID }, func(t store.TicketWithGroup) TicketItem {
		return TicketItem{ID: t.ID, Severity: t.Severity, Status: t.Status, Title: t.Title, URL: TicketURL(s.appURL, t.ID), CreatedAt: ts(t.CreatedAt)}
	})
	return &struct{ Body *Page[TicketItem] }{page}, err
}

// TicketOutput is one ticket.
type TicketOutput struct{ Body TicketView }

func (s *Server) getTicket(ctx context.Context, in *TicketPath) (*TicketOutput, error) {
	tg, err := s.db.Read().TicketWithGroupByID(ctx, in.TicketID)
	if err != nil {
		return nil, err
	}
	return &TicketOutput{ticketView(s.appURL, tg, s.now())}, nil
}

func (s *Server) updateTicket(ctx context.Context, in *struct {
	TicketPath
	Body struct {
		Status string `json:"status" enum:"open,resolved" doc:"resolved also resolves the group; open reopens it"`
	}
}) (*TicketOutput, error) {
	if err := s.tickets.SetTicketStatus(ctx, in.TicketID, in.Body.Status); err != nil {
		return nil, err
	}
	return s.getTicket(ctx, &in.TicketPath)
}

func (s *Server) deleteTicket(ctx context.Context, in *TicketPath) (*struct{}, error) {
	return nil, s.tickets.DeleteTicket(ctx, in.TicketID)
}
