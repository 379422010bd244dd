package web

import (
	"net/http"

	"github.com/errata-dev/errata/internal/httpserver"
	"github.com/errata-dev/errata/internal/org"
	"github.com/errata-dev/errata/internal/store"
)

// releaseRow is a release with its deploys, for the releases page.
type releaseRow struct {
	store.Release
	Deploys []store.Deploy
}

// releasesData fills the releases page.
type releasesData struct {
	Project  store.Project
	Releases []releaseRow
}

// releases lists a project's releases (GET /v1/projects/{project_id}/releases:
// viewer): events, new groups, uploaded files and deploys of each.
func (d *Dashboard) releases(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	if err := d.authorize(r, p, "project_id", org.Viewer); err != nil {
		return err
	}
	ctx := r.Context()
	prj, crumbs, err := d.projectCrumbs(ctx, r.PathValue("project_id"))
	if err != nil {
		return err
	}
	rels, err := d.db.Read().ListReleases(ctx, prj.ID, "", listCap)
	if err != nil {
		return err
	}
	data := releasesData{Project: prj}
	for _, rel := range rels {
		ds, err := d.db.Read().DeploysOf(ctx, rel.ID)
		if err != nil {
			return err
		}
		data.Releases = append(data.Releases, releaseRow{rel, ds})
	}
	crumbs = append(crumbs, crumb{"Releases", "/projects/" + prj.ID + "/releases"})
	d.render(w, r, http.StatusOK, "releases", p, frame{Title: "Releases · " + prj.Name, Crumbs: crumbs, Project: &prj, Tab: "releases", Data: data})
	return nil
}
