package httpapi

import (
	"context"
	"strings"

	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/store"
)

// lookupLimit bounds the groups and the events a lookup answers.
const lookupLimit = 100

// LookupEventView is a stored sample event found by a lookup, with its
// group.
type LookupEventView struct {
	GroupID string `json:"group_id"`
	EventView
}

// LookupResult is what a trace id or an event id finds.
type LookupResult struct {
	Groups []GroupView       `json:"groups" nullable:"false" doc:"The groups whose events carried the id, the latest first (at most 100)"`
	Events []LookupEventView `json:"events" nullable:"false" doc:"The stored sample events of those groups that carry the id (at most 100)"`
}

// LookupOutput is a lookup's answer.
type LookupOutput struct{ Body LookupResult }

// lookup finds the groups, and stored events, of the organization's
// projects whose error events carried a trace id or an event id (CONTRACT
// 8): every error event within ERRATA_RETENTION_DAYS, through event_refs.
func (s *Server) lookup(ctx context.Context, in *struct {
	OrgPath
	TraceID string `query:"trace_id" maxLength:"128" doc:"A trace id, as events carry it"`
	EventID string `query:"event_id" maxLength:"64" doc:"The id a Sentry SDK was answered (32 hex digits, dashes allowed), or a stored event's id"`
}) (*LookupOutput, error) {
	trace, event := strings.TrimSpace(in.TraceID), strings.TrimSpace(in.EventID)
	if (trace == "") == (event == "") {
		return nil, problem.New("validation-failed", "trace_id: give exactly one of trace_id and event_id")
	}
	kind, ref := store.RefTrace, trace
	if event != "" {
		kind, ref = store.RefEvent, store.SDKEventID(event)
		if ref == "" {
			return nil, problem.New("validation-failed", "event_id: not an event id (32 hex digits, or a stored event's evt_ id)")
		}
	}
	groups, events, err := s.db.Read().Lookup(ctx, in.OrgID, kind, ref, lookupLimit)
	if err != nil {
		return nil, err
	}
	out := &LookupOutput{Body: LookupResult{Groups: make([]GroupView, 0, len(groups)), Events: make([]LookupEventView, 0, len(events))}}
	for _, g := range groups {
		out.Body.Groups = append(out.Body.Groups, groupView(g))
	}
	for _, e := range events {
		out.Body.Events = append(out.Body.Events, LookupEventView{GroupID: e.GroupID, EventView: eventView(e)})
	}
	return out, nil
}
