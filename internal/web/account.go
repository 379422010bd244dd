package web

import (
	"errors"
	"net/http"

	"github.com/errata-dev/errata/internal/httpserver"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/store"
)

// accountRoutes registers the pages of accounts and organizations: sign-up
// from an invitation link, organizations, members, invitations and API keys.
func (d *Dashboard) accountRoutes(mux *http.ServeMux) {
	// The invitation link works signed out: it is how new people arrive.
	mux.Handle("GET /invitations/accept", secure(http.HandlerFunc(d.invitation)))
	mux.Handle("POST /invitations/accept", secure(d.sameOrigin(http.HandlerFunc(d.acceptInvitation))))

	d.post(mux, "/orgs", d.orgCreate)
	d.get(mux, "/orgs/{org_id}", d.orgShow)
	d.get(mux, "/orgs/{org_id}/lookup", d.lookup)
	d.post(mux, "/orgs/{org_id}/projects", d.orgCreateProject)
	d.post(mux, "/orgs/{org_id}/rename", d.orgRename)
	d.post(mux, "/orgs/{org_id}/sign-in-rules", d.orgRules)

	d.get(mux, "/orgs/{org_id}/members", d.members)
	d.post(mux, "/members/{member_id}/role", d.memberRole)
	d.post(mux, "/members/{member_id}/remove", d.memberRemove)
	d.post(mux, "/orgs/{org_id}/invitations", d.invite)
	d.post(mux, "/invitations/{invitation_id}/revoke", d.revokeInvitation)

	d.get(mux, "/projects/{project_id}/keys", d.keys)
	d.post(mux, "/projects/{project_id}/keys", d.createKey)
	d.post(mux, "/keys/{key_id}/revoke", d.revokeKey)
	d.post(mux, "/keys/{key_id}/origins", d.setKeyOrigins)
	d.tokenRoutes(mux) // tokens.go: personal API tokens
}

// switcherOrgs lists p's organizations for the header's switcher: one query,
// at most listCap. A failure only hides the switcher.
func (d *Dashboard) switcherOrgs(r *http.Request, p *httpserver.Principal) []store.Org {
	orgs, err := d.db.Read().OrgsOfUser(r.Context(), p.User.ID, "", listCap)
	if err != nil {
		d.log.Warn("organization switcher unavailable", "request_id", httpserver.RequestID(r.Context()), "err", err)
		return nil
	}
	return orgs
}

// formValue reads one field of a posted form; an unreadable form is a 400.
func formValue(r *http.Request, name string) (string, error) {
	if err := readForm(r); err != nil {
		return "", err
	}
	return r.PostForm.Get(name), nil
}

// shown returns the problem a form shows next to itself instead of an error
// page: one of the given codes (nil otherwise, and the page fails as usual).
func shown(err error, codes ...string) *problem.Problem {
	var pr *problem.Problem
	if errors.As(err, &pr) {
		for _, c := range codes {
			if pr.Code() == c {
				return pr
			}
		}
	}
	return nil
}
