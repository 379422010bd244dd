package web

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/errata-dev/errata/internal/httpserver"
	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/org"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/search"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/tickets"
)

// The project page's triage list (CONTRACT 8): one list of error groups,
// each with its ticket's severity and state, its assignee, events, users,
// last seen and a 24-hour sparkline; members act on checked rows at once.

// triageCount is how many groups the project page lists.
const triageCount = 50

// triageList fills the triage list of the project page.
type triageList struct {
	ProjectID string
	Rows      []triageRow
	// CanChange shows the check boxes and the bulk bar (members and up).
	CanChange bool
	// Keys are the search box's suggestions (Dashboard.queryKeys).
	Keys []string
}

// triageRow is one group of the triage list.
type triageRow struct {
	Group store.Group
	// Severity and TicketStatus are its current ticket's ("" when none).
	Severity, TicketStatus string
	// Assignee names its assignee ("" when none).
	Assignee string
	// Users is its distinct users (user_count).
	Users int64
	Spark sparkline
}

// sparkline is a group's last 24 hours per hour, drawn as an SVG polyline.
type sparkline struct {
	Points string
	Total  int64
	Max    int64
}

// Sparkline geometry: 24 hours over 96 × 20 pixels.
const (
	sparkWidth  = 96
	sparkHeight = 20
)

func newSparkline(hours map[int64]int64, end time.Time) sparkline {
	var s sparkline
	counts := make([]int64, 24)
	start := end.Add(-24 * time.Hour)
	for i := range counts {
		counts[i] = hours[start.Add(time.Duration(i)*time.Hour).UnixMilli()]
		s.Total += counts[i]
		s.Max = max(s.Max, counts[i])
	}
	pts := make([]string, len(counts))
	for i, n := range counts {
		y := float64(sparkHeight - 1)
		if s.Max > 0 {
			y = float64(sparkHeight-1) - float64(n)*float64(sparkHeight-2)/float64(s.Max)
		}
		pts[i] = fmt.Sprintf("%.1f,%.1f", float64(i)*float64(sparkWidth)/23, y)
	}
	s.Points = strings.Join(pts, " ")
	return s
}

// triage reads the project's unresolved groups, most recently seen first,
// with their tickets, assignees and sparklines (three statements besides
// the list, whatever the page's length).
func (d *Dashboard) triage(ctx context.Context, prj store.Project, role org.Role) (triageList, error) {
	c := d.db.Read()
	keys, err := d.queryKeys(ctx, prj.ID, search.Groups)
	if err != nil {
		return triageList{}, err
	}
	out := triageList{ProjectID: prj.ID, CanChange: role.AtLeast(org.MemberRole), Keys: keys}
	gs, err := c.ListGroupsBy(ctx, prj.ID, store.GroupFilter{Status: store.GroupUnresolved}, store.OrderLastSeen, store.Keyset{}, triageCount)
	if err != nil || len(gs) == 0 {
		return out, err
	}
	var ticketIDs, memberIDs, groupIDs []string
	for _, g := range gs {
		groupIDs = append(groupIDs, g.ID)
		if g.TicketID != "" {
			ticketIDs = append(ticketIDs, g.TicketID)
		}
		if g.AssigneeID != "" {
			memberIDs = append(memberIDs, g.AssigneeID)
		}
	}
	tks, err := c.TicketsByIDs(ctx, ticketIDs)
	if err != nil {
		return out, err
	}
	members, err := c.MembersByIDs(ctx, slices.Compact(slices.Sorted(slices.Values(memberIDs))))
	if err != nil {
		return out, err
	}
	end := d.now().UTC().Truncate(time.Hour).Add(time.Hour)
	hours, err := c.GroupHourCounts(ctx, groupIDs, end.Add(-24*time.Hour))
	if err != nil {
		return out, err
	}
	for _, g := range gs {
		row := triageRow{Group: g, Users: g.UserCount, Spark: newSparkline(hours[g.ID], end)}
		if t, ok := tks[g.TicketID]; ok {
			row.Severity, row.TicketStatus = t.Severity, t.Status
		}
		if m, ok := members[g.AssigneeID]; ok {
			row.Assignee = tickets.ActorOf(m).Name
		}
		out.Rows = append(out.Rows, row)
	}
	return out, nil
}

// bulkActions are the bulk bar's buttons and what each sets.
var bulkActions = map[string]tickets.GroupChange{
	"resolve":   {Status: store.GroupResolved},
	"ignore":    {Status: store.GroupIgnored},
	"unresolve": {Status: store.GroupUnresolved},
	"unassign":  {Assign: true},
}

// bulkGroups applies the bulk bar's action to the checked groups, with
// the role POST /v1/projects/{project_id}/groups/bulk demands, then shows
// the project page again.
func (d *Dashboard) bulkGroups(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	if err := d.authorize(r, p, "project_id", org.MemberRole); err != nil {
		return err
	}
	action, err := formValue(r, "action")
	if err != nil {
		return err
	}
	ids := r.PostForm["group_ids"]
	if len(ids) == 0 {
		return problem.New("validation-failed", "Check one or more error groups first.")
	}
	if action == "merge" && len(ids) < 2 {
		return problem.New("validation-failed", "Check two or more error groups to merge: they become the one with the most events.")
	}
	if len(ids) > tickets.MaxBulkIDs {
		return problem.Newf("validation-failed", "At most %d error groups at once.", tickets.MaxBulkIDs)
	}
	for _, gid := range ids {
		if !id.Valid(id.Group, gid) {
			return problem.Newf("validation-failed", "%q is not an error group of this project.", gid)
		}
	}
	ctx, projectID, a := r.Context(), r.PathValue("project_id"), tickets.ActorOf(p.Member)
	var res tickets.BulkResult
	switch action {
	case "merge":
		res, err = d.tickets.BulkMerge(ctx, a, projectID, ids)
	case "assign-me":
		res, err = d.tickets.BulkChange(ctx, a, projectID, ids, tickets.GroupChange{Assign: true, AssigneeID: p.Member.ID}, nil)
	default:
		ch, ok := bulkActions[action]
		if !ok {
			return problem.Newf("validation-failed", "%q is not an action of the bulk bar.", action)
		}
		res, err = d.tickets.BulkChange(ctx, a, projectID, ids, ch, nil)
	}
	if err != nil {
		return err
	}
	q := url.Values{"done": {action}, "n": {strconv.Itoa(res.Updated)}}
	if res.Matched == 0 && action != "merge" {
		q.Set("found", "0") // none of the checked groups is left to change
	}
	http.Redirect(w, r, "/projects/"+projectID+"?"+q.Encode(), http.StatusSeeOther)
	return nil
}

// bulkDone words what each bulk action did to its groups.
var bulkDone = map[string]string{
	"resolve": "resolved", "ignore": "ignored", "unresolve": "reopened", "unassign": "unassigned",
	"assign-me": "assigned to you", "merge": "merged into the one with the most events",
}

// bulkNotice is the notice of the project page the bulk bar redirects to
// (?done=<action>&n=<groups changed>[&found=0]); "" for any other query.
func bulkNotice(q url.Values) string {
	done, ok := bulkDone[q.Get("done")]
	n, err := strconv.Atoi(q.Get("n"))
	if !ok || err != nil || n < 0 || n > tickets.MaxBulkIDs {
		return ""
	}
	if n == 0 && q.Get("done") == "merge" {
		return "Nothing was merged: fewer than two of the checked error groups could be."
	}
	if n == 0 && q.Get("found") == "0" {
		return "No error group changed: none of the checked ones is left (deleted, or merged into another)."
	}
	if n == 0 {
		return "No error group changed: they were " + done + " already."
	}
	if n == 1 {
		return "1 error group " + done + "."
	}
	return strconv.Itoa(n) + " error groups " + done + "."
}
