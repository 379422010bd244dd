package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"
)

// APIKey lets an application send events to one project. Only a hash of its
// secret is kept.
type APIKey struct {
	ID         string
	ProjectID  string
	Name       string
	SecretHash []byte
	CreatedAt  time.Time
	LastUsedAt *time.Time
	RevokedAt  *time.Time
	// AllowedOrigins are the origins a browser may send the key's Sentry
	// requests from; ["*"] (the default) allows every one.
	AllowedOrigins []string
}

// AllOrigins is the allowed origins of a key that does not limit them.
var AllOrigins = []string{"*"}

const keyCols = `id, project_id, name, secret_hash, created_at, last_used_at, revoked_at, allowed_origins`

func scanKey(s interface{ Scan(...any) error }) (APIKey, error) {
	var k APIKey
	var cr int64
	var lu, rv sql.NullInt64
	var origins string
	if err := s.Scan(&k.ID, &k.ProjectID, &k.Name, &k.SecretHash, &cr, &lu, &rv, &origins); err != nil {
		return APIKey{}, err
	}
	k.CreatedAt, k.LastUsedAt, k.RevokedAt = fromMS(cr), fromNullMS(lu), fromNullMS(rv)
	k.AllowedOrigins = originList(origins)
	return k, nil
}

// originList reads the allowed_origins column; what cannot be read allows
// nothing rather than everything.
func originList(col string) []string {
	var v []string
	if err := json.Unmarshal([]byte(col), &v); err != nil || v == nil {
		return []string{}
	}
	return v
}

// originsCol writes a key's allowed origins, nil being the default, all.
func originsCol(v []string) string {
	if v == nil {
		v = AllOrigins
	}
	return jsonList(v)
}

// CreateAPIKey inserts k (nil AllowedOrigins: every origin).
func (c *Conn) CreateAPIKey(ctx context.Context, k APIKey) error {
	_, err := c.exec(ctx, `INSERT INTO api_keys (`+keyCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		k.ID, k.ProjectID, k.Name, k.SecretHash, ms(k.CreatedAt), nullMS(k.LastUsedAt), nullMS(k.RevokedAt), originsCol(k.AllowedOrigins))
	if err != nil {
		return fmt.Errorf("store: create API key: %w", err)
	}
	return nil
}

// APIKeyByID returns one key, revoked or not.
func (c *Conn) APIKeyByID(ctx context.Context, id string) (APIKey, error) {
	k, err := scanKey(c.queryRow(ctx, `SELECT `+keyCols+` FROM api_keys WHERE id = ?`, id))
	if err != nil {
		return APIKey{}, fmt.Errorf("store: API key %s: %w", id, translate(err))
	}
	return k, nil
}

// APIKeyWithProject returns one key, revoked or not, with its project, in
// one query: every ingestion request checks its key, so this is the read
// of the hot path.
func (c *Conn) APIKeyWithProject(ctx context.Context, id string) (APIKey, Project, error) {
	var k APIKey
	var p Project
	var kc, pc, pu int64
	var lu, rv sql.NullInt64
	var origins string
	err := c.queryRow(ctx, `SELECT k.id, k.project_id, k.name, k.secret_hash, k.created_at, k.last_used_at, k.revoked_at, k.allowed_origins,
		p.id, p.organization_id, p.name, p.slug, p.number, p.created_at, p.updated_at
		FROM api_keys k JOIN projects p ON p.id = k.project_id WHERE k.id = ?`, id).
		Scan(&k.ID, &k.ProjectID, &k.Name, &k.SecretHash, &kc, &lu, &rv, &origins, &p.ID, &p.OrgID, &p.Name, &p.Slug, &p.Number, &pc, &pu)
	if err != nil {
		return APIKey{}, Project{}, fmt.Errorf("store: API key %s: %w", id, translate(err))
	}
	k.CreatedAt, k.LastUsedAt, k.RevokedAt = fromMS(kc), fromNullMS(lu), fromNullMS(rv)
	k.AllowedOrigins = originList(origins)
	p.CreatedAt, p.UpdatedAt = fromMS(pc), fromMS(pu)
	return k, p, nil
}

// ListAPIKeys lists a project's keys, newest first, revoked ones included.
func (c *Conn) ListAPIKeys(ctx context.Context, projectID, before string, limit int) ([]APIKey, error) {
	rows, err := c.query(ctx, `SELECT `+keyCols+` FROM api_keys WHERE project_id = ? AND (? = '' OR id < ?) ORDER BY id DESC LIMIT ?`,
		projectID, before, before, limit)
	if err != nil {
		return nil, fmt.Errorf("store: list API keys: %w", err)
	}
	return collect(rows, scanKey)
}

// RevokeAPIKeyOnce revokes a key that is not revoked yet and reports
// whether it did: of concurrent revocations one does (the row's update
// waits for the other's), so that one is audited.
func (c *Conn) RevokeAPIKeyOnce(ctx context.Context, id string, at time.Time) (bool, error) {
	res, err := c.exec(ctx, `UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL`, ms(at), id)
	if err != nil {
		return false, fmt.Errorf("store: revoke API key %s: %w", id, err)
	}
	n, err := res.RowsAffected()
	if err != nil || n == 0 {
		return false, err
	}
	c.keysChanged()
	return true, nil
}

// UpdateAPIKey renames a key and sets its allowed origins: a nil name or
// origins leaves that one as it is.
func (c *Conn) UpdateAPIKey(ctx context.Context, id string, name *string, origins []string) error {
	n, o := "", ""
	if name != nil {
		n = *name
	}
	if origins != nil {
		o = jsonList(origins)
	}
	err := c.execOne(ctx, `UPDATE api_keys SET name = CASE WHEN ? THEN ? ELSE name END,
		allowed_origins = CASE WHEN ? THEN ? ELSE allowed_origins END WHERE id = ?`, name != nil, n, origins != nil, o, id)
	if err != nil {
		return fmt.Errorf("store: update API key %s: %w", id, err)
	}
	c.keysChanged()
	return nil
}

// TouchAPIKey records a use of the key.
func (c *Conn) TouchAPIKey(ctx context.Context, id string, at time.Time) error {
	if err := c.execOne(ctx, `UPDATE api_keys SET last_used_at = ? WHERE id = ?`, ms(at), id); err != nil {
		return fmt.Errorf("store: touch API key %s: %w", id, err)
	}
	return nil
}
