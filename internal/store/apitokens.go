package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"
)

// APIToken is a user's personal API token: it acts as its user within its
// scopes. Only a hash of its secret is kept.
type APIToken struct {
	ID         string
	UserID     string
	Name       string
	Scopes     []string
	SecretHash []byte
	CreatedAt  time.Time
	ExpiresAt  *time.Time
	LastUsedAt *time.Time
	// SignInMethod is how the session that made the token had signed in
	// (SignInPassword, SignInOIDC): sso_required accepts only tokens made
	// from an OpenID Connect session.
	SignInMethod string
}

const tokenCols = `id, user_id, name, scopes, secret_hash, created_at, expires_at, last_used_at, sign_in_method`

func scanToken(s interface{ Scan(...any) error }) (APIToken, error) {
	var t APIToken
	var scopes string
	var cr int64
	var ex, lu sql.NullInt64
	if err := s.Scan(&t.ID, &t.UserID, &t.Name, &scopes, &t.SecretHash, &cr, &ex, &lu, &t.SignInMethod); err != nil {
		return APIToken{}, err
	}
	t.Scopes = strings.Fields(scopes)
	t.CreatedAt, t.ExpiresAt, t.LastUsedAt = fromMS(cr), fromNullMS(ex), fromNullMS(lu)
	return t, nil
}

// CreateAPIToken inserts t.
func (c *Conn) CreateAPIToken(ctx context.Context, t APIToken) error {
	_, err := c.exec(ctx, `INSERT INTO api_tokens (`+tokenCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		t.ID, t.UserID, t.Name, strings.Join(t.Scopes, " "), t.SecretHash, ms(t.CreatedAt), nullMS(t.ExpiresAt), nullMS(t.LastUsedAt), t.SignInMethod)
	if err != nil {
		return fmt.Errorf("store: create API token: %w", err)
	}
	return nil
}

// APITokenByID returns one token.
func (c *Conn) APITokenByID(ctx context.Context, id string) (APIToken, error) {
	t, err := scanToken(c.queryRow(ctx, `SELECT `+tokenCols+` FROM api_tokens WHERE id = ?`, id))
	if err != nil {
		return APIToken{}, fmt.Errorf("store: API token %s: %w", id, translate(err))
	}
	return t, nil
}

// ListAPITokens lists a user's tokens, newest first.
func (c *Conn) ListAPITokens(ctx context.Context, userID, before string, limit int) ([]APIToken, error) {
	rows, err := c.query(ctx, `SELECT `+tokenCols+` FROM api_tokens WHERE user_id = ? AND (? = '' OR id < ?) ORDER BY id DESC LIMIT ?`,
		userID, before, before, limit)
	if err != nil {
		return nil, fmt.Errorf("store: list API tokens: %w", err)
	}
	return collect(rows, scanToken)
}

// DeleteAPIToken deletes one of a user's tokens: ErrNotFound when the user
// has no such token.
func (c *Conn) DeleteAPIToken(ctx context.Context, userID, id string) error {
	if err := c.execOne(ctx, `DELETE FROM api_tokens WHERE id = ? AND user_id = ?`, id, userID); err != nil {
		return fmt.Errorf("store: delete API token %s: %w", id, err)
	}
	return nil
}

// DeleteAPITokensOf deletes every token of a user and returns their ids.
func (c *Conn) DeleteAPITokensOf(ctx context.Context, userID string) ([]string, error) {
	rows, err := c.query(ctx, `DELETE FROM api_tokens WHERE user_id = ? RETURNING id`, userID)
	if err != nil {
		return nil, fmt.Errorf("store: delete API tokens of %s: %w", userID, err)
	}
	ids, err := collect(rows, scanOne[string])
	if err != nil {
		return nil, fmt.Errorf("store: delete API tokens of %s: %w", userID, err)
	}
	return ids, nil
}

// TouchAPIToken records a use of the token.
func (c *Conn) TouchAPIToken(ctx context.Context, id string, at time.Time) error {
	if err := c.execOne(ctx, `UPDATE api_tokens SET last_used_at = ? WHERE id = ?`, ms(at), id); err != nil {
		return fmt.Errorf("store: touch API token %s: %w", id, err)
	}
	return nil
}
