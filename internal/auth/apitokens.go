package auth

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"github.com/errata-dev/errata/internal/audit"
	"slices"
	"strings"
	"time"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/org"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/secret"
	"github.com/errata-dev/errata/internal/store"
)

// TokenPrefix starts every personal API token: errata_pat_<id>_<secret>,
// where <id> is the token's pat_ id without its prefix.
const TokenPrefix = "errata_pat_"

// Scopes a personal API token can hold (CONTRACT 8).
var Scopes = []string{"org:read", "project:read", "project:write", "project:releases", "event:read", "event:write", "member:read"}

// FormatToken builds the credential of a pat_ id and its secret.
func FormatToken(tokenID, sec string) string {
	return TokenPrefix + strings.TrimPrefix(tokenID, id.Token) + "_" + sec
}

// ParseToken splits a credential into its pat_ id and secret.
func ParseToken(cred string) (tokenID, sec string, ok bool) {
	rest, ok := strings.CutPrefix(cred, TokenPrefix)
	if !ok {
		return "", "", false
	}
	body, sec, ok := strings.Cut(rest, "_")
	if !ok || sec == "" || !id.Valid(id.Token, id.Token+body) {
		return "", "", false
	}
	return id.Token + body, sec, true
}

// IsToken reports whether a bearer credential looks like a personal API token.
func IsToken(cred string) bool { return strings.HasPrefix(cred, TokenPrefix) }

// NewToken is a created token with its credential, shown only once.
type NewToken struct {
	store.APIToken
	Token string
}

// CreateToken makes a personal API token of userID from a session that
// signed in by method (store.SignInPassword, store.SignInOIDC). Only a hash
// of its secret is kept.
func (s *Service) CreateToken(ctx context.Context, userID, method, name string, scopes []string, expiresAt *time.Time) (NewToken, error) {
	if method != store.SignInPassword && method != store.SignInOIDC {
		return NewToken{}, fmt.Errorf("auth: token made from a session of unknown sign-in method %q", method)
	}
	if err := org.CheckName(name); err != nil {
		return NewToken{}, err
	}
	if len(scopes) == 0 {
		return NewToken{}, problem.New("validation-failed", "scopes: name at least one of "+strings.Join(Scopes, ", "))
	}
	var set []string
	for i, sc := range scopes {
		if !slices.Contains(Scopes, sc) {
			return NewToken{}, problem.Newf("validation-failed", "scopes[%d]: %q is not a scope; scopes are %s", i, sc, strings.Join(Scopes, ", "))
		}
		if !slices.Contains(set, sc) {
			set = append(set, sc)
		}
	}
	now := s.clock()
	if expiresAt != nil {
		at := expiresAt.UTC().Truncate(time.Millisecond)
		if !at.After(now) {
			return NewToken{}, problem.New("validation-failed", "expires_at: must be in the future")
		}
		expiresAt = &at
	}
	sec := NewAPIKeySecret()
	t := store.APIToken{ID: id.New(id.Token), UserID: userID, Name: strings.TrimSpace(name), Scopes: set,
		SecretHash: secret.Hash(sec), CreatedAt: now, ExpiresAt: expiresAt, SignInMethod: method}
	err := s.db.Tx(ctx, func(c *store.Conn) error {
		if err := c.CreateAPIToken(ctx, t); err != nil {
			return err
		}
		return audit.RecordUser(ctx, c, userID, audit.Entry{Action: "api_token.created", Target: t.ID,
			Data: map[string]any{"name": t.Name, "scopes": t.Scopes, "sign_in_method": method}, At: now})
	})
	if err != nil {
		return NewToken{}, err
	}
	s.log.Info("API token created", "user_id", userID, "token_id", t.ID)
	return NewToken{APIToken: t, Token: FormatToken(t.ID, sec)}, nil
}

// DeleteToken deletes one of userID's tokens (store.ErrNotFound when the
// user has no such token), recorded in the audit log of each of the
// user's organizations.
func (s *Service) DeleteToken(ctx context.Context, userID, tokenID string) error {
	return s.db.Tx(ctx, func(c *store.Conn) error {
		if err := c.DeleteAPIToken(ctx, userID, tokenID); err != nil {
			return err
		}
		return audit.RecordUser(ctx, c, userID, audit.Entry{Action: "api_token.revoked", Target: tokenID, At: s.clock()})
	})
}

// AuthenticateToken checks a personal API token and returns it with its
// user. The secret's hash is compared in constant time.
func (s *Service) AuthenticateToken(ctx context.Context, cred string) (store.User, store.APIToken, error) {
	tokenID, sec, ok := ParseToken(cred)
	if !ok {
		return store.User{}, store.APIToken{}, Unauthorized("the API token is malformed; want errata_pat_<id>_<secret>")
	}
	t, err := s.db.Read().APITokenByID(ctx, tokenID)
	if errors.Is(err, store.ErrNotFound) {
		return store.User{}, store.APIToken{}, Unauthorized("the API token is unknown or was deleted")
	}
	if err != nil {
		return store.User{}, store.APIToken{}, err
	}
	if subtle.ConstantTimeCompare(secret.Hash(sec), t.SecretHash) != 1 {
		return store.User{}, store.APIToken{}, Unauthorized("the API token is unknown or was deleted")
	}
	now := s.clock()
	if t.ExpiresAt != nil && !now.Before(*t.ExpiresAt) {
		return store.User{}, store.APIToken{}, Unauthorized("the API token has expired")
	}
	u, err := s.db.Read().UserByID(ctx, t.UserID)
	if err != nil {
		return store.User{}, store.APIToken{}, err
	}
	if t.LastUsedAt == nil || now.Sub(*t.LastUsedAt) >= touchEvery {
		if err := s.db.Write().TouchAPIToken(ctx, t.ID, now); err != nil && !errors.Is(err, store.ErrNotFound) {
			return store.User{}, store.APIToken{}, err
		}
		t.LastUsedAt = &now
	}
	return u, t, nil
}
