package httpapi

import (
	"context"

	"github.com/errata-dev/errata/internal/groupinginfo"
	"github.com/errata-dev/errata/internal/store"
)

// GroupingRulesView is a project's grouping rules (CONTRACT 8).
type GroupingRulesView struct {
	ProjectID   string     `json:"project_id"`
	Fingerprint string     `json:"fingerprint" doc:"Fingerprint rules in Sentry's syntax, one a line: matchers -> fingerprint values (docs/grouping.md)"`
	StackTrace  string     `json:"stack_trace" doc:"Stack trace rules in Sentry's syntax, one a line: matchers then actions (+app, -app, +group, -group, each optionally after ^ or v)"`
	UpdatedAt   *Timestamp `json:"updated_at" nullable:"true" doc:"When they last changed; null when never set"`
}

// GroupingRulesOutput is a project's grouping rules.
type GroupingRulesOutput struct{ Body GroupingRulesView }

func rulesView(r store.GroupingRules) GroupingRulesView {
	v := GroupingRulesView{ProjectID: r.ProjectID, Fingerprint: r.Fingerprint, StackTrace: r.StackTrace}
	if !r.UpdatedAt.IsZero() {
		t := ts(r.UpdatedAt)
		v.UpdatedAt = &t
	}
	return v
}

func (s *Server) getGroupingRules(ctx context.Context, in *ProjectPath) (*GroupingRulesOutput, error) {
	r, err := s.db.Read().GroupingRules(ctx, in.ProjectID)
	if err != nil {
		return nil, err
	}
	return &GroupingRulesOutput{rulesView(r)}, nil
}

// GroupingRulesInput replaces a project's grouping rules.
type GroupingRulesInput struct {
	ProjectPath
	Body struct {
		Fingerprint string `json:"fingerprint" required:"false" maxLength:"65536" doc:"Fingerprint rules; absent or empty: none"`
		StackTrace  string `json:"stack_trace" required:"false" maxLength:"65536" doc:"Stack trace rules; absent or empty: none"`
	}
}

// putGroupingRules replaces a project's rules once they parse; a rule that
// does not is 422 validation-failed naming the field and its line.
func (s *Server) putGroupingRules(ctx context.Context, in *GroupingRulesInput) (*GroupingRulesOutput, error) {
	r, err := groupinginfo.SaveGroupingRules(ctx, s.db, in.ProjectID, in.Body.Fingerprint, in.Body.StackTrace, principal(ctx).User.ID, s.now())
	if err != nil {
		return nil, err
	}
	return &GroupingRulesOutput{rulesView(r)}, nil
}
