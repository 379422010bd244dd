package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
)

// TestMergeGroups: a member merges groups a person sees as one problem:
// counts and samples move to the target, later events of the merged
// groups go to it, and the merged groups' open tickets are resolved with
// the reason merged, without a notification.
func TestMergeGroups(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		feed(t, s, w.Key, batchOf("api", fpEv("a", "error"), fpEv("a", "error"), fpEv("b", "error"), fpEv("c", "fatal"), fpEv("keep", "error")))
		a := groupByTitle(t, s, w.Owner.Token, w.ProjectID, "failure a")
		b := groupByTitle(t, s, w.Owner.Token, w.ProjectID, "failure b")
		c := groupByTitle(t, s, w.Owner.Token, w.ProjectID, "failure c")
		merge := func(token, target string, ids ...string) *apitest.Response {
			return s.Do(apitest.Request{Method: "POST", Path: "/v1/groups/" + target + "/merge", Token: token, Body: map[string]any{"group_ids": ids}})
		}
		id := func(g map[string]any) string { return g["id"].(string) }

		// Roles, scope and bad input.
		merge(w.Viewer.Token, id(a), id(b)).Expect(t, http.StatusForbidden, "forbidden")
		merge(w.Outsider.Token, id(a), id(b)).Expect(t, http.StatusNotFound, "not-found")
		merge(w.Member.Token, id(a), id(a)).Expect(t, http.StatusUnprocessableEntity, "validation-failed")
		merge(w.Member.Token, id(a)).Expect(t, http.StatusUnprocessableEntity, "validation-failed")
		merge(w.Member.Token, id(a), "grp_00000000000000000000000000").Expect(t, http.StatusUnprocessableEntity, "validation-failed")
		// Another project's group is refused, and nothing changes.
		other := s.CreateProject(t, w.Owner.Token, w.OrgID, "other")
		_, otherKey := s.CreateKey(t, w.Owner.Token, other)
		feed(t, s, otherKey, batchOf("api", fpEv("elsewhere", "error")))
		elsewhere := groupByTitle(t, s, w.Owner.Token, other, "failure elsewhere")
		merge(w.Member.Token, id(a), id(b), id(elsewhere)).Expect(t, http.StatusUnprocessableEntity, "validation-failed")
		if got := getJSON(t, s, w.Owner.Token, "/v1/groups/"+id(b)); got["merged_into"] != nil || got["event_count"] != float64(1) {
			t.Fatalf("a refused merge changed b: %v", got)
		}

		res := merge(w.Member.Token, id(a), id(b), id(c), id(b)).Expect(t, http.StatusOK, "").JSON(t)
		if res["id"] != id(a) || res["event_count"] != float64(4) || res["level"] != "fatal" || res["merged_into"] != nil {
			t.Fatalf("merged group = %v, want a with 4 events, level fatal", res)
		}
		listed := map[string]bool{}
		for _, g := range items(t, s, w.Owner.Token, "/v1/projects/"+w.ProjectID+"/groups") {
			listed[id(g)] = true
		}
		if !listed[id(a)] || listed[id(b)] || listed[id(c)] {
			t.Fatalf("groups listed after the merge = %v, want a but not b or c", listed)
		}
		for _, g := range []map[string]any{b, c} {
			got := getJSON(t, s, w.Owner.Token, "/v1/groups/"+id(g))
			if got["merged_into"] != id(a) || got["event_count"] != float64(0) || got["status"] != "resolved" {
				t.Errorf("merged group = %v, want merged into a, no events, resolved", got)
			}
			tk := getJSON(t, s, w.Owner.Token, "/v1/tickets/"+got["ticket_id"].(string))
			facts := tk["facts"].(map[string]any)
			if tk["status"] != "resolved" || facts["reason"] != "merged" || facts["merged_into"] != id(a) {
				t.Errorf("merged group's ticket = %v, want resolved with reason merged", tk)
			}
		}
		if n := len(items(t, s, w.Owner.Token, "/v1/groups/"+id(a)+"/events?limit=100")); n < 3 {
			t.Errorf("the target has %d sample events, want its own and the merged groups'", n)
		}
		before := len(items(t, s, w.Owner.Token, "/v1/projects/"+w.ProjectID+"/tickets?limit=100"))

		// Later events of the merged groups go to the target: no new group,
		// no new ticket.
		feed(t, s, w.Key, batchOf("api", fpEv("b", "error"), fpEv("c", "error"), fpEv("a", "error")))
		if got := getJSON(t, s, w.Owner.Token, "/v1/groups/"+id(a)); got["event_count"] != float64(7) {
			t.Errorf("target after later events = %v events, want 7", got["event_count"])
		}
		if got := getJSON(t, s, w.Owner.Token, "/v1/groups/"+id(b)); got["event_count"] != float64(0) {
			t.Errorf("a merged group counted later events: %v", got["event_count"])
		}
		if after := len(items(t, s, w.Owner.Token, "/v1/projects/"+w.ProjectID+"/tickets?limit=100")); after != before {
			t.Errorf("tickets %d after later events, want %d", after, before)
		}
		// Merging into a merged group, or a merged group again, is refused.
		keep := groupByTitle(t, s, w.Owner.Token, w.ProjectID, "failure keep")
		merge(w.Member.Token, id(b), id(keep)).Expect(t, http.StatusConflict, "conflict")
		merge(w.Member.Token, id(keep), id(b)).Expect(t, http.StatusUnprocessableEntity, "validation-failed")
		// A chain: merging the target into another takes its merged groups along.
		merge(w.Member.Token, id(keep), id(a)).Expect(t, http.StatusOK, "")
		feed(t, s, w.Key, batchOf("api", fpEv("b", "error")))
		if got := getJSON(t, s, w.Owner.Token, "/v1/groups/"+id(keep)); got["event_count"] != float64(9) {
			t.Errorf("keep after merging a and an event of b = %v events, want 9", got["event_count"])
		}
	})
}
