package web

import (
	"context"
	"net/http"
	"time"

	"github.com/errata-dev/errata/internal/httpserver"
	"github.com/errata-dev/errata/internal/org"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/tickets"
)

// listCap bounds the organizations and projects the home page lists until
// it pages them.
const listCap = 100

// orgProjects is an organization with its projects.
type orgProjects struct {
	Org      store.Org
	Role     string
	Projects []homeProject
	// Locked says why the organization's resources are closed to this
	// session (sso_required, require_2fa); its projects are then not
	// listed.
	Locked string
}

// homeProject is a project as the home page lists it: its open tickets by
// severity and its last event.
type homeProject struct {
	store.Project
	store.ProjectActivity
}

// homeProjectCap bounds the projects the home page lists, over all the
// caller's organizations (each organization's page lists its own).
const homeProjectCap = 1000

// homeData fills the home page: the organizations, and the new
// organization form as posted when it was refused.
type homeData struct {
	Orgs        []orgProjects
	Name, Error string
}

// home lists the caller's organizations and their projects, with each
// project's open tickets and last event, in three queries whatever their
// number.
func (d *Dashboard) home(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	return d.renderHome(w, r, p, http.StatusOK, homeData{})
}

// renderHome renders the home page with status and the form's state.
func (d *Dashboard) renderHome(w http.ResponseWriter, r *http.Request, p *httpserver.Principal, status int, data homeData) error {
	ctx, c := r.Context(), d.db.Read()
	ms, err := c.MembershipsOfUser(ctx, p.User.ID, listCap)
	if err != nil {
		return err
	}
	projects, err := c.ProjectsOfUser(ctx, p.User.ID, homeProjectCap)
	if err != nil {
		return err
	}
	activity, err := c.ProjectActivityOfUser(ctx, p.User.ID, homeProjectCap)
	if err != nil {
		return err
	}
	byOrg := map[string][]homeProject{}
	for _, prj := range projects {
		byOrg[prj.OrgID] = append(byOrg[prj.OrgID], homeProject{prj, activity[prj.ID]})
	}
	data.Orgs = make([]orgProjects, 0, len(ms))
	orgs := make([]store.Org, 0, len(ms)) // the switcher's, without another query
	for _, m := range ms {
		op := orgProjects{Org: m.Org, Role: m.Role, Projects: byOrg[m.Org.ID]}
		if m.Org.SSORequired || m.Org.Require2FA {
			if err := d.api.SignInRules(ctx, m.Org.ID, p); err != nil {
				op.Locked, op.Projects = problem.From(err).Detail, nil
			}
		}
		data.Orgs = append(data.Orgs, op)
		orgs = append(orgs, m.Org)
	}
	d.render(w, r, status, "home", p, frame{Title: "Your organizations", Orgs: orgs, Data: data})
	return nil
}

// severities are the severities' names in the order pages show them,
// highest first.
var severities = severityNames()

func severityNames() []string {
	var out []string
	for _, s := range tickets.Severities() {
		out = append(out, s.String())
	}
	return out
}

func init() {
	funcs["severityCounts"] = func(a store.ProjectActivity) []severityCount {
		return []severityCount{{"critical", a.Critical}, {"high", a.High}, {"medium", a.Medium}}
	}
}

// severityCount is one cell of the overview's open-ticket counts.
type severityCount struct {
	Severity string
	Count    int64
}

// projectData fills the project overview.
type projectData struct {
	Project store.Project
	// Notice says what the bulk bar just did (bulkNotice).
	Notice string
	Open   []severityCount
	Total  int64
	// Triage is the list of the project's unresolved error groups.
	Triage triageList
	// Failing are the project's failing channels, called out first.
	Failing []store.Channel
	// Day and Fortnight are the events charts: the last 24 hours per hour,
	// the last 14 days per day.
	Day, Fortnight chart
	// Summary is the latest INFO window, nil when there is none.
	Summary *store.InfoSummary
	// Empty is set when the project has received nothing yet; Snippets
	// then show how to send events.
	Empty    bool
	Snippets snippetData
}

// overviewTop is how many templates of the latest INFO summary the
// overview shows.
const overviewTop = 5

// project is the project overview: failing channels, open tickets by
// severity, the events charts, the latest INFO summary and the latest
// tickets; or, before the project has received anything, how to send events.
func (d *Dashboard) project(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
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
	data := projectData{Project: prj, Notice: bulkNotice(r.URL.Query())}
	for _, s := range severities {
		data.Open = append(data.Open, severityCount{s, counts[s]})
		data.Total += counts[s]
	}
	role, _ := org.ParseRole(p.Member.Role)
	if data.Triage, err = d.triage(ctx, prj, role); err != nil {
		return err
	}
	if data.Failing, err = c.FailingChannels(ctx, prj.ID); err != nil {
		return err
	}
	sums, err := c.ListInfoSummaries(ctx, prj.ID, nil, nil, "", 1)
	if err != nil {
		return err
	}
	if len(sums) > 0 {
		v, err := c.InfoSummaryDetail(ctx, sums[0].ID, overviewTop)
		if err != nil {
			return err
		}
		data.Summary = &v
	}
	if len(data.Triage.Rows) == 0 && data.Total == 0 && data.Summary == nil {
		groups, err := c.ListGroups(ctx, prj.ID, store.GroupFilter{}, "", 1)
		if err != nil {
			return err
		}
		data.Empty = len(groups) == 0
	}
	if data.Empty {
		data.Snippets = d.snippetsFor("")
	} else if data.Day, data.Fortnight, err = d.overviewCharts(ctx, prj.ID); err != nil {
		return err
	}
	d.render(w, r, http.StatusOK, "project", p, frame{Title: prj.Name, Crumbs: crumbs, Project: &prj, Tab: "overview", Data: data})
	return nil
}

// overviewCharts reads the last 14 UTC days up to the current hour once and
// draws the last 24 hours per hour and the 14 days per day.
func (d *Dashboard) overviewCharts(ctx context.Context, projectID string) (day, fortnight chart, err error) {
	now := d.now().UTC()
	end := now.Truncate(time.Hour).Add(time.Hour)
	hours, err := d.db.Read().EventsPerHour(ctx, projectID, now.Truncate(24*time.Hour).AddDate(0, 0, -13), end)
	if err != nil {
		return chart{}, chart{}, err
	}
	day = newChart("chart-24h", "Last 24 hours, per hour (UTC)", "hour", hourlyBuckets(hours[len(hours)-24:]))
	fortnight = newChart("chart-14d", "Last 14 days, per day (UTC)", "day", dailyBuckets(hours))
	return day, fortnight, nil
}

// projectCrumbs reads a project and the breadcrumb leading to it.
func (d *Dashboard) projectCrumbs(ctx context.Context, projectID string) (store.Project, []crumb, error) {
	prj, _, crumbs, err := d.projectOrg(ctx, projectID)
	return prj, crumbs, err
}

// projectOrg reads a project, its organization (whose plan some pages
// show) and the breadcrumb leading to the project.
func (d *Dashboard) projectOrg(ctx context.Context, projectID string) (store.Project, store.Org, []crumb, error) {
	c := d.db.Read()
	prj, err := c.ProjectByID(ctx, projectID)
	if err != nil {
		return prj, store.Org{}, nil, err
	}
	o, err := c.OrgByID(ctx, prj.OrgID)
	if err != nil {
		return prj, o, nil, err
	}
	return prj, o, []crumb{{o.Name, "/orgs/" + o.ID}, {prj.Name, "/projects/" + prj.ID}}, nil
}
