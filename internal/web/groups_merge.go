package web

import (
	"net/http"
	"slices"
	"strconv"

	"github.com/errata-dev/errata/internal/httpserver"
	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/org"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/tickets"
)

// mergeGroups merges the groups chosen in the group list, with the role
// POST /v1/groups/{group_id}/merge demands, into the one of them with the
// most events (the oldest on a tie), then shows that group.
func (d *Dashboard) mergeGroups(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	if err := d.authorize(r, p, "project_id", org.MemberRole); err != nil {
		return err
	}
	if err := readForm(r); err != nil {
		return err
	}
	ids := slices.Compact(slices.Sorted(slices.Values(r.PostForm["group_ids"])))
	if len(ids) < 2 {
		return problem.New("validation-failed", "Choose two or more error groups to merge.")
	}
	ctx := r.Context()
	projectID := r.PathValue("project_id")
	var target store.Group
	for _, gid := range ids {
		if !id.Valid(id.Group, gid) {
			return problem.Newf("validation-failed", "%q is not an error group of this project.", gid)
		}
		g, err := d.db.Read().GroupByID(ctx, gid)
		if err != nil || g.ProjectID != projectID {
			return problem.Newf("validation-failed", "%q is not an error group of this project.", gid)
		}
		if target.ID == "" || g.EventCount > target.EventCount || (g.EventCount == target.EventCount && g.ID < target.ID) {
			target = g
		}
	}
	others := slices.DeleteFunc(ids, func(id string) bool { return id == target.ID })
	if _, err := d.tickets.MergeGroups(ctx, tickets.ActorOf(p.Member), target.ID, others); err != nil {
		return err
	}
	http.Redirect(w, r, "/groups/"+target.ID+"?merged="+strconv.Itoa(len(others)), http.StatusSeeOther)
	return nil
}
