package web

import (
	"net/http"

	"github.com/errata-dev/errata/internal/httpserver"
	"github.com/errata-dev/errata/internal/org"
	"github.com/errata-dev/errata/internal/store"
)

// orgData fills the organization page.
type orgData struct {
	Org      store.Org
	Role     string
	Limits   org.Limits
	Projects []store.Project
	// CanCreate shows the project form (admins), CanRename the rename form
	// (owners).
	CanCreate, CanRename bool
	// ProjectName, ProjectError and RenameError refill a refused form.
	ProjectName, ProjectError, Name, RenameError string
	// RulesError is why a change of the sign-in rules was refused; SSO
	// shows the single sign-on rule (configured).
	RulesError string
	SSO        bool
}

// orgCreate makes an organization with the caller as its owner (POST
// /v1/orgs: any signed-in user) and opens it.
func (d *Dashboard) orgCreate(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	name, err := formValue(r, "name")
	if err != nil {
		return err
	}
	o, err := d.orgs.Create(r.Context(), p.User, name)
	if pr := shown(err, "validation-failed"); pr != nil {
		return d.renderHome(w, r, p, pr.Status, homeData{Name: name, Error: sentence(pr.Detail)})
	}
	if err != nil {
		return err
	}
	http.Redirect(w, r, "/orgs/"+o.ID, http.StatusSeeOther)
	return nil
}

// orgShow is the organization: plan and limits, projects, and the forms of
// the caller's role (GET /v1/orgs/{org_id}: viewer).
func (d *Dashboard) orgShow(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	if err := d.authorize(r, p, "org_id", org.Viewer); err != nil {
		return err
	}
	return d.orgPage(w, r, p, http.StatusOK, orgData{})
}

// orgPage renders the organization page with status, keeping form fields
// and messages of data.
func (d *Dashboard) orgPage(w http.ResponseWriter, r *http.Request, p *httpserver.Principal, status int, data orgData) error {
	ctx, c := r.Context(), d.db.Read()
	o, err := c.OrgByID(ctx, p.Member.OrgID)
	if err != nil {
		return err
	}
	if data.Projects, err = c.ListProjects(ctx, o.ID, "", listCap); err != nil {
		return err
	}
	role, _ := org.ParseRole(p.Member.Role)
	data.Org, data.Role, data.Limits = o, p.Member.Role, org.LimitsOf(o.Plan)
	data.CanCreate, data.CanRename = role.AtLeast(org.Admin), role.AtLeast(org.Owner)
	data.SSO = d.sso != nil || o.SSORequired
	if data.Name == "" {
		data.Name = o.Name
	}
	d.render(w, r, status, "org", p, frame{Title: o.Name, Crumbs: orgCrumbs(o), OrgID: o.ID, Data: data})
	return nil
}

// orgCrumbs is the breadcrumb of an organization's pages.
func orgCrumbs(o store.Org) []crumb { return []crumb{{o.Name, "/orgs/" + o.ID}} }

// orgCreateProject creates a project (POST /v1/orgs/{org_id}/projects:
// admin) and opens its overview.
func (d *Dashboard) orgCreateProject(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	if err := d.authorize(r, p, "org_id", org.Admin); err != nil {
		return err
	}
	name, err := formValue(r, "name")
	if err != nil {
		return err
	}
	prj, err := d.orgs.CreateProject(r.Context(), p.Member.OrgID, name)
	if pr := shown(err, "validation-failed"); pr != nil {
		return d.orgPage(w, r, p, pr.Status, orgData{ProjectName: name, ProjectError: sentence(pr.Detail)})
	}
	if err != nil {
		return err
	}
	http.Redirect(w, r, "/projects/"+prj.ID, http.StatusSeeOther)
	return nil
}

// orgRename renames the organization (PATCH /v1/orgs/{org_id}: owner).
func (d *Dashboard) orgRename(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	if err := d.authorize(r, p, "org_id", org.Owner); err != nil {
		return err
	}
	name, err := formValue(r, "name")
	if err != nil {
		return err
	}
	_, err = d.orgs.Rename(r.Context(), p.Member.OrgID, name)
	if pr := shown(err, "validation-failed"); pr != nil {
		return d.orgPage(w, r, p, pr.Status, orgData{Name: name, RenameError: sentence(pr.Detail)})
	}
	if err != nil {
		return err
	}
	http.Redirect(w, r, "/orgs/"+p.Member.OrgID, http.StatusSeeOther)
	return nil
}

// orgRules sets the organization's sign-in rules, require_2fa and
// sso_required (PATCH /v1/orgs/{org_id}: owner, with the same guards).
func (d *Dashboard) orgRules(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	if err := d.authorize(r, p, "org_id", org.Owner); err != nil {
		return err
	}
	if err := readForm(r); err != nil {
		return err
	}
	twoFA, ssoOnly := r.PostForm.Get("require_2fa") == "on", r.PostForm.Get("sso_required") == "on"
	in := org.Settings{Require2FA: &twoFA}
	if d.sso != nil || r.PostForm.Has("sso_shown") {
		in.SSORequired = &ssoOnly
	}
	_, err := d.orgs.Update(r.Context(), p.Member.OrgID, org.Caller{User: p.User, Session: p.Session}, in)
	if pr := shown(err, "2fa-required", "sso-required"); pr != nil {
		return d.orgPage(w, r, p, pr.Status, orgData{RulesError: sentence(pr.Detail)})
	}
	if err != nil {
		return err
	}
	http.Redirect(w, r, "/orgs/"+p.Member.OrgID, http.StatusSeeOther)
	return nil
}
