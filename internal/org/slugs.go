package org

import (
	"context"
	"errors"
	"strings"

	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/slug"
	"github.com/errata-dev/errata/internal/store"
)

// Change is a PATCH of an organization or project: nil fields stay.
type Change struct {
	Name, Slug *string
}

func (ch Change) check() error {
	if ch.Name == nil && ch.Slug == nil {
		return problem.New("validation-failed", "name: 1 to 100 characters, not blank (or give slug)")
	}
	if ch.Name != nil {
		if err := CheckName(*ch.Name); err != nil {
			return err
		}
	}
	if ch.Slug != nil && !slug.Valid(*ch.Slug) {
		return problem.Newf("validation-failed", "slug: 1 to %d characters of a-z, 0-9 and -", slug.MaxLen)
	}
	return nil
}

func slugTaken(err error, s *string) error {
	if errors.Is(err, store.ErrConflict) && s != nil {
		return problem.Newf("conflict", "slug: %q is taken", *s)
	}
	return err
}

// UpdateProject renames a project or changes its slug (409 conflict when
// another project of its organization has it).
func (s *Service) UpdateProject(ctx context.Context, projectID string, ch Change) (store.Project, error) {
	if err := ch.check(); err != nil {
		return store.Project{}, err
	}
	var p store.Project
	err := s.db.Tx(ctx, func(c *store.Conn) error {
		before, err := c.ProjectByID(ctx, projectID)
		if err != nil {
			return err
		}
		p = before
		if ch.Name != nil {
			p.Name = strings.TrimSpace(*ch.Name)
		}
		if ch.Slug != nil {
			p.Slug = *ch.Slug
		}
		p.UpdatedAt = s.clock()
		if err := c.UpdateProject(ctx, p); err != nil {
			return slugTaken(err, ch.Slug)
		}
		// Settings changes are audited (CONTRACT 8), as an organization's.
		for _, a := range []struct{ action, from, to string }{
			{"project.renamed", before.Name, p.Name},
			{"project.slug_changed", before.Slug, p.Slug},
		} {
			if a.from == a.to {
				continue
			}
			if err := s.record(ctx, c, p.OrgID, a.action, p.ID, map[string]any{"from": a.from, "to": a.to}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return store.Project{}, err
	}
	return p, nil
}
