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
	// IP and UserAgent are the client's at sign-in.
	IP, UserAgent string
	// Method is how the session signed in: SignInPassword or SignInOIDC.
	Method string
}

// How a session signed in.
const (
	SignInPassword = "password"
	SignInOIDC     = "oidc"
)

const sessionCols = `id, user_id, token_hash, created_at, expires_at, last_used_at, ip, user_agent, method`

func scanSession(r interface{ Scan(...any) error }) (Session, error) {
	var s Session
	var cr, ex, lu int64
	if err := r.Scan(&s.ID, &s.UserID, &s.TokenHash, &cr, &ex, &lu, &s.IP, &s.UserAgent, &s.Method); err != nil {
		return Session{}, err
	}
	s.CreatedAt, s.ExpiresAt, s.LastUsedAt = fromMS(cr), fromMS(ex), fromMS(lu)
	return s, nil
}

// CreateSession inserts s.
func (c *Conn) CreateSession(ctx context.Context, s Session) error {
	if s.Method == "" {
		s.Method = SignInPassword
	}
	_, err := c.exec(ctx, `INSERT INTO sessions (`+sessionCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		s.ID, s.UserID, s.TokenHash, ms(s.CreatedAt), ms(s.ExpiresAt), ms(s.LastUsedAt), s.IP, s.UserAgent, s.Method)
	if err != nil {
		return fmt.Errorf("store: create session: %w", err)
	}
	return nil
}

// SessionByTokenHash returns the session whose token hashes to h, expired or not.
func (c *Conn) SessionByTokenHash(ctx context.Context, h []byte) (Session, error) {
	s, err := scanSession(c.queryRow(ctx, `SELECT `+sessionCols+` FROM sessions WHERE token_hash = ?`, h))
	if err != nil {
		return Session{}, fmt.Errorf("store: session: %w", translate(err))
	}
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
// c's transaction, and returns the ids it ended. It is serialised per user
// like a quota, so concurrent sign-ins in any process cannot leave more.
func (c *Conn) CapSessions(ctx context.Context, userID string, keep int) ([]string, error) {
	if err := c.lockSubject(ctx, "sessions:"+userID); err != nil {
		return nil, err
	}
	return c.deleteSessions(ctx, `DELETE FROM sessions WHERE user_id = ? AND id NOT IN
		(SELECT id FROM sessions WHERE user_id = ? ORDER BY created_at DESC, id DESC LIMIT ?) RETURNING id`, userID, userID, keep)
}

// deleteSessions runs q, a DELETE … RETURNING id of sessions, and returns
// the ids it ended.
func (c *Conn) deleteSessions(ctx context.Context, q string, args ...any) ([]string, error) {
	rows, err := c.query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: end sessions: %w", err)
	}
	ids, err := collect(rows, scanOne[string])
	if err != nil {
		return nil, fmt.Errorf("store: end sessions: %w", err)
	}
	return ids, nil
}

// SessionsOfUser lists a user's unexpired sessions at now, newest first,
// starting below the id before ("" for the first page).
func (c *Conn) SessionsOfUser(ctx context.Context, userID string, now time.Time, before string, limit int) ([]Session, error) {
	rows, err := c.query(ctx, `SELECT `+sessionCols+` FROM sessions WHERE user_id = ? AND expires_at > ? AND (? = '' OR id < ?)
		ORDER BY id DESC LIMIT ?`, userID, ms(now), before, before, limit)
	if err != nil {
		return nil, fmt.Errorf("store: sessions of %s: %w", userID, err)
	}
	return collect(rows, scanSession)
}

// DeleteSessionOf ends session id if it is userID's; else ErrNotFound.
func (c *Conn) DeleteSessionOf(ctx context.Context, userID, id string) error {
	if err := c.execOne(ctx, `DELETE FROM sessions WHERE id = ? AND user_id = ?`, id, userID); err != nil {
		return fmt.Errorf("store: delete session %s: %w", id, err)
	}
	return nil
}

// DeleteOtherSessions ends every session of userID but keep and returns
// the ids it ended.
func (c *Conn) DeleteOtherSessions(ctx context.Context, userID, keep string) ([]string, error) {
	return c.deleteSessions(ctx, `DELETE FROM sessions WHERE user_id = ? AND id <> ? RETURNING id`, userID, keep)
}

// SessionByID returns one session, expired or not.
func (c *Conn) SessionByID(ctx context.Context, id string) (Session, error) {
	s, err := scanSession(c.queryRow(ctx, `SELECT `+sessionCols+` FROM sessions WHERE id = ?`, id))
	if err != nil {
		return Session{}, fmt.Errorf("store: session %s: %w", id, translate(err))
	}
	return s, nil
}
