package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
)

// TestMergeGroupsFromTheList: a member selects groups in the list and
// merges them into the one with the most events; a viewer sees no merge
// controls and is refused.
func TestMergeGroupsFromTheList(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		ev := func(fp string) map[string]any {
			return map[string]any{"message": "failure " + fp, "level": "error", "attributes": map[string]any{"fingerprint": fp}}
		}
		groupsIngest(t, s, w.Owner.Token, w.ProjectID, map[string]any{"service": "api", "events": []any{ev("big"), ev("big"), ev("big"), ev("small"), ev("other")}})
		ids, tickets := map[string]string{}, map[string]string{}
		for _, g := range groupsAPI(t, s, w.Owner.Token, w.ProjectID, "") {
			ids[strings.TrimPrefix(g["title"].(string), "failure ")] = g["id"].(string)
			tickets[strings.TrimPrefix(g["title"].(string), "failure ")], _ = g["ticket_id"].(string)
		}
		list := "/projects/" + w.ProjectID + "/groups"
		action := "/projects/" + w.ProjectID + "/groups/merge"

		viewer := newBrowser(t, s)
		viewer.signIn(w.Viewer.Email)
		if p := viewer.get(list).expect(t, http.StatusOK, "failure big"); strings.Contains(p.Body, `name="group_ids"`) || strings.Contains(p.Body, action) {
			t.Errorf("a viewer sees merge controls")
		}
		viewer.post(action, url.Values{"group_ids": {ids["big"], ids["small"]}}).expect(t, http.StatusForbidden)

		b := newBrowser(t, s)
		b.signIn(w.Member.Email)
		b.get(list).expect(t, http.StatusOK, `name="group_ids" value="`+ids["small"]+`"`, `action="`+action+`"`, "Merge selected groups",
			`data-confirm="Merge the selected error groups into one? A merge cannot be undone."`) // no undo: ask first
		b.post(action, url.Values{"group_ids": {ids["small"]}}).expect(t, http.StatusUnprocessableEntity, "two or more")
		p := b.post(action, url.Values{"group_ids": {ids["small"], ids["big"]}})
		if p.Status != http.StatusSeeOther || p.Header.Get("Location") != "/groups/"+ids["big"]+"?merged=1" {
			t.Fatalf("merge: status %d, location %q; want 303 to the group with the most events", p.Status, p.Header.Get("Location"))
		}
		b.get("/groups/"+ids["big"]+"?merged=1").expect(t, http.StatusOK, "1 error group was merged into this one", "4 events")
		// The merged-away group is worked through the other: no controls
		// but the comment form (comments stay open, as in the API); its
		// ticket offers no reopen (409), but the way to the target.
		p = b.get("/groups/"+ids["small"]).expect(t, http.StatusOK, "This group was merged into", `href="/groups/`+ids["big"]+`"`,
			`action="/groups/`+ids["small"]+`/comments"`)
		if strings.Count(p.Body, `action="/groups/`+ids["small"]+`/`) != 1 {
			t.Errorf("a merged-away group's page offers controls besides the comment form")
		}
		if tk := b.get("/tickets/"+tickets["small"]).expect(t, http.StatusOK, `href="/groups/`+ids["big"]+`"`); strings.Contains(tk.Body, "/reopen") {
			t.Errorf("a merged-away group's ticket offers Reopen, which is refused")
		}
		b.get("/groups/"+ids["big"]).expect(t, http.StatusOK, `action="/groups/`+ids["big"]+`/status"`, `action="/groups/`+ids["big"]+`/comments"`)
		if p := b.get(list); strings.Contains(p.Body, "failure small") || !strings.Contains(p.Body, "failure other") {
			t.Errorf("the list after the merge still shows the merged group, or lost another: %s", p.Body)
		}
	})
}
