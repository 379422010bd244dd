package store

import (
	"context"
	"fmt"
	"time"
)

// Invitation statuses as stored. "expired" is never stored: a pending
// invitation past ExpiresAt reads as expired.
const (
	InvitationPending  = "pending"
	InvitationAccepted = "accepted"
	InvitationRevoked  = "revoked"
	InvitationExpired  = "expired"
)

// Invitation asks someone to join an organization. Only a hash of its token
// is kept.
type Invitation struct {
	ID        string
	OrgID     string
	Email     string
	Role      string
	TokenHash []byte
	Status    string
	InvitedBy string
	ExpiresAt time.Time
	CreatedAt time.Time
	UpdatedAt time.Time
}

// StatusAt is the invitation's status as seen at now.
func (i Invitation) StatusAt(now time.Time) string {
	if i.Status == InvitationPending && !now.Before(i.ExpiresAt) {
		return InvitationExpired
	}
	return i.Status
}

const invitationCols = `id, organization_id, email, role, token_hash, status, invited_by, expires_at, created_at, updated_at`

func scanInvitation(s interface{ Scan(...any) error }) (Invitation, error) {
	var i Invitation
	var ex, cr, up int64
	if err := s.Scan(&i.ID, &i.OrgID, &i.Email, &i.Role, &i.TokenHash, &i.Status, &i.InvitedBy, &ex, &cr, &up); err != nil {
		return Invitation{}, err
	}
	i.ExpiresAt, i.CreatedAt, i.UpdatedAt = fromMS(ex), fromMS(cr), fromMS(up)
	return i, nil
}

// CreateInvitation inserts i.
func (c *Conn) CreateInvitation(ctx context.Context, i Invitation) error {
	_, err := c.exec(ctx, `INSERT INTO invitations (`+invitationCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		i.ID, i.OrgID, i.Email, i.Role, i.TokenHash, i.Status, i.InvitedBy, ms(i.ExpiresAt), ms(i.CreatedAt), ms(i.UpdatedAt))
	if err != nil {
		return fmt.Errorf("store: create invitation: %w", err)
	}
	return nil
}

// InvitationByID returns one invitation.
func (c *Conn) InvitationByID(ctx context.Context, id string) (Invitation, error) {
	i, err := scanInvitation(c.queryRow(ctx, `SELECT `+invitationCols+` FROM invitations WHERE id = ?`, id))
	if err != nil {
		return Invitation{}, fmt.Errorf("store: invitation %s: %w", id, translate(err))
	}
	return i, nil
}

// InvitationByTokenHash returns the invitation whose token hashes to h.
func (c *Conn) InvitationByTokenHash(ctx context.Context, h []byte) (Invitation, error) {
	i, err := scanInvitation(c.queryRow(ctx, `SELECT `+invitationCols+` FROM invitations WHERE token_hash = ?`, h))
	if err != nil {
		return Invitation{}, fmt.Errorf("store: invitation by token: %w", translate(err))
	}
	return i, nil
}

// ListInvitations lists an organization's invitations, newest first.
func (c *Conn) ListInvitations(ctx context.Context, orgID, before string, limit int) ([]Invitation, error) {
	rows, err := c.query(ctx, `SELECT `+invitationCols+` FROM invitations WHERE organization_id = ? AND (? = '' OR id < ?) ORDER BY id DESC LIMIT ?`,
		orgID, before, before, limit)
	if err != nil {
		return nil, fmt.Errorf("store: list invitations: %w", err)
	}
	return collect(rows, scanInvitation)
}

// SetInvitationStatus moves a pending invitation to status. An invitation
// that is no longer pending is ErrConflict, so two acceptances of one token
// cannot both succeed.
func (c *Conn) SetInvitationStatus(ctx context.Context, id, status string, now time.Time) error {
	err := c.execOne(ctx, `UPDATE invitations SET status = ?, updated_at = ? WHERE id = ? AND status = 'pending'`, status, ms(now), id)
	if err == ErrNotFound {
		err = ErrConflict
	}
	if err != nil {
		return fmt.Errorf("store: set invitation %s %s: %w", id, status, err)
	}
	return nil
}

// PendingInvitationsFor lists the invitations to email that are pending at
// now, oldest first.
func (c *Conn) PendingInvitationsFor(ctx context.Context, email string, now time.Time) ([]Invitation, error) {
	rows, err := c.query(ctx, `SELECT `+invitationCols+` FROM invitations WHERE email = ? AND status = 'pending' AND expires_at > ? ORDER BY id`,
		email, ms(now))
	if err != nil {
		return nil, fmt.Errorf("store: pending invitations: %w", err)
	}
	return collect(rows, scanInvitation)
}
