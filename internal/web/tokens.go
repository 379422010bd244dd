package web

import (
	"net/http"

	"github.com/errata-dev/errata/internal/auth"
	"github.com/errata-dev/errata/internal/httpserver"
	"github.com/errata-dev/errata/internal/store"
)

// tokensData fills the personal API tokens page.
type tokensData struct {
	Tokens []store.APIToken
	Scopes []string
	// Name, Checked and Error refill a refused create form.
	Name    string
	Checked map[string]bool
	Error   string
	// Created is a token just made, shown this once.
	Created *auth.NewToken
}

// tokenRoutes serves the signed-in user's personal API tokens
// (docs/sourcemaps.md): listed, created (shown once), deleted; and a
// project's releases.
func (d *Dashboard) tokenRoutes(mux *http.ServeMux) {
	d.get(mux, "/tokens", d.tokens)
	d.post(mux, "/tokens", d.createToken)
	d.post(mux, "/tokens/{token_id}/delete", d.deleteToken)
	d.get(mux, "/projects/{project_id}/releases", d.releases) // releases.go
}

func (d *Dashboard) tokens(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	return d.tokensPage(w, r, p, http.StatusOK, tokensData{})
}

func (d *Dashboard) tokensPage(w http.ResponseWriter, r *http.Request, p *httpserver.Principal, status int, data tokensData) error {
	var err error
	if data.Tokens, err = d.db.Read().ListAPITokens(r.Context(), p.User.ID, "", listCap); err != nil {
		return err
	}
	data.Scopes = auth.Scopes
	d.render(w, r, status, "tokens", p, frame{Title: "API tokens", Crumbs: []crumb{{"API tokens", "/tokens"}}, Data: data})
	return nil
}

// createToken makes a token (POST /v1/auth/tokens) and shows it once.
func (d *Dashboard) createToken(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	name, err := formValue(r, "name")
	if err != nil {
		return err
	}
	scopes := r.PostForm["scope"]
	t, err := d.auth.CreateToken(r.Context(), p.User.ID, p.Session.Method, name, scopes, nil)
	if pr := shown(err, "validation-failed"); pr != nil {
		checked := map[string]bool{}
		for _, s := range scopes {
			checked[s] = true
		}
		return d.tokensPage(w, r, p, pr.Status, tokensData{Name: name, Checked: checked, Error: sentence(pr.Detail)})
	}
	if err != nil {
		return err
	}
	return d.tokensPage(w, r, p, http.StatusCreated, tokensData{Created: &t})
}

// deleteToken deletes one of the user's tokens (DELETE /v1/auth/tokens/{token_id}).
func (d *Dashboard) deleteToken(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	if err := d.auth.DeleteToken(r.Context(), p.User.ID, r.PathValue("token_id")); err != nil {
		return err
	}
	http.Redirect(w, r, "/tokens", http.StatusSeeOther)
	return nil
}
