package httpapi

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/danielgtaylor/huma/v2"

	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/org"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/text"
	"github.com/errata-dev/errata/internal/tickets"
	"github.com/errata-dev/errata/internal/view"
)

// Working the errors as a team (CONTRACT 8): assignment, activity,
// comments, ignore conditions, resolving in a release.

// AssigneeView is the member a group or ticket is assigned to.
type AssigneeView = view.Assignee

// OptionalID is a body field that may be absent, null or an identifier:
// PATCH tells "leave it" (absent) from "clear it" (null).
type OptionalID struct {
	Set   bool   `json:"-"`
	Null  bool   `json:"-"`
	Value string `json:"-"`
}

// UnmarshalJSON reads null or a string.
func (o *OptionalID) UnmarshalJSON(b []byte) error {
	o.Set = true
	if string(b) == "null" {
		o.Value, o.Null = "", true
		return nil
	}
	return json.Unmarshal(b, &o.Value)
}

// Schema describes the field as a nullable string.
func (OptionalID) Schema(huma.Registry) *huma.Schema {
	return &huma.Schema{Type: huma.TypeString, Nullable: true,
		Description: "mem_ identifier of a member of the project's organization; null unassigns"}
}

// assignees reads the members of ids ("" ignored), by id.
func (s *Server) assignees(ctx context.Context, ids ...string) (map[string]store.Member, error) {
	var want []string
	seen := map[string]bool{}
	for _, v := range ids {
		if v != "" && !seen[v] {
			seen[v] = true
			want = append(want, v)
		}
	}
	return s.db.Read().MembersByIDs(ctx, want)
}

// IgnoreBody is an ignore condition: at most one of until, events (with or
// without window) and users; none ignores for good.
type IgnoreBody struct {
	Until  *time.Time `json:"until,omitempty" doc:"Ignore until this time"`
	Events int64      `json:"events,omitempty" minimum:"1" maximum:"1000000" doc:"Ignore until N more events (within window when given)"`
	Window string     `json:"window,omitempty" doc:"With events: N events within this window, such as 30m, 1h or 7d (at most 7 days)"`
	Users  int64      `json:"users,omitempty" minimum:"1" maximum:"1000000" doc:"Ignore until N more distinct users (attribute user.id)"`
}

// GroupPatch is a change of a group: the PATCH body and the bulk "set".
type GroupPatch struct {
	Status     string      `json:"status,omitempty" enum:"unresolved,resolved,ignored" doc:"resolved or ignored also resolves the open ticket; an ignored group opens no tickets until its condition is met"`
	AssigneeID OptionalID  `json:"assignee_id,omitempty"`
	Ignore     *IgnoreBody `json:"ignore,omitempty" doc:"With status ignored: the condition that ends the ignore (the group becomes unresolved with a new ticket, reason unignored); absent or {} ignores for good"`
	ResolvedIn *string     `json:"resolved_in,omitempty" doc:"With status resolved: next (newer than the newest release seen) or a release (at most 64 characters, as an event's release); events of that release or older ones are counted without reopening the group. Newer: SemVer 2.0.0 order when both are semantic versions (a leading v allowed), else the order in which the project first saw them"`
}

// change checks a patch and turns it into a change; prefix names its
// fields in errors ("" or "set.").
func (p GroupPatch) change(prefix string, now time.Time) (tickets.GroupChange, error) {
	// A release is named as sent without its surrounding spaces ("next "
	// is next); nothing but spaces names none; "" is no release (resolved
	// outright), as absent.
	ch := tickets.GroupChange{Status: p.Status}
	if p.ResolvedIn != nil && *p.ResolvedIn != "" {
		if ch.ResolvedIn = strings.TrimSpace(*p.ResolvedIn); ch.ResolvedIn == "" {
			return ch, problem.Newf("validation-failed", "%sresolved_in: name a release, or next", prefix)
		}
	}
	if p.Status == "" && !p.AssigneeID.Set {
		return ch, problem.Newf("validation-failed", "%sstatus: give status or assignee_id", prefix)
	}
	if p.AssigneeID.Set {
		if err := text.Check(prefix+"assignee_id", p.AssigneeID.Value); err != nil {
			return ch, err
		}
		if !p.AssigneeID.Null && p.AssigneeID.Value == "" { // only null unassigns
			return ch, problem.Newf("validation-failed", "%sassignee_id: \"\" is not a member id; send null to unassign", prefix)
		}
		ch.Assign, ch.AssigneeID = true, p.AssigneeID.Value
	}
	if p.Ignore != nil {
		if p.Status != store.GroupIgnored {
			return ch, problem.Newf("validation-failed", "%signore: goes with status ignored", prefix)
		}
		rule, err := tickets.IgnoreInput{Until: p.Ignore.Until, Events: p.Ignore.Events, Window: p.Ignore.Window, Users: p.Ignore.Users}.Rule(prefix+"ignore.", now)
		if err != nil {
			return ch, err
		}
		ch.Ignore = rule
	}
	if ch.ResolvedIn != "" && p.Status != store.GroupResolved {
		return ch, problem.Newf("validation-failed", "%sresolved_in: goes with status resolved", prefix)
	}
	if utf8.RuneCountInString(ch.ResolvedIn) > ingest.MaxReleaseLen {
		return ch, problem.Newf("validation-failed", "%sresolved_in: at most %d characters, as a release", prefix, ingest.MaxReleaseLen)
	}
	return ch, nil
}

// actor is the caller as the actor of a change.
func actor(ctx context.Context) tickets.Actor { return tickets.ActorOf(principal(ctx).Member) }

// ActivityView is an entry of a group's activity.
type ActivityView struct {
	ID        string         `json:"id" doc:"act_ identifier"`
	Kind      string         `json:"kind" enum:"first_seen,regression,spike,resolved,unresolved,ignored,unignored,assigned,unassigned,comment,merged,ticket_opened,ticket_resolved"`
	Actor     *ActorView     `json:"actor" nullable:"true" doc:"Who did it; null for Errata itself"`
	Data      map[string]any `json:"data" doc:"Details by kind: ticket_id, reason, member_id, name, comment_id and body, ignore, resolved_in, group_ids, into, ..."`
	CreatedAt Timestamp      `json:"created_at"`
}

// ActorView names a member who did something.
type ActorView struct {
	MemberID string `json:"member_id" doc:"mem_ identifier"`
	Name     string `json:"name"`
}

func activityView(a store.Activity) ActivityView {
	v := ActivityView{ID: a.ID, Kind: a.Kind, Data: map[string]any{}, CreatedAt: ts(a.CreatedAt)}
	_ = json.Unmarshal([]byte(a.Data), &v.Data)
	if a.ActorID != "" {
		v.Actor = &ActorView{MemberID: a.ActorID, Name: a.ActorName}
	}
	return v
}

func (s *Server) listActivity(ctx context.Context, in *struct {
	GroupPath
	ListParams
}) (*struct{ Body *Page[ActivityView] }, error) {
	page, err := list(s, "activity:"+in.GroupID, in.ListParams, func(before string, limit int) ([]store.Activity, error) {
		return s.db.Read().ListActivity(ctx, in.GroupID, before, limit)
	}, func(a store.Activity) string { return a.ID }, activityView)
	return &struct{ Body *Page[ActivityView] }{page}, err
}

// CommentView is a comment on a group.
type CommentView struct {
	ID        string    `json:"id" doc:"cmt_ identifier"`
	GroupID   string    `json:"group_id"`
	Author    ActorView `json:"author"`
	Body      string    `json:"body"`
	CreatedAt Timestamp `json:"created_at"`
	UpdatedAt Timestamp `json:"updated_at"`
}

func commentView(m store.Comment) CommentView {
	return CommentView{ID: m.ID, GroupID: m.GroupID, Author: ActorView{MemberID: m.AuthorID, Name: m.AuthorName}, Body: m.Body,
		CreatedAt: ts(m.CreatedAt), UpdatedAt: ts(m.UpdatedAt)}
}

// CommentBody is a comment's text.
type CommentBody struct {
	Body string `json:"body" minLength:"1" maxLength:"10000" doc:"Plain text, 1 to 10,000 characters"`
}

// CommentPath names a comment.
type CommentPath struct {
	CommentID string `path:"comment_id" doc:"cmt_ identifier"`
}

func (s *Server) createComment(ctx context.Context, in *struct {
	GroupPath
	Body CommentBody
}) (*struct{ Body CommentView }, error) {
	m, err := s.tickets.AddComment(ctx, actor(ctx), in.GroupID, in.Body.Body)
	if err != nil {
		return nil, err
	}
	return &struct{ Body CommentView }{commentView(m)}, nil
}

// mayEditOthers reports whether the caller may change others' comments.
func mayEditOthers(ctx context.Context) bool {
	role, _ := org.ParseRole(principal(ctx).Member.Role)
	return role.AtLeast(org.Admin)
}

func (s *Server) updateComment(ctx context.Context, in *struct {
	CommentPath
	Body CommentBody
}) (*struct{ Body CommentView }, error) {
	m, err := s.tickets.EditComment(ctx, actor(ctx), mayEditOthers(ctx), in.CommentID, in.Body.Body)
	if err != nil {
		return nil, err
	}
	return &struct{ Body CommentView }{commentView(m)}, nil
}

func (s *Server) deleteComment(ctx context.Context, in *CommentPath) (*struct{}, error) {
	return nil, s.tickets.DeleteComment(ctx, actor(ctx), mayEditOthers(ctx), in.CommentID)
}

// actorFields has ActorView's fields without its methods.
type actorFields ActorView

// Schema describes ActorView inline, so that an activity's actor can be
// null.
func (ActorView) Schema(r huma.Registry) *huma.Schema {
	return huma.SchemaFromType(r, reflect.TypeFor[actorFields]())
}
