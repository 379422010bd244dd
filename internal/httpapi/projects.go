package httpapi

import (
	"context"

	"github.com/errata-dev/errata/internal/audit"
	"github.com/errata-dev/errata/internal/org"
	"github.com/errata-dev/errata/internal/store"
)

// ProjectPath names a project.
type ProjectPath struct {
	ProjectID string `path:"project_id" doc:"prj_ identifier"`
}

// ProjectOutput is one project.
type ProjectOutput struct{ Body ProjectView }

func (s *Server) listProjects(ctx context.Context, in *struct {
	OrgPath
	ListParams
}) (*struct{ Body *Page[ProjectView] }, error) {
	page, err := list(s, "projects:"+in.OrgID, in.ListParams, func(before string, limit int) ([]store.Project, error) {
		return s.db.Read().ListProjects(ctx, in.OrgID, before, limit)
	}, func(p store.Project) string { return p.ID }, projectView)
	return &struct{ Body *Page[ProjectView] }{page}, err
}

func (s *Server) createProject(ctx context.Context, in *struct {
	OrgPath
	Body NameBody
}) (*ProjectOutput, error) {
	p, err := s.orgs.CreateProject(ctx, in.OrgID, in.Body.Name)
	if err != nil {
		return nil, err
	}
	return &ProjectOutput{projectView(p)}, nil
}

func (s *Server) getProject(ctx context.Context, in *ProjectPath) (*ProjectOutput, error) {
	p, err := s.db.Read().ProjectByID(ctx, in.ProjectID)
	if err != nil {
		return nil, err
	}
	return &ProjectOutput{projectView(p)}, nil
}

func (s *Server) updateProject(ctx context.Context, in *struct {
	ProjectPath
	Body ChangeBody
}) (*ProjectOutput, error) {
	p, err := s.orgs.UpdateProject(ctx, in.ProjectID, org.Change{Name: in.Body.Name, Slug: in.Body.Slug})
	if err != nil {
		return nil, err
	}
	return &ProjectOutput{projectView(p)}, nil
}

func (s *Server) deleteProject(ctx context.Context, in *ProjectPath) (*struct{}, error) {
	ctx = store.Unbounded(ctx) // all it holds goes in one transaction
	return nil, s.db.TxAgain(ctx, func(c *store.Conn) error {
		p, err := c.ProjectByID(ctx, in.ProjectID)
		if err != nil {
			return err
		}
		if err := c.DeleteProject(ctx, p.ID); err != nil {
			return err
		}
		return audit.Record(ctx, c, audit.Entry{OrgID: p.OrgID, Action: "project.deleted", Target: p.ID, Data: map[string]any{"name": p.Name}, At: s.now()})
	})
}
