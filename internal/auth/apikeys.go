package auth

import (
	"context"
	"crypto/subtle"
	"errors"
	"slices"
	"strings"

	"github.com/errata-dev/errata/internal/audit"
	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/org"
	"github.com/errata-dev/errata/internal/secret"
	"github.com/errata-dev/errata/internal/store"
)

// NewKey is a created API key with its credential, shown only once.
type NewKey struct {
	store.APIKey
	Key string
}

// CreateAPIKey makes a key for a project, allowing the origins given
// (nil: every one, see CheckOrigins). Only a hash of its secret is kept.
func (s *Service) CreateAPIKey(ctx context.Context, projectID, name string, origins []string) (NewKey, error) {
	if err := org.CheckName(name); err != nil {
		return NewKey{}, err
	}
	if origins == nil {
		origins = store.AllOrigins
	}
	origins, err := CheckOrigins(origins)
	if err != nil {
		return NewKey{}, err
	}
	sec := NewAPIKeySecret()
	k := store.APIKey{ID: id.New(id.Key), ProjectID: projectID, Name: strings.TrimSpace(name), SecretHash: secret.Hash(sec), CreatedAt: s.clock(),
		AllowedOrigins: origins}
	err = s.db.Tx(ctx, func(c *store.Conn) error {
		if err := c.CreateAPIKey(ctx, k); err != nil {
			return err
		}
		return s.recordKey(ctx, c, "api_key.created", k, nil)
	})
	if err != nil {
		return NewKey{}, err
	}
	return NewKey{APIKey: k, Key: FormatAPIKey(k.ID, sec)}, nil
}

// UpdateAPIKey renames a key and sets the origins it allows; a nil name or
// origins leaves that one as it is. It returns the key as it is now.
func (s *Service) UpdateAPIKey(ctx context.Context, keyID string, name *string, origins []string) (store.APIKey, error) {
	if name != nil {
		if err := org.CheckName(*name); err != nil {
			return store.APIKey{}, err
		}
		trimmed := strings.TrimSpace(*name)
		name = &trimmed
	}
	if origins != nil {
		var err error
		if origins, err = CheckOrigins(origins); err != nil {
			return store.APIKey{}, err
		}
	}
	var k store.APIKey
	err := s.db.Tx(ctx, func(c *store.Conn) error {
		before, err := c.APIKeyByID(ctx, keyID)
		if err != nil {
			return err
		}
		if err := c.UpdateAPIKey(ctx, keyID, name, origins); err != nil {
			return err
		}
		if k, err = c.APIKeyByID(ctx, keyID); err != nil {
			return err
		}
		// Who widened a browser key's origins is audited (CONTRACT 8:
		// keys and settings).
		changes := map[string]any{}
		if before.Name != k.Name {
			changes["name"] = map[string]any{"from": before.Name, "to": k.Name}
		}
		if !slices.Equal(before.AllowedOrigins, k.AllowedOrigins) {
			changes["allowed_origins"] = map[string]any{"from": before.AllowedOrigins, "to": k.AllowedOrigins}
		}
		if len(changes) == 0 {
			return nil
		}
		return s.recordKey(ctx, c, "api_key.updated", k, changes)
	})
	if err != nil {
		return store.APIKey{}, err
	}
	return k, nil
}

// RevokeAPIKey revokes a key: the next request with it is unauthorized.
func (s *Service) RevokeAPIKey(ctx context.Context, keyID string) error {
	return s.db.Tx(ctx, func(c *store.Conn) error {
		k, err := c.APIKeyByID(ctx, keyID)
		if err != nil {
			return err
		}
		revoked, err := c.RevokeAPIKeyOnce(ctx, keyID, s.clock())
		if err != nil || !revoked { // revoked already: nothing happens, nothing to audit
			return err
		}
		return s.recordKey(ctx, c, "api_key.revoked", k, nil)
	})
}

// recordKey writes an audit entry about key k in its organization's log,
// with its changes (data.changes) when there are any.
func (s *Service) recordKey(ctx context.Context, c *store.Conn, action string, k store.APIKey, changes map[string]any) error {
	p, err := c.ProjectByID(ctx, k.ProjectID)
	if err != nil {
		return err
	}
	data := map[string]any{"name": k.Name, "project_id": p.ID, "project": p.Name}
	if changes != nil {
		data["changes"] = changes
	}
	return audit.Record(ctx, c, audit.Entry{OrgID: p.OrgID, Action: action, Target: k.ID, Data: data, At: s.clock()})
}

// AuthenticateKey checks a project API key credential and returns the key
// and its project. The secret's hash is compared in constant time.
func (s *Service) AuthenticateKey(ctx context.Context, cred string) (store.APIKey, store.Project, error) {
	keyID, sec, ok := ParseAPIKey(cred)
	if !ok {
		return store.APIKey{}, store.Project{}, Unauthorized("the API key is malformed; want svc_live_<key_id>_<secret>")
	}
	k, p, err := s.db.APIKeyWithProject(ctx, keyID)
	if errors.Is(err, store.ErrNotFound) {
		return store.APIKey{}, store.Project{}, Unauthorized("the API key is unknown")
	}
	if err != nil {
		return store.APIKey{}, store.Project{}, err
	}
	if subtle.ConstantTimeCompare(secret.Hash(sec), k.SecretHash) != 1 {
		return store.APIKey{}, store.Project{}, Unauthorized("the API key is unknown")
	}
	if k.RevokedAt != nil {
		return store.APIKey{}, store.Project{}, Unauthorized("the API key was revoked")
	}
	now := s.clock()
	if k.LastUsedAt == nil || now.Sub(*k.LastUsedAt) >= touchEvery {
		if err := s.db.TouchAPIKey(ctx, k.ID, now); err != nil && !errors.Is(err, store.ErrNotFound) {
			return store.APIKey{}, store.Project{}, err
		}
		k.LastUsedAt = &now
	}
	return k, p, nil
}
