package store

import (
	"context"
	"fmt"
	"time"
)

// SetVerifyToken gives user id a new verification link token (its hash),
// sent at now; the previous link stops working.
func (c *Conn) SetVerifyToken(ctx context.Context, id string, hash []byte, now time.Time) error {
	if err := c.execOne(ctx, `UPDATE users SET verify_token_hash = ?, verify_sent_at = ? WHERE id = ? AND email_verified_at IS NULL`, hash, ms(now), id); err != nil {
		return fmt.Errorf("store: verification token of %s: %w", id, err)
	}
	return nil
}

// VerifyEmail verifies the address of the user whose link token hashes to
// h, if it was sent after notBefore, and forgets the token (a link works
// once); it returns the user. Otherwise ErrNotFound.
func (c *Conn) VerifyEmail(ctx context.Context, h []byte, notBefore, now time.Time) (User, error) {
	u, err := scanUser(c.queryRow(ctx, `SELECT `+userCols+` FROM users WHERE verify_token_hash = ? AND verify_sent_at >= ?`, h, ms(notBefore)))
	if err != nil {
		return User{}, fmt.Errorf("store: user by verification token: %w", translate(err))
	}
	if err := c.execOne(ctx, `UPDATE users SET email_verified_at = ?, verify_token_hash = NULL, updated_at = ? WHERE id = ? AND verify_token_hash = ?`,
		ms(now), ms(now), u.ID, h); err != nil {
		return User{}, fmt.Errorf("store: verify %s: %w", u.ID, err)
	}
	u.EmailVerifiedAt = &now
	return u, nil
}

// ConfirmMemberChannels confirms the pending email channels to a user's
// own address in the organizations the user belongs to: the address is now
// a verified member's, which needs no confirmation. It reports how many.
func (c *Conn) ConfirmMemberChannels(ctx context.Context, userID, email string, now time.Time) (int64, error) {
	res, err := c.exec(ctx, `UPDATE channels SET confirmation = ?, confirm_token_hash = NULL, updated_at = ?
		WHERE email = ? AND confirmation = ? AND project_id IN
		(SELECT p.id FROM projects p JOIN members m ON m.organization_id = p.organization_id WHERE m.user_id = ?)`,
		ConfirmationConfirmed, ms(now), email, ConfirmationPending, userID)
	if err != nil {
		return 0, fmt.Errorf("store: confirm channels of %s: %w", userID, err)
	}
	return res.RowsAffected()
}

// MarkEmailVerified records that user id's address was verified at now
// (kept if it already was).
func (c *Conn) MarkEmailVerified(ctx context.Context, id string, now time.Time) error {
	if err := c.execOne(ctx, `UPDATE users SET email_verified_at = COALESCE(email_verified_at, ?), verify_token_hash = NULL WHERE id = ?`, ms(now), id); err != nil {
		return fmt.Errorf("store: mark %s verified: %w", id, err)
	}
	return nil
}
