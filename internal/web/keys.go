package web

import (
	"net/http"
	"strings"

	"github.com/errata-dev/errata/internal/auth"
	"github.com/errata-dev/errata/internal/httpserver"
	"github.com/errata-dev/errata/internal/org"
	"github.com/errata-dev/errata/internal/store"
)

// keyStart shows the public start of a key's credential,
// svc_live_<key id>_…, by which people recognise a key they hold.
func keyStart(keyID string) string { return auth.FormatAPIKey(keyID, "") + "…" }

func init() { funcs["keyStart"] = keyStart }

// keysData fills the API keys page.
type keysData struct {
	Project store.Project
	Keys    []store.APIKey
	// CanManage shows the create form and the revoke buttons (admins).
	CanManage bool
	// Name, Origins and Error refill a refused create form.
	Name, Origins, Error string
}

// originsField reads the origins a form lists, separated by spaces, commas
// or lines; nil (the default, every origin) when it lists none, and an
// empty list (no browser) for "none".
func originsField(v string) []string {
	f := strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == '\n' || r == '\r' || r == '\t' })
	if len(f) == 0 {
		return nil
	}
	if len(f) == 1 && strings.EqualFold(f[0], noOrigin) {
		return []string{} // no browser at all (the API's [])
	}
	return f
}

// noOrigin is how the form writes an empty list of origins (no browser
// may send with the key): a blank field means every origin, so a key
// locked to none must not show blank, or saving it unchanged would open
// it to every origin.
const noOrigin = "none"

func init() {
	funcs["origins"] = func(v []string) string {
		if len(v) == 0 {
			return noOrigin
		}
		return strings.Join(v, " ")
	}
}

// keyCreatedData fills the page that shows a new key once.
type keyCreatedData struct {
	Project  store.Project
	Key      store.APIKey
	Secret   string
	Snippets snippetData
	// Sentry holds the key as a Sentry DSN, for the SDK snippets.
	Sentry sentrySnippetData
}

// keys lists a project's API keys (GET /v1/projects/{project_id}/keys:
// viewer); only their ids and names, never a secret.
func (d *Dashboard) keys(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	if err := d.authorize(r, p, "project_id", org.Viewer); err != nil {
		return err
	}
	return d.keysPage(w, r, p, http.StatusOK, keysData{})
}

// keysPage renders the keys page with status, keeping data's form fields.
func (d *Dashboard) keysPage(w http.ResponseWriter, r *http.Request, p *httpserver.Principal, status int, data keysData) error {
	ctx := r.Context()
	prj, crumbs, err := d.projectCrumbs(ctx, r.PathValue("project_id"))
	if err != nil {
		return err
	}
	if data.Keys, err = d.db.Read().ListAPIKeys(ctx, prj.ID, "", listCap); err != nil {
		return err
	}
	role, _ := org.ParseRole(p.Member.Role)
	data.Project, data.CanManage = prj, role.AtLeast(org.Admin)
	crumbs = append(crumbs, crumb{"API keys", "/projects/" + prj.ID + "/keys"})
	d.render(w, r, status, "keys", p, frame{Title: "API keys · " + prj.Name, Crumbs: crumbs, Project: &prj, Tab: "keys", Data: data})
	return nil
}

// createKey makes a key (POST /v1/projects/{project_id}/keys: admin) and
// shows it this once (201) with the ingest snippets filled in; it is never
// shown again.
func (d *Dashboard) createKey(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	if err := d.authorize(r, p, "project_id", org.Admin); err != nil {
		return err
	}
	name, err := formValue(r, "name")
	if err != nil {
		return err
	}
	ctx := r.Context()
	prj, crumbs, err := d.projectCrumbs(ctx, r.PathValue("project_id"))
	if err != nil {
		return err
	}
	origins := r.PostForm.Get("allowed_origins")
	k, err := d.auth.CreateAPIKey(ctx, prj.ID, name, originsField(origins))
	if pr := shown(err, "validation-failed"); pr != nil {
		return d.keysPage(w, r, p, pr.Status, keysData{Name: name, Origins: origins, Error: sentence(pr.Detail)})
	}
	if err != nil {
		return err
	}
	crumbs = append(crumbs, crumb{"API keys", "/projects/" + prj.ID + "/keys"})
	d.render(w, r, http.StatusCreated, "key-created", p, frame{Title: "API key created · " + prj.Name, Crumbs: crumbs, Project: &prj, Tab: "keys",
		Data: keyCreatedData{Project: prj, Key: k.APIKey, Secret: k.Key, Snippets: d.snippetsFor(k.Key), Sentry: d.sentrySnippetsFor(prj, k.Key)}})
	return nil
}

// setKeyOrigins sets the origins a key allows (PATCH /v1/keys/{key_id}
// with allowed_origins: admin); an empty field allows every origin again.
func (d *Dashboard) setKeyOrigins(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	if err := d.authorize(r, p, "key_id", org.Admin); err != nil {
		return err
	}
	origins, err := formValue(r, "allowed_origins")
	if err != nil {
		return err
	}
	ctx := r.Context()
	k, err := d.db.Read().APIKeyByID(ctx, r.PathValue("key_id"))
	if err != nil {
		return err
	}
	list := originsField(origins)
	if list == nil {
		list = store.AllOrigins
	}
	_, err = d.auth.UpdateAPIKey(ctx, k.ID, nil, list)
	if pr := shown(err, "validation-failed"); pr != nil {
		r.SetPathValue("project_id", k.ProjectID)
		return d.keysPage(w, r, p, pr.Status, keysData{Error: "Key " + k.Name + ": " + sentence(pr.Detail)})
	}
	if err != nil {
		return err
	}
	http.Redirect(w, r, "/projects/"+k.ProjectID+"/keys", http.StatusSeeOther)
	return nil
}

// revokeKey revokes a key (DELETE /v1/keys/{key_id}: admin); ingestion with
// it is refused from then on.
func (d *Dashboard) revokeKey(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	if err := d.authorize(r, p, "key_id", org.Admin); err != nil {
		return err
	}
	ctx := r.Context()
	k, err := d.db.Read().APIKeyByID(ctx, r.PathValue("key_id"))
	if err != nil {
		return err
	}
	if err := d.auth.RevokeAPIKey(ctx, k.ID); err != nil {
		return err
	}
	http.Redirect(w, r, "/projects/"+k.ProjectID+"/keys", http.StatusSeeOther)
	return nil
}
