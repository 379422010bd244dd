package httpapi

import (
	"context"
	"errors"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/errata-dev/errata/internal/search"

	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/tickets"
)

// BulkBody names groups by ids or by query and what to do to them.
type BulkBody struct {
	IDs   []string    `json:"ids,omitempty" maxItems:"1000" doc:"grp_ identifiers of groups of the project (at most 1,000); or query"`
	Query string      `json:"query,omitempty" doc:"A search query: every group it matches (at most 10,000); or ids"`
	Set   *GroupPatch `json:"set,omitempty" doc:"The fields of the group PATCH to apply to each group"`
	Merge bool        `json:"merge,omitempty" doc:"Merge the groups of ids into the one with the most events (ids only)"`
}

// TransformSchema leaves additionalProperties out of the body's schema:
// unknown fields are ignored, as in every request body (CONTRACT 2), while
// generated clients, which give a schema with additionalProperties: true a
// Set method for them, keep the field set.
func (BulkBody) TransformSchema(_ huma.Registry, s *huma.Schema) *huma.Schema {
	s.AdditionalProperties = nil
	return s
}

// bulkGroups applies a change to many groups of a project (CONTRACT 8):
// each group's change is atomic and recorded in its activity with the
// caller as actor.
func (s *Server) bulkGroups(ctx context.Context, in *struct {
	ProjectPath
	Body BulkBody
}) (*struct{ Body tickets.BulkResult }, error) {
	b := in.Body
	switch {
	case len(b.IDs) > 0 && b.Query != "":
		return nil, problem.New("validation-failed", "ids: give ids or query, not both")
	case len(b.IDs) == 0 && b.Query == "":
		return nil, problem.New("validation-failed", "ids: give at least one group id, or a query")
	case strings.TrimSpace(b.Query) == "" && b.Query != "":
		// Not "every group": a stray space must not change the whole project.
		return nil, problem.New("validation-failed", "query: is blank; give search terms (is:unresolved names every unresolved group), or ids")
	case (b.Set == nil) == !b.Merge:
		return nil, problem.New("validation-failed", "set: give set or merge: true, one of them")
	case b.Merge && b.Query != "":
		return nil, problem.New("validation-failed", "merge: merges groups named by ids only")
	}
	ids := b.IDs
	var still *store.GroupFilter // a bulk by query changes what still matches
	if b.Query != "" {
		var err error
		if ids, still, err = s.groupIDsMatching(ctx, in.ProjectID, b.Query, tickets.MaxBulkMatches+1); err != nil {
			return nil, err
		}
		if len(ids) > tickets.MaxBulkMatches {
			return nil, problem.Newf("validation-failed", "query: matches more than %d groups; narrow it", tickets.MaxBulkMatches)
		}
	}
	var res tickets.BulkResult
	var err error
	if b.Merge {
		res, err = s.tickets.BulkMerge(ctx, actor(ctx), in.ProjectID, ids)
	} else {
		ch, cerr := b.Set.change("set.", s.now())
		if cerr != nil {
			return nil, cerr
		}
		res, err = s.tickets.BulkChange(ctx, actor(ctx), in.ProjectID, ids, ch, still)
	}
	var p *problem.Problem
	if errors.As(err, &p) && strings.HasPrefix(p.Detail, "assignee_id: ") {
		p.Detail = "set." + p.Detail // the field as the bulk body names it
	}
	if err != nil {
		return nil, err
	}
	return &struct{ Body tickets.BulkResult }{res}, nil
}

// groupIDsMatching lists the ids of the project's groups (not merged into
// another) that query matches, at most limit, in the search language of
// the group list (docs/search.md), and the filter that matched them; a
// malformed query is 422 naming query and the term.
func (s *Server) groupIDsMatching(ctx context.Context, projectID, query string, limit int) ([]string, *store.GroupFilter, error) {
	q, err := tickets.ParseSearch(query, search.Groups, s.now(), principal(ctx).User.ID)
	if err != nil {
		return nil, nil, err
	}
	f := store.GroupFilter{Query: q}
	var ids []string
	before := ""
	for len(ids) < limit {
		n := min(1000, limit-len(ids))
		page, err := s.db.Read().ListGroups(ctx, projectID, f, before, n)
		if err != nil {
			return nil, nil, err
		}
		for _, g := range page {
			ids = append(ids, g.ID)
		}
		if len(page) < n {
			break
		}
		before = page[len(page)-1].ID
	}
	return ids, &f, nil
}
