package httpapi

import (
	"context"
	"time"

	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/view"
)

// TicketView is the ticket object; the webhook body reuses it.
type TicketView = view.Ticket

// TicketItem is a ticket in a list.
type TicketItem = view.TicketItem

// TicketURL is a ticket's dashboard address.
func TicketURL(appURL, id string) string { return view.TicketURL(appURL, id) }

func ticketView(appURL string, tg store.TicketWithGroup, now time.Time) TicketView {
	return view.NewTicket(appURL, tg, now)
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
	scope := TicketListScope(in.ProjectID, f)
	var assigned []string
	page, err := list(s, scope, in.ListParams, func(before string, limit int) ([]store.TicketWithGroup, error) {
		return s.db.Read().ListTickets(ctx, in.ProjectID, f, before, limit)
	}, func(t store.TicketWithGroup) string { return t.ID }, func(t store.TicketWithGroup) TicketItem {
		assigned = append(assigned, t.Group.AssigneeID)
		return view.NewTicketItem(s.appURL, t.Ticket)
	})
	if err != nil {
		return nil, err
	}
	members, err := s.assignees(ctx, assigned...)
	if err != nil {
		return nil, err
	}
	for i := range page.Data {
		page.Data[i].Assignee = view.AssigneeOf(members[assigned[i]])
	}
	return &struct{ Body *Page[TicketItem] }{page}, nil
}

// TicketOutput is one ticket.
type TicketOutput struct{ Body TicketView }

func (s *Server) getTicket(ctx context.Context, in *TicketPath) (*TicketOutput, error) {
	tg, err := s.db.Read().TicketWithGroupByID(ctx, in.TicketID)
	if err != nil {
		return nil, err
	}
	members, err := s.assignees(ctx, tg.Group.AssigneeID)
	if err != nil {
		return nil, err
	}
	v := ticketView(s.appURL, tg, s.now())
	v.Assignee = view.AssigneeOf(members[tg.Group.AssigneeID])
	return &TicketOutput{v}, nil
}

func (s *Server) updateTicket(ctx context.Context, in *struct {
	TicketPath
	Body struct {
		Status string `json:"status" enum:"open,resolved" doc:"resolved also resolves the group; open reopens it"`
	}
}) (*TicketOutput, error) {
	if err := s.tickets.SetTicketStatus(ctx, actor(ctx), in.TicketID, in.Body.Status); err != nil {
		return nil, err
	}
	return s.getTicket(ctx, &in.TicketPath)
}

func (s *Server) deleteTicket(ctx context.Context, in *TicketPath) (*struct{}, error) {
	return nil, s.tickets.DeleteTicket(ctx, in.TicketID)
}
