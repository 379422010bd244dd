package web

import (
	"context"
	"net/http"

	"github.com/errata-dev/errata/internal/httpapi"
	"github.com/errata-dev/errata/internal/org"
	"github.com/errata-dev/errata/internal/store"
)

// listCap bounds the organizations and projects the home page lists until
// it pages them.
const listCap = 100

// orgProjects is an organization with its projects.
type orgProjects struct {
	Org      store.Org
	Role     string
	Projects []store.Project
}

// home lists the caller's organizations and their projects.
func (d *Dashboard) home(w http.ResponseWriter, r *http.Request, p *httpapi.Principal) error {
	ctx, c := r.Context(), d.db.Read()
	orgs, err := c.OrgsOfUser(ctx, p.User.ID, "", listCap)
	if err != nil {
		return err
	}
	out := make([]orgProjects, 0, len(orgs))
	for _, o := range orgs {
		m, err := c.MemberOf(ctx, o.ID, p.User.ID)
		if err != nil {
			return err
		}
		ps, err := c.ListProjects(ctx, o.ID, "", listCap)
		if err != nil {
			return err
		}
		out = append(out, orgProjects{Org: o, Role: m.Role, Projects: ps})
	}
	d.render(w, r, http.StatusOK, "home", p, frame{Title: "Your organizations", Data: out})
	return nil
}

// severities in the order pages show them.
var severities = []string{"critical", "high", "medium"}

// severityCount is one cell of the overview's open-ticket counts.
type severityCount struct {
	Severity string
	Count    int64
}

// projectData fills the project overview.
type projectData struct {
	Project store.Project
	Open    []severityCount
	Total   int64
	Latest  []store.TicketWithGroup
}

// latestCount is how many tickets the overview shows.
const latestCount = 10

// project is the project overview: open tickets by severity and the latest
// tickets.
func (d *Dashboard) project(w http.ResponseWriter, r *http.Request, p *httpapi.Principal) error {
	if err := d.authorize(r, p, "project_id", org.Viewer); err != nil {
		return err
	}
	ctx, c := r.Context(), d.db.Read()
	prj, crumbs, err := d.projectCrumbs(ctx, r.PathValue("project_id"))
	if err != nil {
		return err
	}
	counts, err := c.OpenTicketCounts(ctx, prj.ID)
	if err != nil {
		return err
	}
	data := projectData{Project: prj}
	for _, s := range severities {
		data.Open = append(data.Open, severityCount{s, counts[s]})
		data.Total += counts[s]
	}
	if data.Latest, err = c.ListTickets(ctx, prj.ID, store.TicketFilter{}, "", latestCount); err != nil {
		return err
	}
	d.render(w, r, http.StatusOK, "project", p, frame{Title: prj.Name, Crumbs: crumbs, Project: &prj, Tab: "overview", Data: data})
	return nil
}

// projectCrumbs reads a project and the breadcrumb leading to it.
func (d *Dashboard) projectCrumbs(ctx context.Context, projectID string) (store.Project, []crumb, error) {
	c := d.db.Read()
	prj, err := c.ProjectByID(ctx, projectID)
	if err != nil {
		return prj, nil, err
	}
	o, err := c.OrgByID(ctx, prj.OrgID)
	if err != nil {
		return prj, nil, err
	}
	return prj, []crumb{{o.Name, "/"}, {prj.Name, "/projects/" + prj.ID}}, nil
}
