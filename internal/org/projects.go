package org

import (
	"context"
	"errors"
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
	for attempt := 1; ; attempt++ {
		taken, err := s.db.Read().ProjectSlugsLike(ctx, orgID, base)
		if err != nil {
			return store.Project{}, err
		}
		p.Slug = slug.Free(base, taken)
		created, err := s.db.Write().InsertProject(ctx, p)
		// Another project of the name took the free slug meanwhile: the
		// next free one, as one after the other would get.
		if errors.Is(err, store.ErrConflict) && attempt < slugAttempts {
			continue
		}
		return created, err
	}
}

// slugAttempts bounds the tries of a creation whose free slug another
// creation of the same name took first.
const slugAttempts = 20

// RenameProject changes a project's name.
func (s *Service) RenameProject(ctx context.Context, projectID, name string) (store.Project, error) {
	return s.UpdateProject(ctx, projectID, Change{Name: &name})
}
