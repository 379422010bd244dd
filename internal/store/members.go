package store

import (
	"context"
	"fmt"
	"time"
)

// Member joins a user to an organization with a role. Email and Name are the
// user's, read with the member.
type Member struct {
	ID        string
	OrgID     string
	UserID    string
	Role      string
	CreatedAt time.Time
	Email     string
	Name      string
}

const memberSelect = `SELECT m.id, m.organization_id, m.user_id, m.role, m.created_at, u.email, u.name
	FROM members m JOIN users u ON u.id = m.user_id`

func scanMember(s interface{ Scan(...any) error }) (Member, error) {
	var m Member
	var cr int64
	if err := s.Scan(&m.ID, &m.OrgID, &m.UserID, &m.Role, &cr, &m.Email, &m.Name); err != nil {
		return Member{}, err
	}
	m.CreatedAt = fromMS(cr)
	return m, nil
}

// CreateMember inserts m; an existing membership is ErrConflict.
func (c *Conn) CreateMember(ctx context.Context, m Member) error {
	_, err := c.exec(ctx, `INSERT INTO members (id, organization_id, user_id, role, created_at) VALUES (?, ?, ?, ?, ?)`,
		m.ID, m.OrgID, m.UserID, m.Role, ms(m.CreatedAt))
	if err != nil {
		return fmt.Errorf("store: create member: %w", err)
	}
	return nil
}

// MemberByID returns one member.
func (c *Conn) MemberByID(ctx context.Context, id string) (Member, error) {
	m, err := scanMember(c.queryRow(ctx, memberSelect+` WHERE m.id = ?`, id))
	if err != nil {
		return Member{}, fmt.Errorf("store: member %s: %w", id, translate(err))
	}
	return m, nil
}

// MemberToAssign is MemberByID holding the member's row until c's
// transaction ends (FOR SHARE on PostgreSQL; SQLite's one writer
// serializes anyway), so that a removal of the member waits for the
// assignment and then unassigns it (DeleteMember).
func (c *Conn) MemberToAssign(ctx context.Context, id string) (Member, error) {
	lock := ""
	if c.drv.name() == Postgres {
		lock = " FOR SHARE OF m"
	}
	m, err := scanMember(c.queryRow(ctx, memberSelect+` WHERE m.id = ?`+lock, id))
	if err != nil {
		return Member{}, fmt.Errorf("store: member %s: %w", id, translate(err))
	}
	return m, nil
}

// MemberOf returns userID's membership of orgID.
func (c *Conn) MemberOf(ctx context.Context, orgID, userID string) (Member, error) {
	m, err := scanMember(c.queryRow(ctx, memberSelect+` WHERE m.organization_id = ? AND m.user_id = ?`, orgID, userID))
	if err != nil {
		return Member{}, fmt.Errorf("store: membership of %s: %w", orgID, translate(err))
	}
	return m, nil
}

// MemberByEmail returns the member of orgID whose account has the
// (canonical) email.
func (c *Conn) MemberByEmail(ctx context.Context, orgID, email string) (Member, error) {
	m, err := scanMember(c.queryRow(ctx, memberSelect+` WHERE m.organization_id = ? AND u.email = ?`, orgID, email))
	if err != nil {
		return Member{}, fmt.Errorf("store: member of %s by email: %w", orgID, translate(err))
	}
	return m, nil
}

// ListMembers lists an organization's members, newest first.
func (c *Conn) ListMembers(ctx context.Context, orgID, before string, limit int) ([]Member, error) {
	rows, err := c.query(ctx, memberSelect+` WHERE m.organization_id = ? AND (? = '' OR m.id < ?) ORDER BY m.id DESC LIMIT ?`,
		orgID, before, before, limit)
	if err != nil {
		return nil, fmt.Errorf("store: list members: %w", err)
	}
	return collect(rows, scanMember)
}

// CountOwners reports how many owners an organization has.
func (c *Conn) CountOwners(ctx context.Context, orgID string) (int, error) {
	var n int
	if err := c.queryRow(ctx, `SELECT COUNT(*) FROM members WHERE organization_id = ? AND role = 'owner'`, orgID).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: count owners: %w", translate(err))
	}
	return n, nil
}

// SetMemberRole changes a member's role.
func (c *Conn) SetMemberRole(ctx context.Context, id, role string) error {
	if err := c.execOne(ctx, `UPDATE members SET role = ? WHERE id = ?`, role, id); err != nil {
		return fmt.Errorf("store: set role of %s: %w", id, err)
	}
	return nil
}

// DeleteMember removes a member from its organization; the groups
// assigned to it become unassigned, and their ids are returned (for their
// activity); its email channels are disabled, and other members' email
// channels to its address wait for a confirmation again.
func (c *Conn) DeleteMember(ctx context.Context, id string) ([]string, error) {
	m, err := c.MemberByID(ctx, id)
	if err != nil {
		return nil, err
	}
	// The row first: its delete waits for an assignment that holds it
	// (MemberToAssign), and the groups are read after, so that they include
	// that assignment (PostgreSQL reads each statement's own snapshot).
	if err := c.execOne(ctx, `DELETE FROM members WHERE id = ?`, id); err != nil {
		return nil, fmt.Errorf("store: delete member %s: %w", id, err)
	}
	// The email channels that sent the organization's tickets to the
	// person removed stop (they stay, disabled, for an admin to see).
	if _, err := c.exec(ctx, `UPDATE channels SET enabled = ? WHERE member_id = ? AND type = ? AND (email = '' OR lower(email) = lower(?))`,
		false, id, ChannelEmail, m.Email); err != nil {
		return nil, fmt.Errorf("store: delete member %s: %w", id, err)
	}
	// Other members' email channels to the person's address were confirmed
	// because the address was a member's; it no longer is, so they wait
	// for a confirmation like any outside address (CONTRACT 8), sending
	// nothing until their owner sends the link again and it is opened.
	if _, err := c.exec(ctx, `UPDATE channels SET confirmation = ?, confirm_token_hash = NULL WHERE type = ? AND confirmation = ?
		AND lower(email) = lower(?) AND member_id <> ? AND project_id IN (SELECT id FROM projects WHERE organization_id = ?)`,
		ConfirmationPending, ChannelEmail, ConfirmationConfirmed, m.Email, id, m.OrgID); err != nil {
		return nil, fmt.Errorf("store: delete member %s: %w", id, err)
	}
	rows, err := c.query(ctx, `UPDATE error_groups SET assignee_id = NULL WHERE assignee_id = ? RETURNING id`, id)
	if err != nil {
		return nil, fmt.Errorf("store: delete member %s: %w", id, err)
	}
	unassigned, err := collect(rows, func(s interface{ Scan(...any) error }) (string, error) {
		var g string
		return g, s.Scan(&g)
	})
	if err != nil {
		return nil, fmt.Errorf("store: delete member %s: %w", id, err)
	}
	return unassigned, nil
}
