package httpapi

import (
	"context"

	"github.com/errata-dev/errata/internal/sentry"
	"github.com/errata-dev/errata/internal/store"
)

// CreatedKey carries the credential, shown only here.
type CreatedKey struct {
	KeyView
	Key string `json:"key" doc:"svc_live_<key_id>_<secret>: shown only in this answer; only a hash is stored"`
	DSN string `json:"dsn" doc:"The key as a Sentry DSN, <scheme>://<key>@<host[:port]><base path>/<number> from the server's base URL and the project's number: an application with a Sentry SDK reports to Errata with it. Shown only in this answer, like the key"`
}

func (s *Server) listKeys(ctx context.Context, in *struct {
	ProjectPath
	ListParams
}) (*struct{ Body *Page[KeyView] }, error) {
	page, err := list(s, "keys:"+in.ProjectID, in.ListParams, func(before string, limit int) ([]store.APIKey, error) {
		return s.db.Read().ListAPIKeys(ctx, in.ProjectID, before, limit)
	}, func(k store.APIKey) string { return k.ID }, keyView)
	return &struct{ Body *Page[KeyView] }{page}, err
}

// KeyBody creates an API key.
type KeyBody struct {
	Name           string   `json:"name" minLength:"1" maxLength:"100" pattern:"\\S" doc:"1 to 100 characters, not blank"`
	AllowedOrigins []string `json:"allowed_origins,omitempty" required:"false" maxItems:"50" doc:"Origins a browser may send the key's Sentry requests from (https://app.example.com, https://*.example.com), or [\"*\"], every origin (the default)"`
}

// KeyPatch changes an API key: the fields given.
type KeyPatch struct {
	Name           *string  `json:"name,omitempty" minLength:"1" maxLength:"100" pattern:"\\S" doc:"1 to 100 characters, not blank"`
	AllowedOrigins []string `json:"allowed_origins,omitempty" required:"false" maxItems:"50" doc:"Replaces the key's allowed origins: origins as browsers send them (https://app.example.com), a host may start with *. for its subdomains, or [\"*\"] for every origin"`
}

func (s *Server) createKey(ctx context.Context, in *struct {
	ProjectPath
	Body KeyBody
}) (*struct{ Body CreatedKey }, error) {
	k, err := s.auth.CreateAPIKey(ctx, in.ProjectID, in.Body.Name, in.Body.AllowedOrigins)
	if err != nil {
		return nil, err
	}
	p, err := s.db.Read().ProjectByID(ctx, in.ProjectID)
	if err != nil {
		return nil, err
	}
	return &struct{ Body CreatedKey }{CreatedKey{keyView(k.APIKey), k.Key, sentry.FormatDSN(s.baseURL, k.Key, p.Number)}}, nil
}

func (s *Server) updateKey(ctx context.Context, in *struct {
	KeyID string `path:"key_id" doc:"key_ identifier"`
	Body  KeyPatch
}) (*struct{ Body KeyView }, error) {
	k, err := s.auth.UpdateAPIKey(ctx, in.KeyID, in.Body.Name, in.Body.AllowedOrigins)
	if err != nil {
		return nil, err
	}
	return &struct{ Body KeyView }{keyView(k)}, nil
}

func (s *Server) revokeKey(ctx context.Context, in *struct {
	KeyID string `path:"key_id" doc:"key_ identifier"`
}) (*struct{}, error) {
	return nil, s.auth.RevokeAPIKey(ctx, in.KeyID)
}
