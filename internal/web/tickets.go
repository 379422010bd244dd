package web

import (
	"net/http"

	"github.com/errata-dev/errata/internal/httpserver"
	"github.com/errata-dev/errata/internal/org"
	"github.com/errata-dev/errata/internal/search"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/tickets"
	"github.com/errata-dev/errata/internal/view"
)

// ticketListData fills the ticket list.
type ticketListData struct {
	Project    store.Project
	Filter     store.TicketFilter
	Severities []string
	Sorts      []sortOption
	Table      ticketTable
	// Next is the address of the following page, "" on the last one.
	Next string
	// QueryText is the search box's text as typed; QueryError the 422's
	// message when it does not parse, shown beside the box.
	QueryText, QueryError string
	// Keys are the search box's suggestions (Dashboard.queryKeys).
	Keys []string
}

// ticketTable is the ticket table (parts/tickets.html): its rows and, on
// the ticket list, the headers that sort it.
type ticketTable struct {
	Rows []store.TicketWithGroup
	Sort *sortLinks
	// AllHref, when set, is the unfiltered list: the rows are those of
	// filters or a search, so an empty table says none match rather than
	// none exist.
	AllHref string
}

// ticketList lists a project's tickets, newest first or in the order
// ?sort= names, with the filters of GET /v1/projects/{project_id}/tickets
// and signed cursors: a cursor altered, or taken from another list, filter
// or order, is the API's 422.
func (d *Dashboard) ticketList(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	if err := d.authorize(r, p, "project_id", org.Viewer); err != nil {
		return err
	}
	lq, err := tickets.ParseListQuery(r.URL.Query(), d.now(), p.User.ID)
	ctx := r.Context()
	if msg, ok := queryProblem(err); ok {
		// The search box again, the message beside it, as on the groups.
		prj, crumbs, err := d.projectCrumbs(ctx, r.PathValue("project_id"))
		if err != nil {
			return err
		}
		q := r.URL.Query()
		data := ticketListData{Project: prj, Severities: severities, Sorts: sortOptions(store.OrderNewest, "Newest"),
			Filter:    store.TicketFilter{Status: q.Get("status"), Severity: q.Get("severity"), Service: q.Get("service"), Environment: q.Get("environment")},
			QueryText: q.Get("query"), QueryError: msg}
		if data.Keys, err = d.queryKeys(ctx, prj.ID, search.Tickets); err != nil {
			return err
		}
		crumbs = append(crumbs, crumb{"Tickets", "/projects/" + prj.ID + "/tickets"})
		d.render(w, r, http.StatusUnprocessableEntity, "tickets", p, frame{Title: "Tickets · " + prj.Name, Crumbs: crumbs, Project: &prj, Tab: "tickets", Data: data})
		return nil
	}
	if err != nil {
		return err
	}
	prj, crumbs, err := d.projectCrumbs(ctx, r.PathValue("project_id"))
	if err != nil {
		return err
	}
	scope := lq.Scope(prj.ID)
	after, err := d.pageKeyset(scope, lq.Page)
	if err != nil {
		return err
	}
	rows, err := d.db.Read().ListTicketsBy(ctx, prj.ID, lq.Filter, lq.Order, after, lq.Limit+1)
	if err != nil {
		return err
	}
	links := newListQuery("/projects/"+prj.ID+"/tickets", lq.Values())
	data := ticketListData{Project: prj, Filter: lq.Filter, Severities: severities, Sorts: sortOptions(lq.Order, "Newest"),
		Table: ticketTable{Rows: rows, Sort: newSortLinks(links, lq.Order, "Opened")}, QueryText: lq.Filter.Query.String()}
	if f := lq.Filter; f.Status != "" || f.Severity != "" || f.Service != "" || f.Environment != "" || data.QueryText != "" {
		data.Table.AllHref = "/projects/" + prj.ID + "/tickets"
	}
	if data.Keys, err = d.queryKeys(ctx, prj.ID, search.Tickets); err != nil {
		return err
	}
	if len(rows) > lq.Limit {
		last := rows[lq.Limit-1]
		data.Table.Rows = rows[:lq.Limit]
		data.Next = links.with("cursor", d.pageCursor(scope, lq.Page, last.Group, last.ID))
	}
	crumbs = append(crumbs, crumb{"Tickets", "/projects/" + prj.ID + "/tickets"})
	d.render(w, r, http.StatusOK, "tickets", p, frame{Title: "Tickets · " + prj.Name, Crumbs: crumbs, Project: &prj, Tab: "tickets", Data: data})
	return nil
}

// ticketData fills the ticket detail.
type ticketData struct {
	Ticket  store.Ticket
	Summary string
	// Facts are the API's facts with readable labels and values.
	Facts []fact
	// Shown is the title as the heading shows it: the latest sample's
	// message when the title is made of placeholders, the title on hover.
	Shown shownTitle
	// CanChange shows the resolve and reopen buttons: members and up.
	CanChange bool
	// MergedInto is the group the ticket's group was merged into, "" if
	// none: such a ticket cannot be reopened (409), its target's can.
	MergedInto string
	// Events are the latest sample events of the ticket's group.
	Events []eventView
}

// ticket is the ticket detail: what GET /v1/tickets/{ticket_id} answers.
func (d *Dashboard) ticket(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	if err := d.authorize(r, p, "ticket_id", org.Viewer); err != nil {
		return err
	}
	ctx := r.Context()
	tg, err := d.db.Read().TicketWithGroupByID(ctx, r.PathValue("ticket_id"))
	if err != nil {
		return err
	}
	prj, crumbs, err := d.projectCrumbs(ctx, tg.ProjectID)
	if err != nil {
		return err
	}
	crumbs = append(crumbs, crumb{"Tickets", "/projects/" + tg.ProjectID + "/tickets"})
	events, err := d.sampleEvents(ctx, tg.GroupID)
	if err != nil {
		return err
	}
	role, _ := org.ParseRole(p.Member.Role)
	data := ticketData{Ticket: tg.Ticket, Summary: tickets.Summary(tg.Ticket, tg.Group),
		Facts: readableFacts(tickets.Facts(tg.Ticket, tg.Group, view.TimeFormat)), Shown: titleOf(tg.Title, tg.Group.SampleMessage), CanChange: role.AtLeast(org.MemberRole), Events: events,
		MergedInto: tg.Group.MergedInto}
	d.render(w, r, http.StatusOK, "ticket", p, frame{Title: tg.Title, Crumbs: crumbs, Project: &prj, Tab: "tickets", Data: data})
	return nil
}

// setStatus resolves or reopens a ticket through tickets.Service, with the
// role PATCH /v1/tickets/{ticket_id} demands, then shows the ticket again.
func (d *Dashboard) setStatus(status string) pageFunc {
	return func(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
		if err := d.authorize(r, p, "ticket_id", org.MemberRole); err != nil {
			return err
		}
		ticketID := r.PathValue("ticket_id")
		if err := d.tickets.SetTicketStatus(r.Context(), tickets.ActorOf(p.Member), ticketID, status); err != nil {
			return err
		}
		http.Redirect(w, r, "/tickets/"+ticketID, http.StatusSeeOther)
		return nil
	}
}
