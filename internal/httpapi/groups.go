package httpapi

import (
	"context"
	"encoding/json"
	"net/url"

	"github.com/errata-dev/errata/internal/groupinginfo"
	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/search"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/tickets"
	"github.com/errata-dev/errata/internal/view"
)

// GroupView is an error group (CONTRACT 4).
type GroupView struct {
	ID                 string         `json:"id" doc:"grp_ identifier"`
	ProjectID          string         `json:"project_id"`
	Service            string         `json:"service"`
	Title              string         `json:"title"`
	Level              string         `json:"level" enum:"warn,error,fatal" doc:"Highest level seen"`
	Status             string         `json:"status" enum:"unresolved,resolved,ignored"`
	Fingerprint        string         `json:"fingerprint"`
	FingerprintVersion int            `json:"fingerprint_version" doc:"Version of the grouping algorithm that made the fingerprint"`
	FingerprintRule    string         `json:"fingerprint_rule" enum:"custom,stacktrace,message" doc:"What the fingerprint was built from"`
	ExceptionType      string         `json:"exception_type"`
	Culprit            string         `json:"culprit" doc:"Top application frame, when a stack trace was parsed"`
	FirstSeen          Timestamp      `json:"first_seen"`
	LastSeen           Timestamp      `json:"last_seen"`
	EventCount         int64          `json:"event_count"`
	UserCount          int64          `json:"user_count" doc:"Distinct user.id values of the group's events: exact up to 1,000, then within 2 %"`
	Environments       []string       `json:"environments" nullable:"false"`
	Releases           []string       `json:"releases" nullable:"false"`
	TicketID           *string        `json:"ticket_id" nullable:"true" doc:"The group's current ticket; null after it was deleted"`
	MergedInto         *string        `json:"merged_into" nullable:"true" doc:"The group this one was merged into (its events go there; lists leave this one out); null when not merged"`
	Assignee           *AssigneeView  `json:"assignee" nullable:"true" doc:"The member the group is assigned to; null when none"`
	Ignore             map[string]any `json:"ignore" nullable:"true" doc:"An ignored group's condition ({until}, {events}, {events, window} or {users}); null when not ignored with a condition"`
	ResolvedIn         *string        `json:"resolved_in" nullable:"true" doc:"The release a resolved group was resolved in (next when it was resolved in the next release before the project had seen any); null when resolved outright or not resolved"`
	// Grouping is shown by GET /v1/groups/{group_id} only.
	Grouping *groupinginfo.GroupingView `json:"grouping,omitempty" doc:"What made the fingerprint (GET /v1/groups/{group_id} only): the dashboard's \"Why these events are grouped\""`

	assigneeID string // filled into Assignee by fillAssignees
}

func (s *Server) groupOutput(ctx context.Context, g store.Group) (*GroupOutput, error) {
	vs := []GroupView{groupView(g)}
	if err := s.fillAssignees(ctx, vs); err != nil {
		return nil, err
	}
	return &GroupOutput{vs[0]}, nil
}

func groupView(g store.Group) GroupView {
	v := GroupView{ID: g.ID, ProjectID: g.ProjectID, Service: g.Service, Title: g.Title, Level: ingest.Level(g.Level).String(), Status: g.Status,
		Fingerprint: g.Fingerprint, FingerprintVersion: g.FingerprintVersion, FingerprintRule: g.FingerprintRule, ExceptionType: g.ExceptionType,
		Culprit: g.Culprit, FirstSeen: ts(g.FirstSeen), LastSeen: ts(g.LastSeen), EventCount: g.EventCount, UserCount: g.UserCount,
		Environments: nonNil(g.Environments), Releases: nonNil(g.Releases), assigneeID: g.AssigneeID}
	if g.TicketID != "" {
		id := g.TicketID
		v.TicketID = &id
	}
	if g.MergedInto != "" {
		into := g.MergedInto
		v.MergedInto = &into
	}
	if r := tickets.ParseIgnoreRule(g.IgnoreRule); r != nil && g.Status == store.GroupIgnored {
		v.Ignore = r.Public()
	}
	if g.ResolvedIn != "" && g.Status == store.GroupResolved {
		in := g.ResolvedIn
		v.ResolvedIn = &in
	}
	return v
}

func nonNil(v []string) []string {
	if v == nil {
		return []string{}
	}
	return v
}

// GroupPath names a group.
type GroupPath struct {
	GroupID string `path:"group_id" doc:"grp_ identifier"`
}

// GroupOutput is one group.
type GroupOutput struct{ Body GroupView }

func (s *Server) listGroups(ctx context.Context, in *struct {
	ProjectPath
	ListParams
	Status      string `query:"status" enum:"unresolved,resolved,ignored"`
	Service     string `query:"service"`
	Environment string `query:"environment" doc:"Only groups seen in this environment"`
	Query       string `query:"query" maxLength:"1000" doc:"Search the groups. See docs/search.md"`
	Sort        string `query:"sort" enum:"newest,last_seen,event_count,users" doc:"Order, most first: newest (the default), last_seen, event_count or users (user_count)"`
}) (*struct{ Body *Page[GroupView] }, error) {
	lq, err := tickets.ParseGroupListQuery(in.values("status", in.Status, "service", in.Service, "environment", in.Environment,
		"query", in.Query, "sort", in.Sort), s.now(), principal(ctx).User.ID)
	if err != nil {
		return nil, err
	}
	page, err := list(s, lq.Scope(in.ProjectID), in.ListParams, func(before string, limit int) ([]store.Group, error) {
		k, err := lq.Keyset(before)
		if err != nil {
			return nil, err
		}
		return s.db.Read().ListGroupsBy(ctx, in.ProjectID, lq.Filter, lq.Order, k, limit)
	}, func(g store.Group) string { return lq.KeysetText(g, g.ID) }, groupView)
	if err != nil {
		return nil, err
	}
	if err := s.fillAssignees(ctx, page.Data); err != nil {
		return nil, err
	}
	return &struct{ Body *Page[GroupView] }{page}, nil
}

// fillAssignees sets the assignees of a page of group views.
func (s *Server) fillAssignees(ctx context.Context, vs []GroupView) error {
	ids := make([]string, 0, len(vs))
	for _, v := range vs {
		ids = append(ids, v.assigneeID)
	}
	members, err := s.assignees(ctx, ids...)
	for i := range vs {
		vs[i].Assignee = view.AssigneeOf(members[vs[i].assigneeID])
	}
	return err
}

func (s *Server) getGroup(ctx context.Context, in *GroupPath) (*GroupOutput, error) {
	g, err := s.db.Read().GroupByID(ctx, in.GroupID)
	if err != nil {
		return nil, err
	}
	out, err := s.groupOutput(ctx, g)
	if err != nil {
		return nil, err
	}
	gv, err := groupinginfo.GroupGrouping(ctx, s.db.Read(), g)
	if err != nil {
		return nil, err
	}
	out.Body.Grouping = &gv
	return out, nil
}

func (s *Server) updateGroup(ctx context.Context, in *struct {
	GroupPath
	Body GroupPatch
}) (*GroupOutput, error) {
	ch, err := in.Body.change("", s.now())
	if err != nil {
		return nil, err
	}
	g, err := s.tickets.ChangeGroup(ctx, actor(ctx), in.GroupID, ch)
	if err != nil {
		return nil, err
	}
	return s.groupOutput(ctx, g)
}

// MergeInput names the groups merged into the path's group.
type MergeInput struct {
	GroupPath
	Body struct {
		GroupIDs []string `json:"group_ids" nullable:"false" minItems:"1" maxItems:"100" doc:"grp_ identifiers of groups of the same project, merged into the path's group"`
	}
}

// mergeGroups merges groups into the path's group (CONTRACT: issue 12,
// "Merging by hand").
func (s *Server) mergeGroups(ctx context.Context, in *MergeInput) (*GroupOutput, error) {
	g, err := s.tickets.MergeGroups(ctx, actor(ctx), in.GroupID, in.Body.GroupIDs)
	if err != nil {
		return nil, err
	}
	return s.groupOutput(ctx, g)
}

// EventView is a stored sample event of a group.
type EventView struct {
	ID          string          `json:"id" doc:"evt_ identifier of the stored event (GET /v1/events/{event_id})"`
	First       bool            `json:"first" doc:"The group's first event, kept for good"`
	ReceivedAt  Timestamp       `json:"received_at"`
	Timestamp   Timestamp       `json:"timestamp"`
	Level       string          `json:"level" enum:"debug,info,warn,error,fatal"`
	Message     string          `json:"message"`
	StackTrace  string          `json:"stack_trace"`
	Environment string          `json:"environment"`
	Release     string          `json:"release"`
	TraceID     string          `json:"trace_id"`
	SpanID      string          `json:"span_id"`
	Attributes  json.RawMessage `json:"attributes" doc:"The event's attributes, secrets redacted"`
}

func (s *Server) listGroupEvents(ctx context.Context, in *struct {
	GroupPath
	ListParams
	Query string `query:"query" maxLength:"1000" doc:"Search the group's stored events. See docs/search.md"`
}) (*struct{ Body *Page[EventView] }, error) {
	q, err := tickets.ParseSearch(in.Query, search.Events, s.now(), principal(ctx).User.ID)
	if err != nil {
		return nil, err
	}
	scope := "events:" + in.GroupID
	if !q.Empty() {
		scope += ":" + url.Values{"query": {q.String()}}.Encode()
	}
	page, err := list(s, scope, in.ListParams, func(before string, limit int) ([]store.GroupEvent, error) {
		var b int64
		if before != "" {
			b, _ = id.ParseEvent(before)
		}
		return s.db.Read().SearchGroupEvents(ctx, in.GroupID, q, b, limit)
	}, func(e store.GroupEvent) string { return id.FormatEvent(e.ID) }, eventView)
	return &struct{ Body *Page[EventView] }{page}, err
}

func eventView(e store.GroupEvent) EventView {
	return EventView{ID: id.FormatEvent(e.ID), First: e.First, ReceivedAt: ts(e.ReceivedAt), Timestamp: ts(e.Timestamp),
		Level: ingest.Level(e.Level).String(), Message: e.Message, StackTrace: e.StackTrace, Environment: e.Environment, Release: e.Release,
		TraceID: e.TraceID, SpanID: e.SpanID, Attributes: json.RawMessage(e.Attributes)}
}
