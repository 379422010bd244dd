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

func (s *Server) createKey(ctx context.Context, in *struct {
	ProjectPath
	Body NameBody
}) (*struct{ Body CreatedKey }, error) {
	k, err := s.auth.CreateAPIKey(ctx, in.ProjectID, in.Body.Name)
	if err != nil {
		return nil, err
	}
	p, err := s.db.Read().ProjectByID(ctx, in.ProjectID)
	if err != nil {
		return nil, err
	}
	return &struct{ Body CreatedKey }{CreatedKey{keyView(k.APIKey), k.Key, sentry.FormatDSN(s.baseURL, k.Key, p.Number)}}, nil
}

func (s *Server) revokeKey(ctx context.Context, in *struct {
	KeyID string `path:"key_id" doc:"key_ identifier"`
}) (*struct{}, error) {
	return nil, s.auth.RevokeAPIKey(ctx, in.KeyID)
}
