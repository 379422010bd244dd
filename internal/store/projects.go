package store

import (
	"context"
	"fmt"
	"time"
)

// Project belongs to an organization and receives events.
type Project struct {
	ID        string
	OrgID     string
	Name      string
	CreatedAt time.Time
	UpdatedAt time.Time
}

const projectCols = `id, organization_id, name, created_at, updated_at`

func scanProject(s interface{ Scan(...any) error }) (Project, error) {
	var p Project
	var cr, up int64
	if err := s.Scan(&p.ID, &p.OrgID, &p.Name, &cr, &up); err != nil {
		return Project{}, err
	}
	p.CreatedAt, p.UpdatedAt = fromMS(cr), fromMS(up)
	return p, nil
}

// CreateProject inserts p.
func (c *Conn) CreateProject(ctx context.Context, p Project) error {
	_, err := c.exec(ctx, `INSERT INTO projects (`+projectCols+`) VALUES (?, ?, ?, ?, ?)`,
		p.ID, p.OrgID, p.Name, ms(p.CreatedAt), ms(p.UpdatedAt))
	if err != nil {
		return fmt.Errorf("store: create project: %w", err)
	}
	return nil
}

// ProjectByID returns one project.
func (c *Conn) ProjectByID(ctx context.Context, id string) (Project, error) {
	p, err := scanProject(c.queryRow(ctx, `SELECT `+projectCols+` FROM projects WHERE id = ?`, id))
	if err != nil {
		return Project{}, fmt.Errorf("store: project %s: %w", id, translate(err))
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
	rows, err := c.query(ctx, `SELECT p.id, p.organization_id, p.name, p.created_at, p.updated_at FROM projects p
		JOIN members m ON m.organization_id = p.organization_id WHERE m.user_id = ?
		ORDER BY p.organization_id DESC, p.id DESC LIMIT ?`, userID, limit)
	if err != nil {
		return nil, fmt.Errorf("store: projects of user: %w", err)
	}
	return collect(rows, scanProject)
}

// UpdateProject renames a project.
func (c *Conn) UpdateProject(ctx context.Context, p Project) error {
	if err := c.execOne(ctx, `UPDATE projects SET name = ?, updated_at = ? WHERE id = ?`, p.Name, ms(p.UpdatedAt), p.ID); err != nil {
		return fmt.Errorf("store: update project %s: %w", p.ID, err)
	}
	return nil
}

// DeleteProject deletes a project and, by cascade, its keys.
func (c *Conn) DeleteProject(ctx context.Context, id string) error {
	if err := c.execOne(ctx, `DELETE FROM projects WHERE id = ?`, id); err != nil {
		return fmt.Errorf("store: delete project %s: %w", id, err)
	}
	return nil
}
