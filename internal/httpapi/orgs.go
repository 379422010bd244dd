package httpapi

import (
	"context"

	"github.com/errata-dev/errata/internal/org"
	"github.com/errata-dev/errata/internal/store"
)

// OrgPath names an organization.
type OrgPath struct {
	OrgID string `path:"org_id" doc:"org_ identifier"`
}

// OrgOutput is one organization.
type OrgOutput struct{ Body OrgView }

// NameBody is the body of creating or renaming something with a name.
// (No patternDescription: huma would put it in the schema, where it is not a
// JSON Schema keyword and strict OpenAPI tools reject the document.)
type NameBody struct {
	Name string `json:"name" minLength:"1" maxLength:"100" pattern:"\\S" doc:"1 to 100 characters, not blank"`
}

// ChangeBody is the PATCH of an organization or a project: at least one of
// its fields.
type ChangeBody struct {
	Name *string `json:"name,omitempty" minLength:"1" maxLength:"100" pattern:"\\S" doc:"1 to 100 characters, not blank"`
	Slug *string `json:"slug,omitempty" doc:"1 to 50 characters, the URL name (sentry-cli's SENTRY_ORG / SENTRY_PROJECT): a-z, 0-9 and -; unique in the installation (organizations) or the organization (projects), else 409 conflict"`
}

func (s *Server) listOrgs(ctx context.Context, in *ListParams) (*struct{ Body *Page[OrgView] }, error) {
	u := principal(ctx).User
	page, err := list(s, "orgs:"+u.ID, *in, func(before string, limit int) ([]store.Org, error) {
		return s.db.Read().OrgsOfUser(ctx, u.ID, before, limit)
	}, func(o store.Org) string { return o.ID }, orgView)
	return &struct{ Body *Page[OrgView] }{page}, err
}

func (s *Server) createOrg(ctx context.Context, in *struct{ Body NameBody }) (*OrgOutput, error) {
	o, err := s.orgs.Create(ctx, principal(ctx).User, in.Body.Name)
	if err != nil {
		return nil, err
	}
	return &OrgOutput{orgView(o)}, nil
}

func (s *Server) getOrg(ctx context.Context, in *OrgPath) (*OrgOutput, error) {
	o, err := s.db.Read().OrgByID(ctx, in.OrgID)
	if err != nil {
		return nil, err
	}
	return &OrgOutput{orgView(o)}, nil
}

// OrgPatchBody is the body of an organization's change; absent fields
// stay as they are.
type OrgPatchBody struct {
	Name        *string `json:"name,omitempty" minLength:"1" maxLength:"100" pattern:"\\S" doc:"1 to 100 characters, not blank"`
	Slug        *string `json:"slug,omitempty" doc:"1 to 50 characters, the URL name (sentry-cli's SENTRY_ORG): a-z, 0-9 and -; unique in the installation, else 409 conflict"`
	Require2FA  *bool   `json:"require_2fa,omitempty" doc:"Refuse members without two-factor sign-in (403 2fa-required); turning it on needs it on your own account"`
	SSORequired *bool   `json:"sso_required,omitempty" doc:"Refuse sessions that did not sign in through single sign-on, and tokens made from one (403 sso-required); turning it on needs your own session to have signed in through it"`
}

func (s *Server) updateOrg(ctx context.Context, in *struct {
	OrgPath
	Body OrgPatchBody
}) (*OrgOutput, error) {
	p := principal(ctx)
	o, err := s.orgs.Update(ctx, in.OrgID, org.Caller{User: p.User, Session: p.Session},
		org.Settings{Name: in.Body.Name, Slug: in.Body.Slug, Require2FA: in.Body.Require2FA, SSORequired: in.Body.SSORequired})
	if err != nil {
		return nil, err
	}
	return &OrgOutput{orgView(o)}, nil
}

func (s *Server) deleteOrg(ctx context.Context, in *OrgPath) (*struct{}, error) {
	ctx = store.Unbounded(ctx) // all it holds goes in one transaction
	return nil, s.db.TxAgain(ctx, func(c *store.Conn) error { return c.DeleteOrg(ctx, in.OrgID) })
}
