// Package groupinginfo is the grouping a person reads and changes: what
// made a group's fingerprint (CONTRACT 8's "Why these events are
// grouped") and a project's grouping rules as they are checked and saved.
// The REST API and the dashboard both use it.
package groupinginfo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/errata-dev/errata/internal/audit"
	"github.com/errata-dev/errata/internal/grouping"
	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/process"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/text"
)

// GroupingView says what made a group's fingerprint (CONTRACT 8): the
// dashboard's "Why these events are grouped".
type GroupingView struct {
	Version    int             `json:"version" doc:"Version of the grouping algorithm that made the fingerprint"`
	Components []ComponentView `json:"components" nullable:"false" doc:"What grouping looked at, in order"`
}

// ComponentView is one thing grouping looked at.
type ComponentView struct {
	Name string `json:"name" doc:"error.type, error.value, message (the parameterised message), message_template (the sender's template), stack.frame (module:function), stack_trace_rule, fingerprint (a custom fingerprint: the event's own or a project rule's) or fingerprint_rule"`
	// Value is shown as is.
	Value       string `json:"value" doc:"The value as it was compared"`
	Contributes bool   `json:"contributes" doc:"Whether it took part in the fingerprint: frames that are not in-app, frames a stack trace rule took out and everything a custom fingerprint without {{ default }} replaced do not"`
}

// GroupGrouping returns what made g's fingerprint: as recorded when the
// group was made, or, for a group made before that was recorded, computed
// again from its first event under the group's algorithm version (the
// project's rules of that time are not known then).
func GroupGrouping(ctx context.Context, c *store.Conn, g store.Group) (GroupingView, error) {
	v := GroupingView{Version: g.FingerprintVersion, Components: []ComponentView{}}
	var comps []grouping.Component
	gg, err := c.GroupGroupingOf(ctx, g.ID)
	switch {
	case err == nil:
		v.Version = gg.Version
		if err := json.Unmarshal([]byte(gg.Components), &comps); err != nil {
			return v, fmt.Errorf("groupinginfo: stored grouping of %s: %w", g.ID, err)
		}
	case errors.Is(err, store.ErrNotFound):
		if comps, err = recompute(ctx, c, g); err != nil {
			return v, err
		}
	default:
		return v, err
	}
	for _, k := range comps {
		v.Components = append(v.Components, ComponentView(k))
	}
	return v, nil
}

// recompute fingerprints the first sample event of g again.
func recompute(ctx context.Context, c *store.Conn, g store.Group) ([]grouping.Component, error) {
	events, err := c.ListGroupEvents(ctx, g.ID, 0, 100)
	if err != nil || len(events) == 0 {
		return nil, err
	}
	first := events[len(events)-1]
	for _, e := range events {
		if e.First {
			first = e
		}
	}
	in := process.GroupingInput(&ingest.Event{Message: first.Message, StackTrace: first.StackTrace, Attributes: []byte(first.Attributes)}, nil)
	res, ok := grouping.FingerprintVersion(in, g.FingerprintVersion)
	if !ok {
		return nil, nil
	}
	return res.Components, nil
}

// SaveGroupingRules checks and stores a project's rules (the API and the
// dashboard): line endings become "\n"; a rule that does not parse is a
// 422 problem "<field>: line <n>: <what is wrong>".
func SaveGroupingRules(ctx context.Context, db *store.DB, projectID, fingerprint, stackTrace, userID string, now time.Time) (store.GroupingRules, error) {
	r := store.GroupingRules{ProjectID: projectID, Fingerprint: normalizeRules(fingerprint), StackTrace: normalizeRules(stackTrace),
		UpdatedAt: now.UTC().Truncate(time.Millisecond), UpdatedBy: userID}
	for _, f := range []struct{ name, v string }{{"fingerprint", r.Fingerprint}, {"stack_trace", r.StackTrace}} {
		if err := text.Check(f.name, f.v); err != nil {
			return r, err
		}
	}
	if _, err := grouping.ParseRules(r.Fingerprint, r.StackTrace); err != nil {
		return r, ruleProblem(err)
	}
	err := db.Tx(ctx, func(c *store.Conn) error {
		if err := c.PutGroupingRules(ctx, r); err != nil {
			return err
		}
		p, err := c.ProjectByID(ctx, projectID)
		if err != nil {
			return err
		}
		return audit.Record(ctx, c, audit.Entry{OrgID: p.OrgID, Action: "grouping_rules.changed", Target: projectID,
			Data: map[string]any{"project": p.Name, "fingerprint": r.Fingerprint, "stack_trace": r.StackTrace}, At: now})
	})
	return r, err
}

// normalizeRules makes a rule text's line endings "\n" and trims its end.
func normalizeRules(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.TrimRight(s, " \t\n")
}

// ruleProblem turns a rule parse error into its 422.
func ruleProblem(err error) error {
	var re *grouping.RuleError
	if errors.As(err, &re) {
		return problem.New("validation-failed", re.Error())
	}
	return err
}
