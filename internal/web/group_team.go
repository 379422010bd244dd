package web

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/errata-dev/errata/internal/httpserver"
	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/org"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/tickets"
)

// The group page's team parts (CONTRACT 8): its activity with comments,
// the assignee picker, "Ignore…" with its conditions and "Resolve in next
// release".

// activityCount is how many entries of its activity the group page shows.
const activityCount = 100

// groupTeam is what the group page shows of the team's work.
type groupTeam struct {
	Activity []activityEntry
	// Assignee is the group's assignee (the zero Member when none).
	Assignee store.Member
	// Members are the organization's members, for the picker (members
	// and up only).
	Members []store.Member
	// Ignore is the group's ignore condition as shown, "" when none.
	Ignore string
	// MemberID is the viewer's membership; CanAdmin lets them delete any
	// comment.
	MemberID string
	CanAdmin bool
}

// activityEntry is one entry of the timeline.
type activityEntry struct {
	store.Activity
	Fields map[string]any
}

// Summary is the entry in words (a comment shows its body separately).
func (e activityEntry) Summary() string {
	by := "Errata"
	if e.ActorID != "" {
		by = e.ActorName
	}
	str := func(k string) string { s, _ := e.Fields[k].(string); return s }
	switch e.Kind {
	case store.ActivityFirstSeen:
		return "First seen"
	case store.ActivityRegression:
		if r := str("release"); r != "" {
			return "Came back after being resolved, in release " + r
		}
		return "Came back after being resolved"
	case store.ActivitySpike:
		return "Spiking"
	case store.ActivityResolved:
		if r := str("resolved_in"); r != "" {
			return by + " resolved it in release " + r
		}
		return by + " resolved it"
	case store.ActivityUnresolved:
		return by + " marked it unresolved"
	case store.ActivityIgnored:
		if c, ok := e.Fields["ignore"].(map[string]any); ok {
			return by + " ignored it until " + conditionText(c)
		}
		return by + " ignored it"
	case store.ActivityUnignored:
		return "Its ignore condition was met: unresolved again"
	case store.ActivityAssigned:
		return by + " assigned it to " + str("name")
	case store.ActivityUnassigned:
		return by + " unassigned it"
	case store.ActivityComment:
		return by + " commented"
	case store.ActivityMerged:
		if into := str("into"); into != "" {
			return by + " merged it into " + into
		}
		return by + " merged other groups into it"
	case store.ActivityTicketOpened:
		return "Ticket " + str("ticket_id") + " opened (" + str("reason") + ")"
	case store.ActivityTicketResolved:
		return by + " resolved ticket " + str("ticket_id")
	}
	return e.Kind
}

// conditionText is an ignore condition in words.
func conditionText(c map[string]any) string {
	n := func(k string) string {
		v, _ := c[k].(float64)
		return strconv.FormatInt(int64(v), 10)
	}
	switch {
	case c["until"] != nil:
		s, _ := c["until"].(string)
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return t.UTC().Format("2 Jan 2006 15:04 UTC") // no raw ISO string on a page
		}
		return s
	case c["window"] != nil:
		return n("events") + " events within " + c["window"].(string)
	case c["events"] != nil:
		return n("events") + " more events"
	case c["users"] != nil:
		return n("users") + " more users"
	}
	return "further notice"
}

func (d *Dashboard) groupTeamOf(ctx context.Context, g store.Group, prj store.Project, p *httpserver.Principal) (groupTeam, error) {
	c := d.db.Read()
	role, _ := org.ParseRole(p.Member.Role)
	out := groupTeam{MemberID: p.Member.ID, CanAdmin: role.AtLeast(org.Admin)}
	acts, err := c.ListActivity(ctx, g.ID, "", activityCount)
	if err != nil {
		return out, err
	}
	for _, a := range acts {
		e := activityEntry{Activity: a, Fields: map[string]any{}}
		_ = json.Unmarshal([]byte(a.Data), &e.Fields)
		out.Activity = append(out.Activity, e)
	}
	if g.AssigneeID != "" {
		if out.Assignee, err = c.MemberByID(ctx, g.AssigneeID); err != nil && err != store.ErrNotFound {
			return out, err
		}
	}
	if r := tickets.ParseIgnoreRule(g.IgnoreRule); r != nil && g.Status == store.GroupIgnored {
		out.Ignore = conditionText(publicJSON(r.Public()))
	}
	if role.AtLeast(org.MemberRole) {
		if out.Members, err = c.ListMembers(ctx, prj.OrgID, "", 200); err != nil {
			return out, err
		}
	}
	return out, nil
}

// publicJSON is a condition as JSON reads it back (numbers as float64).
func publicJSON(m map[string]any) map[string]any {
	b, _ := json.Marshal(m)
	out := map[string]any{}
	_ = json.Unmarshal(b, &out)
	return out
}

// groupChangeOf reads the status form of the group page: a status, with
// resolved_in=next, or with an ignore condition (ignore=events|window|users
// |until and its figures).
func groupChangeOf(r *http.Request, now time.Time) (tickets.GroupChange, error) {
	status, err := formValue(r, "status")
	if err != nil {
		return tickets.GroupChange{}, err
	}
	if !validGroupStatus(status) {
		return tickets.GroupChange{}, problem.New("validation-failed", "status must be unresolved, resolved or ignored")
	}
	ch := tickets.GroupChange{Status: status}
	f := r.PostForm
	// The form offers only "next"; a release named otherwise is taken as
	// PATCH /v1/groups/{group_id} takes it, and refused where it is.
	if in := strings.TrimSpace(f.Get("resolved_in")); in != "" {
		if status != store.GroupResolved {
			return ch, problem.New("validation-failed", "resolved_in: goes with status resolved")
		}
		if utf8.RuneCountInString(in) > ingest.MaxReleaseLen {
			return ch, problem.Newf("validation-failed", "resolved_in: at most %d characters, as a release", ingest.MaxReleaseLen)
		}
		ch.ResolvedIn = in
	}
	if status != store.GroupIgnored || f.Get("ignore") == "" || f.Get("ignore") == "forever" {
		return ch, nil
	}
	var in tickets.IgnoreInput
	n, _ := strconv.ParseInt(f.Get("ignore_count"), 10, 64)
	switch f.Get("ignore") {
	case "events":
		in.Events = n
	case "window":
		in.Events, in.Window = n, f.Get("ignore_window")
	case "users":
		in.Users = n
	case "until":
		h, _ := strconv.Atoi(f.Get("ignore_hours"))
		h = max(0, min(h, 100*365*24)) // within a century either way: more would wrap the duration
		u := now.Add(time.Duration(h) * time.Hour)
		in.Until = &u
	default:
		return ch, problem.New("validation-failed", "Choose how long to ignore the group.")
	}
	if in.Events == 0 && in.Users == 0 && in.Until == nil || (in.Until != nil && !in.Until.After(now)) {
		return ch, problem.New("validation-failed", "Give a number greater than zero for the condition.")
	}
	ch.Ignore, err = in.Rule("", now)
	return ch, err
}

// assignGroup sets the group's assignee from the picker ("" unassigns),
// with the role PATCH /v1/groups/{group_id} demands.
func (d *Dashboard) assignGroup(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	if err := d.authorize(r, p, "group_id", org.MemberRole); err != nil {
		return err
	}
	memberID, err := formValue(r, "assignee_id")
	if err != nil {
		return err
	}
	groupID := r.PathValue("group_id")
	if _, err := d.tickets.ChangeGroup(r.Context(), tickets.ActorOf(p.Member), groupID, tickets.GroupChange{Assign: true, AssigneeID: memberID}); err != nil {
		return err
	}
	http.Redirect(w, r, "/groups/"+groupID, http.StatusSeeOther)
	return nil
}

// commentGroup adds a comment, with the role POST
// /v1/groups/{group_id}/comments demands.
func (d *Dashboard) commentGroup(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	if err := d.authorize(r, p, "group_id", org.MemberRole); err != nil {
		return err
	}
	body, err := formValue(r, "body")
	if err != nil {
		return err
	}
	// A textarea's line breaks arrive as CRLF (HTML's form encoding); the
	// comment keeps plain newlines, as the API takes them.
	body = strings.ReplaceAll(body, "\r\n", "\n")
	groupID := r.PathValue("group_id")
	if _, err := d.tickets.AddComment(r.Context(), tickets.ActorOf(p.Member), groupID, body); err != nil {
		return err
	}
	http.Redirect(w, r, "/groups/"+groupID+"#activity", http.StatusSeeOther)
	return nil
}

// editComment replaces a comment's text (its author or an admin), as
// PATCH /v1/comments/{comment_id} does.
func (d *Dashboard) editComment(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	if err := d.authorize(r, p, "comment_id", org.MemberRole); err != nil {
		return err
	}
	body, err := formValue(r, "body")
	if err != nil {
		return err
	}
	body = strings.ReplaceAll(body, "\r\n", "\n") // as commentGroup
	role, _ := org.ParseRole(p.Member.Role)
	m, err := d.tickets.EditComment(r.Context(), tickets.ActorOf(p.Member), role.AtLeast(org.Admin), r.PathValue("comment_id"), body)
	if err != nil {
		return err
	}
	http.Redirect(w, r, "/groups/"+m.GroupID+"#activity", http.StatusSeeOther)
	return nil
}

// deleteComment deletes a comment (its author or an admin).
func (d *Dashboard) deleteComment(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	if err := d.authorize(r, p, "comment_id", org.MemberRole); err != nil {
		return err
	}
	ctx := r.Context()
	m, err := d.db.Read().CommentByID(ctx, r.PathValue("comment_id"))
	if err != nil {
		return err
	}
	role, _ := org.ParseRole(p.Member.Role)
	if err := d.tickets.DeleteComment(ctx, tickets.ActorOf(p.Member), role.AtLeast(org.Admin), m.ID); err != nil {
		return err
	}
	http.Redirect(w, r, "/groups/"+m.GroupID+"#activity", http.StatusSeeOther)
	return nil
}
