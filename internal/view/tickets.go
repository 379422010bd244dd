package view

import (
	"reflect"

	"github.com/danielgtaylor/huma/v2"

	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/tickets"
)

// Ticket is the ticket object (CONTRACT 4), also the `ticket` member of a
// ticket webhook body.
type Ticket struct {
	ID         string         `json:"id" doc:"tkt_ identifier"`
	ProjectID  string         `json:"project_id"`
	GroupID    string         `json:"group_id"`
	Severity   string         `json:"severity" enum:"critical,high,medium"`
	Status     string         `json:"status" enum:"open,resolved"`
	Title      string         `json:"title"`
	Summary    string         `json:"summary" doc:"One or two sentences: what, where, how often, since when, which release"`
	Facts      map[string]any `json:"facts" doc:"service, environment, release, level, first_seen, last_seen, event_count, group_id, reason (new, regression, spike, unignored when an ignored group met its condition, or merged for a ticket resolved because its group was merged into another), sample_message, trace_id when known, and more. An open ticket's are its group's now; a resolved ticket's are those its group had when it was resolved"`
	URL        string         `json:"url" doc:"Dashboard address: {app_url}/tickets/{id}"`
	UserCount  int64          `json:"user_count" doc:"Distinct user.id values of the group's events: exact up to 1,000, then within 2 %"`
	CreatedAt  Timestamp      `json:"created_at"`
	UpdatedAt  Timestamp      `json:"updated_at"`
	ResolvedAt *Timestamp     `json:"resolved_at" nullable:"true"`
	Assignee   *Assignee      `json:"assignee" nullable:"true" doc:"The member the ticket's group is assigned to; null when none"`
}

// Assignee is the member an error group (and its tickets) is assigned to.
type Assignee struct {
	MemberID string `json:"member_id" doc:"mem_ identifier"`
	Name     string `json:"name"`
	Email    string `json:"email"`
}

// AssigneeOf is the assignee of a member; nil for none (the zero Member).
func AssigneeOf(m store.Member) *Assignee {
	if m.ID == "" {
		return nil
	}
	return &Assignee{MemberID: m.ID, Name: m.Name, Email: m.Email}
}

// TicketItem is a ticket in a list.
type TicketItem struct {
	ID        string    `json:"id"`
	Severity  string    `json:"severity" enum:"critical,high,medium"`
	Status    string    `json:"status" enum:"open,resolved"`
	Title     string    `json:"title"`
	URL       string    `json:"url"`
	CreatedAt Timestamp `json:"created_at"`
	Assignee  *Assignee `json:"assignee" nullable:"true" doc:"The member the ticket's group is assigned to; null when none"`
}

// TicketURL is a ticket's dashboard address (CONTRACT 6).
func TicketURL(appURL, id string) string { return appURL + "/tickets/" + id }

// NewTicket builds the ticket object. An open ticket's facts are
// its group's, so the events that update them update it (CONTRACT 4):
// updated_at is the later of the ticket's own change and its group's last
// processing.
func NewTicket(appURL string, tg store.TicketWithGroup) Ticket {
	t := tg.Ticket
	updated := t.UpdatedAt
	if g := tg.Group; t.Status == store.TicketOpen && g.TicketID == t.ID && g.UpdatedAt.After(updated) {
		updated = g.UpdatedAt
	}
	return Ticket{ID: t.ID, ProjectID: t.ProjectID, GroupID: t.GroupID, Severity: t.Severity, Status: t.Status, Title: t.Title,
		Summary: tickets.Summary(t, tg.Group), Facts: tickets.Facts(t, tg.Group, TimeFormat), URL: TicketURL(appURL, t.ID),
		UserCount: tg.Group.UserCount, CreatedAt: TS(t.CreatedAt), UpdatedAt: TS(updated), ResolvedAt: TSPtr(t.ResolvedAt)}
}

// TicketListItem is an item of a project's ticket list, and of a digest's
// tickets (interface 6.2: "each like an item of the ticket list"): the list
// item with the group's user_count.
type TicketListItem struct {
	TicketItem
	UserCount int64 `json:"user_count" doc:"Distinct user.id values of the group's events: exact up to 1,000, then within 2 %"`
}

// NewTicketItem builds a list item.
func NewTicketItem(appURL string, t store.Ticket) TicketItem {
	return TicketItem{ID: t.ID, Severity: t.Severity, Status: t.Status, Title: t.Title, URL: TicketURL(appURL, t.ID), CreatedAt: TS(t.CreatedAt)}
}

// assigneeFields has Assignee's fields without its methods.
type assigneeFields Assignee

// Schema describes Assignee inline (not as a reference), so that fields
// holding one can be nullable.
func (Assignee) Schema(r huma.Registry) *huma.Schema {
	return huma.SchemaFromType(r, reflect.TypeFor[assigneeFields]())
}
