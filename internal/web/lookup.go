package web

import (
	"net/http"
	"strings"

	"github.com/errata-dev/errata/internal/httpserver"
	"github.com/errata-dev/errata/internal/org"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/text"
)

// lookupLimit bounds the groups and events the lookup page lists, as the
// API's lookup does.
const lookupLimit = 100

// lookupData fills the lookup page.
type lookupData struct {
	OrgID, Q string
	Groups   []store.Group
	Events   []store.GroupEvent
}

// lookup finds what a pasted id names in the organization (the header's
// lookup box): the groups whose error events carried it as a trace id or as
// an event id (the id an SDK was answered, or a stored event's evt_ id), and
// their stored events that carry it, as GET /v1/orgs/{org_id}/lookup does
// for either.
func (d *Dashboard) lookup(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	if err := d.authorize(r, p, "org_id", org.Viewer); err != nil {
		return err
	}
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	if err := text.Check("q", q); err != nil {
		return err
	}
	if len(q) > 128 {
		return problem.New("validation-failed", "q: at most 128 characters: a trace id or an event id")
	}
	ctx := r.Context()
	data := lookupData{OrgID: r.PathValue("org_id"), Q: q}
	if q != "" {
		seen := map[string]bool{}
		kinds := [][2]string{{store.RefTrace, q}}
		if id := store.SDKEventID(q); id != "" {
			kinds = append(kinds, [2]string{store.RefEvent, id})
		}
		for _, k := range kinds {
			groups, events, err := d.db.Read().Lookup(ctx, data.OrgID, k[0], k[1], lookupLimit)
			if err != nil {
				return err
			}
			for _, g := range groups {
				if !seen[g.ID] {
					seen[g.ID] = true
					data.Groups = append(data.Groups, g)
				}
			}
			data.Events = append(data.Events, events...)
		}
	}
	d.render(w, r, http.StatusOK, "lookup", p, frame{Title: "Look up " + q, OrgID: data.OrgID, Data: data})
	return nil
}
