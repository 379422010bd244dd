package store

import (
	"context"
	"fmt"
	"time"

	"github.com/errata-dev/errata/internal/slug"
)

// Project belongs to an organization and receives events.
type Project struct {
	ID    string
	OrgID string
	Name  string
	// Slug is the project's URL name, unique in its organization.
	Slug string
	// Number is a positive integer unique in the installation, given at
	// creation and never reused: Sentry DSNs name the project by it.
	Number    int64
	CreatedAt time.Time
	UpdatedAt time.Time
}

const projectCols = `id, organization_id, name, slug, number, created_at, updated_at`

func scanProject(s interface{ Scan(...any) error }) (Project, error) {
	var p Project
	var cr, up int64
	if err := s.Scan(&p.ID, &p.OrgID, &p.Name, &p.Slug, &p.Number, &cr, &up); err != nil {
		return Project{}, err
	}
	p.CreatedAt, p.UpdatedAt = fromMS(cr), fromMS(up)
	return p, nil
}

// CreateProject inserts p with the next project number (see
// InsertProject).
func (c *Conn) CreateProject(ctx context.Context, p Project) error {
	_, err := c.InsertProject(ctx, p)
	return err
}

// InsertProject inserts p and returns it with its number, the next of the
// installation's project numbers (p.Number is ignored). Numbers only grow:
// PostgreSQL takes them from a sequence, SQLite from a counter row read in
// the INSERT statement itself and moved on by a trigger (migration 00013).
func (c *Conn) InsertProject(ctx context.Context, p Project) (Project, error) {
	if p.Slug == "" {
		p.Slug = slug.OfID(p.ID)
	}
	if err := c.queryRow(ctx, c.drv.insertProjectQuery(), p.ID, p.OrgID, p.Name, p.Slug, ms(p.CreatedAt), ms(p.UpdatedAt)).Scan(&p.Number); err != nil {
		return Project{}, fmt.Errorf("store: create project: %w", translate(err))
	}
	return p, nil
}

// ProjectByID returns one project.
func (c *Conn) ProjectByID(ctx context.Context, id string) (Project, error) {
	p, err := scanProject(c.queryRow(ctx, `SELECT `+projectCols+` FROM projects WHERE id = ?`, id))
	if err != nil {
		return Project{}, fmt.Errorf("store: project %s: %w", id, translate(err))
	}
	return p, nil
}

// ProjectByNumber returns the project with a number (a Sentry DSN's).
func (c *Conn) ProjectByNumber(ctx context.Context, number int64) (Project, error) {
	p, err := scanProject(c.queryRow(ctx, `SELECT `+projectCols+` FROM projects WHERE number = ?`, number))
	if err != nil {
		return Project{}, fmt.Errorf("store: project number %d: %w", number, translate(err))
	}
	return p, nil
}

// ListProjects lists an organization's projects, newest first.
func (c *Conn) ListProjects(ctx context.Context, orgID, before string, limit int) ([]Project, error) {
	rows, err := c.query(ctx, `SELECT `+projectCols+` FROM projects WHERE organization_id = ? AND (? = '' OR id < ?) ORDER BY id DESC LIMIT ?`,
		orgID, before, before, limit)
	if err != nil {
		return nil, fmt.Errorf("store: list projects: %w", err)
	}
	return collect(rows, scanProject)
}

// ProjectsOfUser lists up to limit projects of every organization userID
// belongs to, newest organization first and newest project first within
// it: the home page's one query.
func (c *Conn) ProjectsOfUser(ctx context.Context, userID string, limit int) ([]Project, error) {
	rows, err := c.query(ctx, `SELECT p.id, p.organization_id, p.name, p.slug, p.number, p.created_at, p.updated_at FROM projects p
		JOIN members m ON m.organization_id = p.organization_id WHERE m.user_id = ?
		ORDER BY p.organization_id DESC, p.id DESC LIMIT ?`, userID, limit)
	if err != nil {
		return nil, fmt.Errorf("store: projects of user: %w", err)
	}
	return collect(rows, scanProject)
}

// UpdateProject changes a project's name and slug: ErrConflict when
// another project of its organization has the slug.
func (c *Conn) UpdateProject(ctx context.Context, p Project) error {
	if err := c.execOne(ctx, `UPDATE projects SET name = ?, slug = ?, updated_at = ? WHERE id = ?`, p.Name, p.Slug, ms(p.UpdatedAt), p.ID); err != nil {
		return fmt.Errorf("store: update project %s: %w", p.ID, err)
	}
	c.keysChanged()
	return nil
}

// DeleteProject deletes a project and, by cascade, its keys.
func (c *Conn) DeleteProject(ctx context.Context, id string) error {
	if err := c.execOne(ctx, `DELETE FROM projects WHERE id = ?`, id); err != nil {
		return fmt.Errorf("store: delete project %s: %w", id, err)
	}
	c.keysChanged()
	return nil
}

// ProjectBySlug returns the project of an organization with a slug.
func (c *Conn) ProjectBySlug(ctx context.Context, orgID, s string) (Project, error) {
	p, err := scanProject(c.queryRow(ctx, `SELECT `+projectCols+` FROM projects WHERE organization_id = ? AND slug = ?`, orgID, s))
	if err != nil {
		return Project{}, fmt.Errorf("store: project %s: %w", s, translate(err))
	}
	return p, nil
}

// ProjectSlugsLike returns the slugs of an organization's projects that are
// s or start with s followed by '-', for choosing a free slug.
func (c *Conn) ProjectSlugsLike(ctx context.Context, orgID, s string) ([]string, error) {
	return c.slugsLike(ctx, `SELECT slug FROM projects WHERE organization_id = ? AND (slug = ? OR slug LIKE ?)`, orgID, s, s+"-%")
}

func (c *Conn) slugsLike(ctx context.Context, q string, args ...any) ([]string, error) {
	rows, err := c.query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: slugs: %w", err)
	}
	return collect(rows, func(s interface{ Scan(...any) error }) (string, error) {
		var v string
		return v, s.Scan(&v)
	})
}
