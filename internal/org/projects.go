package org

import (
	"context"
	"strings"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/slug"
	"github.com/errata-dev/errata/internal/store"
)

// CreateProject makes a project in an organization; it gets the next
// project number of the installation.
func (s *Service) CreateProject(ctx context.Context, orgID, name string) (store.Project, error) {
	if err := CheckName(name); err != nil {
		return store.Project{}, err
	}
	now := s.clock()
	p := store.Project{ID: id.New(id.Project), OrgID: orgID, Name: strings.TrimSpace(name), CreatedAt: now, UpdatedAt: now}
	base := slug.Make(p.Name, "project")
	taken, err := s.db.Read().ProjectSlugsLike(ctx, orgID, base)
	if err != nil {
		return store.Project{}, err
	}
	p.Slug = slug.Free(base, taken)
	return s.db.Write().InsertProject(ctx, p)
}

// RenameProject changes a project's name.
func (s *Service) RenameProject(ctx context.Context, projectID, name string) (store.Project, error) {
	return s.UpdateProject(ctx, projectID, Change{Name: &name})
}
