package web

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/errata-dev/errata/internal/groupinginfo"
	"github.com/errata-dev/errata/internal/httpserver"
	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/org"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/search"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/tickets"
)

// groupRoutes registers the error group pages.
func (d *Dashboard) groupRoutes(mux *http.ServeMux) {
	d.get(mux, "/projects/{project_id}/groups", d.groupList)
	d.get(mux, "/groups/{group_id}", d.group)
	d.get(mux, "/events/{event_id}", d.event)
	d.post(mux, "/groups/{group_id}/status", d.setGroupStatus)
	d.post(mux, "/projects/{project_id}/groups/merge", d.mergeGroups)
	d.post(mux, "/projects/{project_id}/groups/bulk", d.bulkGroups)
	d.post(mux, "/groups/{group_id}/assign", d.assignGroup)
	d.post(mux, "/groups/{group_id}/comments", d.commentGroup)
	d.post(mux, "/comments/{comment_id}/edit", d.editComment)
	d.post(mux, "/comments/{comment_id}/delete", d.deleteComment)
}

// groupListData fills the group list.
type groupListData struct {
	Project  store.Project
	Filter   store.GroupFilter
	Statuses []string
	Sorts    []sortOption
	Sort     *sortLinks
	Groups   []store.Group
	// Next is the address of the following page, "" on the last one.
	Next string
	// CanMerge shows the merge controls (members and up).
	CanMerge bool
	// QueryText is the search box's text as typed; QueryError the 422's
	// message when it does not parse, shown beside the box.
	QueryText, QueryError string
	// Keys are the search box's suggestions (Dashboard.queryKeys).
	Keys []string
}

// groupList lists a project's error groups, newest first or in the order
// ?sort= names, with the filters of GET /v1/projects/{project_id}/groups
// and signed cursors.
func (d *Dashboard) groupList(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	if err := d.authorize(r, p, "project_id", org.Viewer); err != nil {
		return err
	}
	ctx := r.Context()
	lq, err := tickets.ParseGroupListQuery(r.URL.Query(), d.now(), p.User.ID)
	if msg, ok := queryProblem(err); ok {
		// The search box again, the message beside it: the query is
		// not lost to an error page.
		prj, crumbs, err := d.projectCrumbs(ctx, r.PathValue("project_id"))
		if err != nil {
			return err
		}
		q := r.URL.Query()
		data := groupListData{Project: prj, Statuses: tickets.GroupStatuses, Sorts: sortOptions(store.OrderNewest, "Newest"),
			Filter:    store.GroupFilter{Status: q.Get("status"), Service: q.Get("service"), Environment: q.Get("environment")},
			QueryText: q.Get("query"), QueryError: msg}
		if data.Keys, err = d.queryKeys(ctx, prj.ID, search.Groups); err != nil {
			return err
		}
		crumbs = append(crumbs, crumb{"Error groups", "/projects/" + prj.ID + "/groups"})
		d.render(w, r, http.StatusUnprocessableEntity, "groups", p, frame{Title: "Error groups · " + prj.Name, Crumbs: crumbs, Project: &prj, Tab: "groups", Data: data})
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
	rows, err := d.db.Read().ListGroupsBy(ctx, prj.ID, lq.Filter, lq.Order, after, lq.Limit+1)
	if err != nil {
		return err
	}
	role, _ := org.ParseRole(p.Member.Role)
	links := newListQuery("/projects/"+prj.ID+"/groups", lq.Values())
	data := groupListData{Project: prj, Filter: lq.Filter, Statuses: tickets.GroupStatuses, Sorts: sortOptions(lq.Order, "Newest"),
		Sort: newSortLinks(links, lq.Order, "First seen"), Groups: rows, CanMerge: role.AtLeast(org.MemberRole), QueryText: lq.Filter.Query.String()}
	if data.Keys, err = d.queryKeys(ctx, prj.ID, search.Groups); err != nil {
		return err
	}
	if len(rows) > lq.Limit {
		last := rows[lq.Limit-1]
		data.Groups = rows[:lq.Limit]
		data.Next = links.with("cursor", d.pageCursor(scope, lq.Page, last, last.ID))
	}
	crumbs = append(crumbs, crumb{"Error groups", "/projects/" + prj.ID + "/groups"})
	d.render(w, r, http.StatusOK, "groups", p, frame{Title: "Error groups · " + prj.Name, Crumbs: crumbs, Project: &prj, Tab: "groups", Data: data})
	return nil
}

// queryProblem is the message of err when it is the 422 of a query that
// does not parse (search.Error: "query: term …").
func queryProblem(err error) (string, bool) {
	var p *problem.Problem
	if errors.As(err, &p) && strings.HasPrefix(p.Detail, "query: ") {
		return p.Detail, true
	}
	return "", false
}

func validGroupStatus(s string) bool { return slices.Contains(tickets.GroupStatuses, s) }

// groupData fills the group page.
type groupData struct {
	Group  store.Group
	Events []eventView
	// Actions are the statuses a member may move the group to; none for
	// viewers.
	Actions []groupAction
	// Merged is how many groups were just merged into this one (from the
	// group list's merge).
	Merged int
	// Grouping says what made the fingerprint: "Why these events are
	// grouped".
	Grouping groupinginfo.GroupingView
	// Team is its activity, comments and assignee.
	Team groupTeam
	// Facets are the most frequent values of its events' attributes.
	Facets []facetView
	// CanChange shows the assignee picker and the conditions (members and
	// up, on a group not merged away).
	CanChange bool
	// CanComment shows the comment form: members and up, merged groups
	// included (comments stay open on them, as in the API).
	CanComment bool
}

// groupAction is one status button of the group page.
type groupAction struct{ Status, Label string }

// group shows an error group: its facts, its latest sample events with their
// stack traces and, for members, resolve / ignore / unresolve.
func (d *Dashboard) group(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	if err := d.authorize(r, p, "group_id", org.Viewer); err != nil {
		return err
	}
	ctx := r.Context()
	g, err := d.db.Read().GroupByID(ctx, r.PathValue("group_id"))
	if err != nil {
		return err
	}
	prj, crumbs, err := d.projectCrumbs(ctx, g.ProjectID)
	if err != nil {
		return err
	}
	events, err := d.sampleEvents(ctx, g.ID)
	if err != nil {
		return err
	}
	gv, err := groupinginfo.GroupGrouping(ctx, d.db.Read(), g)
	if err != nil {
		return err
	}
	data := groupData{Group: g, Events: events, Grouping: gv}
	if data.Facets, err = d.groupFacets(ctx, g); err != nil {
		return err
	}
	data.Merged, _ = strconv.Atoi(r.URL.Query().Get("merged"))
	if data.Team, err = d.groupTeamOf(ctx, g, prj, p); err != nil {
		return err
	}
	// A group merged into another is worked through that one: its page
	// keeps the history but offers no controls.
	role, _ := org.ParseRole(p.Member.Role)
	data.CanComment = role.AtLeast(org.MemberRole)
	if role.AtLeast(org.MemberRole) && g.MergedInto == "" {
		data.CanChange = true
		for _, a := range []groupAction{{store.GroupResolved, "Resolve"}, {store.GroupIgnored, "Ignore"}, {store.GroupUnresolved, "Unresolve"}} {
			if a.Status != g.Status {
				data.Actions = append(data.Actions, a)
			}
		}
	}
	crumbs = append(crumbs, crumb{"Error groups", "/projects/" + prj.ID + "/groups"})
	d.render(w, r, http.StatusOK, "group", p, frame{Title: g.Title, Crumbs: crumbs, Project: &prj, Tab: "groups", Data: data})
	return nil
}

// setGroupStatus resolves (in the next release), ignores (with a
// condition) or unresolves a group through tickets.Service.ChangeGroup with
// the role PATCH /v1/groups/{group_id}
// demands, then shows the group again.
func (d *Dashboard) setGroupStatus(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	if err := d.authorize(r, p, "group_id", org.MemberRole); err != nil {
		return err
	}
	ch, err := groupChangeOf(r, d.now())
	if err != nil {
		return err
	}
	groupID := r.PathValue("group_id")
	if _, err := d.tickets.ChangeGroup(r.Context(), tickets.ActorOf(p.Member), groupID, ch); err != nil {
		return err
	}
	http.Redirect(w, r, "/groups/"+groupID, http.StatusSeeOther)
	return nil
}

// sampleCount is how many of a group's sample events its page and its
// ticket's page show, newest first (the API lists them all).
const sampleCount = 10

// eventView is a sample event as the events partial shows it.
type eventView struct {
	ID                                    int64
	First                                 bool
	Timestamp, ReceivedAt                 time.Time
	Level, Message                        string
	Environment, Release, TraceID, SpanID string
	Attributes                            []attribute
	// Stack is the laid-out stack trace; nil when the event has none.
	Stack *stackView
}

// attribute is one attribute of an event, its value as text: strings as
// they are, anything else as JSON.
type attribute struct{ Key, Value string }

// sampleEvents reads the latest sample events of a group.
func (d *Dashboard) sampleEvents(ctx context.Context, groupID string) ([]eventView, error) {
	rows, err := d.db.Read().ListGroupEvents(ctx, groupID, 0, sampleCount)
	if err != nil {
		return nil, err
	}
	out := make([]eventView, 0, len(rows))
	for _, e := range rows {
		v := eventView{ID: e.ID, First: e.First, Timestamp: e.Timestamp, ReceivedAt: e.ReceivedAt, Level: ingest.Level(e.Level).String(),
			Message: e.Message, Environment: e.Environment, Release: e.Release, TraceID: e.TraceID, SpanID: e.SpanID,
			Attributes: attributes(e.Attributes)}
		if e.StackTrace != "" {
			st := newStackView(e.StackTrace)
			v.Stack = &st
		}
		out = append(out, v)
	}
	return out, nil
}

// attributes lists a stored attributes object by key; text that is not an
// object is shown whole under "attributes".
func attributes(raw string) []attribute {
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(raw), &m); err != nil {
		return []attribute{{"attributes", raw}}
	}
	out := make([]attribute, 0, len(m))
	for k, v := range m {
		if k == "sentry.in_app" {
			continue // grouping's copy of the SDK's flags, which the frames show
		}
		var s string
		if json.Unmarshal(v, &s) != nil {
			s = string(v)
		}
		out = append(out, attribute{k, s})
	}
	slices.SortFunc(out, func(a, b attribute) int { return strings.Compare(a.Key, b.Key) })
	return out
}

func init() {
	funcs["levelName"] = func(l int) string { return ingest.Level(l).String() }
	funcs["firstLine"] = firstLine
	funcs["shortHash"] = func(h string) string { return h[:min(len(h), 12)] }
}

// firstLine is the first line of s, cut to 120 characters, for a summary.
func firstLine(s string) string {
	if k := strings.IndexByte(s, '\n'); k >= 0 {
		s = s[:k]
	}
	if r := []rune(s); len(r) > 120 {
		return string(r[:119]) + "…"
	}
	return s
}
