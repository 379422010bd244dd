package httpapi

import (
	"context"
	"errors"
	"time"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/store"
)

// TokenView is a personal API token; its secret is never shown after
// creation.
type TokenView struct {
	ID         string     `json:"id" doc:"pat_ identifier"`
	Name       string     `json:"name"`
	Scopes     []string   `json:"scopes" enum:"org:read,project:read,project:write,project:releases,event:read,event:write,member:read"`
	CreatedAt  Timestamp  `json:"created_at"`
	ExpiresAt  *Timestamp `json:"expires_at" nullable:"true" doc:"When the token stops working; null for never"`
	LastUsedAt *Timestamp `json:"last_used_at" nullable:"true" doc:"Last request with the token (updated at most once a minute); null if never used"`
	Method     string     `json:"method" enum:"password,oidc" doc:"How the session that made the token had signed in: an organization with sso_required accepts only tokens made from a session that signed in through its OpenID Connect provider (403 sso-required otherwise)"`
}

func tokenView(t store.APIToken) TokenView {
	return TokenView{ID: t.ID, Name: t.Name, Scopes: t.Scopes, CreatedAt: ts(t.CreatedAt), ExpiresAt: tsPtr(t.ExpiresAt), LastUsedAt: tsPtr(t.LastUsedAt), Method: t.SignInMethod}
}

// CreatedToken carries the credential, shown only here.
type CreatedToken struct {
	TokenView
	Token string `json:"token" doc:"errata_pat_<id>_<secret>: shown only in this answer; only a hash is stored. Send as Authorization: Bearer <token> to /v1 and /api/0"`
}

// TokenBody is the body of token creation.
type TokenBody struct {
	Name      string     `json:"name" minLength:"1" maxLength:"100" pattern:"\\S" doc:"1 to 100 characters, not blank"`
	Scopes    []string   `json:"scopes" nullable:"false" minItems:"1" maxItems:"7" enum:"org:read,project:read,project:write,project:releases,event:read,event:write,member:read" doc:"What the token may do, within its user's roles"`
	ExpiresAt *time.Time `json:"expires_at,omitempty" doc:"When the token stops working (in the future); never when absent"`
}

func (s *Server) listTokens(ctx context.Context, in *ListParams) (*struct{ Body *Page[TokenView] }, error) {
	u := principal(ctx).User
	page, err := list(s, "tokens:"+u.ID, *in, func(before string, limit int) ([]store.APIToken, error) {
		return s.db.Read().ListAPITokens(ctx, u.ID, before, limit)
	}, func(t store.APIToken) string { return t.ID }, tokenView)
	return &struct{ Body *Page[TokenView] }{page}, err
}

func (s *Server) createToken(ctx context.Context, in *struct{ Body TokenBody }) (*struct{ Body CreatedToken }, error) {
	p := principal(ctx)
	t, err := s.auth.CreateToken(ctx, p.User.ID, p.Session.Method, in.Body.Name, in.Body.Scopes, in.Body.ExpiresAt)
	if err != nil {
		return nil, err
	}
	return &struct{ Body CreatedToken }{CreatedToken{tokenView(t.APIToken), t.Token}}, nil
}

func (s *Server) deleteToken(ctx context.Context, in *struct {
	TokenID string `path:"token_id" doc:"pat_ identifier"`
}) (*struct{}, error) {
	if !id.Valid(id.Token, in.TokenID) {
		return nil, problem.Newf("not-found", "token %q does not exist", in.TokenID)
	}
	err := s.auth.DeleteToken(ctx, principal(ctx).User.ID, in.TokenID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, problem.Newf("not-found", "token %q does not exist", in.TokenID)
	}
	return nil, err
}
