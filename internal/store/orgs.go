package store

import (
	"context"
	"fmt"
	"time"

	"github.com/errata-dev/errata/internal/slug"
)

// Org is an organization: the unit of membership and plan.
type Org struct {
	ID   string
	Name string
	// Slug is the organization's URL name, unique in the installation.
	Slug      string
	Plan      string
	CreatedAt time.Time
	UpdatedAt time.Time
	// Require2FA refuses members without two-factor sign-in; SSORequired
	// refuses sessions that did not sign in through OpenID Connect.
	Require2FA, SSORequired bool
}

const orgCols = `o.id, o.name, o.slug, o.plan, o.created_at, o.updated_at, o.require_2fa, o.sso_required`

func scanOrg(s interface{ Scan(...any) error }) (Org, error) {
	var o Org
	var c, u int64
	if err := s.Scan(&o.ID, &o.Name, &o.Slug, &o.Plan, &c, &u, &o.Require2FA, &o.SSORequired); err != nil {
		return Org{}, err
	}
	o.CreatedAt, o.UpdatedAt = fromMS(c), fromMS(u)
	return o, nil
}

// CreateOrg inserts o.
func (c *Conn) CreateOrg(ctx context.Context, o Org) error {
	if o.Slug == "" {
		o.Slug = slug.OfID(o.ID)
	}
	_, err := c.exec(ctx, `INSERT INTO organizations (id, name, slug, plan, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`,
		o.ID, o.Name, o.Slug, o.Plan, ms(o.CreatedAt), ms(o.UpdatedAt))
	if err != nil {
		return fmt.Errorf("store: create organization: %w", err)
	}
	return nil
}

// OrgByID returns one organization.
func (c *Conn) OrgByID(ctx context.Context, id string) (Org, error) {
	o, err := scanOrg(c.queryRow(ctx, `SELECT `+orgCols+` FROM organizations o WHERE o.id = ?`, id))
	if err != nil {
		return Org{}, fmt.Errorf("store: organization %s: %w", id, translate(err))
	}
	return o, nil
}

// OrgsOfUser lists the organizations userID belongs to, newest first,
// starting below the id before ("" for the first page).
func (c *Conn) OrgsOfUser(ctx context.Context, userID, before string, limit int) ([]Org, error) {
	rows, err := c.query(ctx, `SELECT `+orgCols+` FROM organizations o JOIN members m ON m.organization_id = o.id
		WHERE m.user_id = ? AND (? = '' OR o.id < ?) ORDER BY o.id DESC LIMIT ?`, userID, before, before, limit)
	if err != nil {
		return nil, fmt.Errorf("store: list organizations: %w", err)
	}
	return collect(rows, scanOrg)
}

// Membership is an organization with the role a user holds in it.
type Membership struct {
	Org  Org
	Role string
}

// MembershipsOfUser lists up to limit organizations userID belongs to with
// the user's role in each, newest first: the home page's one query.
func (c *Conn) MembershipsOfUser(ctx context.Context, userID string, limit int) ([]Membership, error) {
	rows, err := c.query(ctx, `SELECT `+orgCols+`, m.role FROM organizations o JOIN members m ON m.organization_id = o.id
		WHERE m.user_id = ? ORDER BY o.id DESC LIMIT ?`, userID, limit)
	if err != nil {
		return nil, fmt.Errorf("store: memberships: %w", err)
	}
	return collect(rows, func(s interface{ Scan(...any) error }) (Membership, error) {
		var m Membership
		var cr, up int64
		if err := s.Scan(&m.Org.ID, &m.Org.Name, &m.Org.Slug, &m.Org.Plan, &cr, &up, &m.Org.Require2FA, &m.Org.SSORequired, &m.Role); err != nil {
			return Membership{}, err
		}
		m.Org.CreatedAt, m.Org.UpdatedAt = fromMS(cr), fromMS(up)
		return m, nil
	})
}

// UpdateOrg changes the name, slug, plan and sign-in rules of an
// organization: ErrConflict when another organization has the slug.
func (c *Conn) UpdateOrg(ctx context.Context, o Org) error {
	if err := c.execOne(ctx, `UPDATE organizations SET name = ?, slug = ?, plan = ?, require_2fa = ?, sso_required = ?, updated_at = ? WHERE id = ?`,
		o.Name, o.Slug, o.Plan, o.Require2FA, o.SSORequired, ms(o.UpdatedAt), o.ID); err != nil {
		return fmt.Errorf("store: update organization %s: %w", o.ID, err)
	}
	return nil
}

// DeleteOrg deletes an organization and, by cascade, everything in it.
func (c *Conn) DeleteOrg(ctx context.Context, id string) error {
	if err := c.execOne(ctx, `DELETE FROM organizations WHERE id = ?`, id); err != nil {
		return fmt.Errorf("store: delete organization %s: %w", id, err)
	}
	c.keysChanged()
	return nil
}

// LockOrg takes the organization's row lock until the transaction of c
// ends, so that checks over its members (the last owner) and the changes
// they guard cannot interleave with another transaction's. On SQLite a
// write transaction already holds the database's only write lock.
func (c *Conn) LockOrg(ctx context.Context, orgID string) error {
	return c.lockRow(ctx, `SELECT id FROM organizations WHERE id = ? FOR UPDATE`, orgID)
}

// LockProject takes the project's row lock until the transaction of c ends
// (see LockOrg): plan limits counted over its channels hold.
func (c *Conn) LockProject(ctx context.Context, projectID string) error {
	return c.lockRow(ctx, `SELECT id FROM projects WHERE id = ? FOR UPDATE`, projectID)
}

func (c *Conn) lockRow(ctx context.Context, q, id string) error {
	if !c.drv.sharedByProcesses() {
		return nil
	}
	if c.tx == nil {
		return fmt.Errorf("store: a row lock needs a transaction")
	}
	err := c.drv.waitTurn(ctx, c, turnWait, func() error {
		var got string
		return c.queryRow(ctx, q, id).Scan(&got)
	})
	if err != nil {
		return fmt.Errorf("store: lock %s: %w", id, translate(err))
	}
	return nil
}

// OrgBySlug returns the organization with a slug.
func (c *Conn) OrgBySlug(ctx context.Context, s string) (Org, error) {
	o, err := scanOrg(c.queryRow(ctx, `SELECT `+orgCols+` FROM organizations o WHERE o.slug = ?`, s))
	if err != nil {
		return Org{}, fmt.Errorf("store: organization %s: %w", s, translate(err))
	}
	return o, nil
}

// OrgSlugsLike returns the organization slugs that are s or start with s
// followed by '-', for choosing a free slug.
func (c *Conn) OrgSlugsLike(ctx context.Context, s string) ([]string, error) {
	return c.slugsLike(ctx, `SELECT slug FROM organizations WHERE slug = ? OR slug LIKE ?`, s, s+"-%")
}
