package store

import (
	"context"
	"fmt"
	"time"
)

// Session is a signed-in user's session. Only a hash of its token is kept.
type Session struct {
	ID         string
	UserID     string
	TokenHash  []byte
	CreatedAt  time.Time
	ExpiresAt  time.Time
	LastUsedAt time.Time
}

// CreateSession inserts s.
func (c *Conn) CreateSession(ctx context.Context, s Session) error {
	_, err := c.exec(ctx, `INSERT INTO sessions (id, user_id, token_hash, created_at, expires_at, last_used_at) VALUES (?, ?, ?, ?, ?, ?)`,
		s.ID, s.UserID, s.TokenHash, ms(s.CreatedAt), ms(s.ExpiresAt), ms(s.LastUsedAt))
	if err != nil {
		return fmt.Errorf("store: create session: %w", err)
	}
	return nil
}

// SessionByTokenHash returns the session whose token hashes to h, expired or not.
func (c *Conn) SessionByTokenHash(ctx context.Context, h []byte) (Session, error) {
	var s Session
	var cr, ex, lu int64
	err := c.queryRow(ctx, `SELECT id, user_id, token_hash, created_at, expires_at, last_used_at FROM sessions WHERE token_hash = ?`, h).
		Scan(&s.ID, &s.UserID, &s.TokenHash, &cr, &ex, &lu)
	if err != nil {
		return Session{}, fmt.Errorf("store: session: %w", translate(err))
	}
	s.CreatedAt, s.ExpiresAt, s.LastUsedAt = fromMS(cr), fromMS(ex), fromMS(lu)
	return s, nil
}

// TouchSession records a use of the session and moves its expiry.
func (c *Conn) TouchSession(ctx context.Context, id string, usedAt, expiresAt time.Time) error {
	if err := c.execOne(ctx, `UPDATE sessions SET last_used_at = ?, expires_at = ? WHERE id = ?`, ms(usedAt), ms(expiresAt), id); err != nil {
		return fmt.Errorf("store: touch session %s: %w", id, err)
	}
	return nil
}

// DeleteSession ends a session.
func (c *Conn) DeleteSession(ctx context.Context, id string) error {
	if err := c.execOne(ctx, `DELETE FROM sessions WHERE id = ?`, id); err != nil {
		return fmt.Errorf("store: delete session %s: %w", id, err)
	}
	return nil
}

// DeleteExpiredSessions removes sessions that expired before now.
func (c *Conn) DeleteExpiredSessions(ctx context.Context, now time.Time) (int64, error) {
	res, err := c.exec(ctx, `DELETE FROM sessions WHERE expires_at < ?`, ms(now))
	if err != nil {
		return 0, fmt.Errorf("store: delete expired sessions: %w", err)
	}
	return res.RowsAffected()
}

// CapSessions ends the oldest sessions of a user beyond the newest keep, in
// c's transaction, and reports how many it ended. It is serialised per user
// like a quota, so concurrent sign-ins in any process cannot leave more.
func (c *Conn) CapSessions(ctx context.Context, userID string, keep int) (int64, error) {
	if err := c.lockSubject(ctx, "sessions:"+userID); err != nil {
		return 0, err
	}
	res, err := c.exec(ctx, `DELETE FROM sessions WHERE user_id = ? AND id NOT IN
		(SELECT id FROM sessions WHERE user_id = ? ORDER BY created_at DESC, id DESC LIMIT ?)`, userID, userID, keep)
	if err != nil {
		return 0, fmt.Errorf("store: cap sessions of %s: %w", userID, err)
	}
	return res.RowsAffected()
}
