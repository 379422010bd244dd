package httpapi

import (
	"context"

	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/tickets"
	"github.com/errata-dev/errata/internal/view"
)

// TicketView is the ticket object; the webhook body reuses it.
type TicketView = view.Ticket

// TicketItem is a ticket in a list.
type TicketItem = view.TicketItem

// TicketListItem is an item of the project's ticket list: the list item
// with the group's user_count.
type TicketListItem = view.TicketListItem

// TicketURL is a ticket's dashboard address.
func TicketURL(appURL, id string) string { return view.TicketURL(appURL, id) }

func ticketView(appURL string, tg store.TicketWithGroup) TicketView {
	return view.NewTicket(appURL, tg)
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
	Query       string `query:"query" maxLength:"1000" doc:"Search the tickets and their groups. See docs/search.md"`
	Sort        string `query:"sort" enum:"newest,last_seen,event_count,users" doc:"Order, most first: newest (the default), or the group's last_seen, event_count or users (user_count)"`
}) (*struct{ Body *Page[TicketListItem] }, error) {
	lq, err := tickets.ParseListQuery(in.values("status", in.Status, "severity", in.Severity, "service", in.Service,
		"environment", in.Environment, "query", in.Query, "sort", in.Sort), s.now(), principal(ctx).User.ID)
	if err != nil {
		return nil, err
	}
	var assigned []string
	page, err := list(s, lq.Scope(in.ProjectID), in.ListParams, func(before string, limit int) ([]store.TicketWithGroup, error) {
		k, err := lq.Keyset(before)
		if err != nil {
			return nil, err
		}
		return s.db.Read().ListTicketsBy(ctx, in.ProjectID, lq.Filter, lq.Order, k, limit)
	}, func(t store.TicketWithGroup) string { return lq.KeysetText(t.Group, t.ID) }, func(t store.TicketWithGroup) TicketListItem {
		assigned = append(assigned, t.Group.AssigneeID)
		return TicketListItem{TicketItem: view.NewTicketItem(s.appURL, t.Ticket), UserCount: t.Group.UserCount}
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
	return &struct{ Body *Page[TicketListItem] }{page}, nil
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
	v := ticketView(s.appURL, tg)
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
