package org

import (
	"context"
	"strings"

	"github.com/errata-dev/errata/internal/id"
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
	return s.db.Write().InsertProject(ctx, p)
}

// RenameProject changes a project's name.
func (s *Service) RenameProject(ctx context.Context, projectID, name string) (store.Project, error) {
	if err := CheckName(name); err != nil {
		return store.Project{}, err
	}
	p, err := s.db.Read().ProjectByID(ctx, projectID)
	if err != nil {
		return store.Project{}, err
	}
	p.Name, p.UpdatedAt = strings.TrimSpace(name), s.clock()
	return p, s.db.Write().UpdateProject(ctx, p)
}
