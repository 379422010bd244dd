package web

import (
	"net/http"

	"github.com/errata-dev/errata/internal/auth"
	"github.com/errata-dev/errata/internal/httpapi"
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
	// Name and Error refill a refused create form.
	Name, Error string
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
func (d *Dashboard) keys(w http.ResponseWriter, r *http.Request, p *httpapi.Principal) error {
	if err := d.authorize(r, p, "project_id", org.Viewer); err != nil {
		return err
	}
	return d.keysPage(w, r, p, http.StatusOK, keysData{})
}

// keysPage renders the keys page with status, keeping data's form fields.
func (d *Dashboard) keysPage(w http.ResponseWriter, r *http.Request, p *httpapi.Principal, status int, data keysData) error {
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
func (d *Dashboard) createKey(w http.ResponseWriter, r *http.Request, p *httpapi.Principal) error {
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
	k, err := d.auth.CreateAPIKey(ctx, prj.ID, name, nil)
	if pr := shown(err, "validation-failed"); pr != nil {
		return d.keysPage(w, r, p, pr.Status, keysData{Name: name, Error: sentence(pr.Detail)})
	}
	if err != nil {
		return err
	}
	crumbs = append(crumbs, crumb{"API keys", "/projects/" + prj.ID + "/keys"})
	d.render(w, r, http.StatusCreated, "key-created", p, frame{Title: "API key created · " + prj.Name, Crumbs: crumbs, Project: &prj, Tab: "keys",
		Data: keyCreatedData{Project: prj, Key: k.APIKey, Secret: k.Key, Snippets: d.snippetsFor(k.Key), Sentry: d.sentrySnippetsFor(prj, k.Key)}})
	return nil
}

// revokeKey revokes a key (DELETE /v1/keys/{key_id}: admin); ingestion with
// it is refused from then on.
func (d *Dashboard) revokeKey(w http.ResponseWriter, r *http.Request, p *httpapi.Principal) error {
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
