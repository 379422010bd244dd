package httpapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/store"
)

// TestMergeGroups: a member merges groups a person sees as one problem:
// counts and samples move to the target, later events of the merged
// groups go to it, and the merged groups' open tickets are resolved with
// the reason merged, without a notification.
func TestMergeGroups(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		// b's and c's events have a user each, a's none: the merge's
		// answer counts both.
		withUser := func(fp, level, user string) map[string]any {
			return ev("failure "+fp, level, "attributes", map[string]any{"fingerprint": fp, "user.id": user})
		}
		feed(t, s, w.Key, batchOf("api", fpEv("a", "error"), fpEv("a", "error"), withUser("b", "error", "u1"), withUser("c", "fatal", "u2"), fpEv("keep", "error")))
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
		if res["id"] != id(a) || res["event_count"] != float64(4) || res["level"] != "fatal" || res["merged_into"] != nil || res["user_count"] != float64(2) {
			t.Fatalf("merged group = %v, want a with 4 events of 2 users, level fatal", res)
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
		// Reopening a merged group's ticket is refused as changing the
		// group is: its events go to the target.
		s.Do(apitest.Request{Method: "PATCH", Path: "/v1/tickets/" + b["ticket_id"].(string), Token: w.Member.Token, Body: map[string]any{"status": "open"}}).
			Expect(t, http.StatusConflict, "conflict")
		if got := getJSON(t, s, w.Owner.Token, "/v1/groups/"+id(b)); got["status"] != "resolved" {
			t.Errorf("a merged group after its ticket's refused reopen = %v, want resolved", got["status"])
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

// TestMergeForeignGroupIsUnknown: a group of another organization (or of
// another project) is answered exactly as an id that names nothing, in
// any position, and is never locked: a merge naming it does not wait for
// a transaction holding it (which would tell it exists).
func TestMergeForeignGroupIsUnknown(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		feed(t, s, w.Key, batchOf("api", fpEv("a", "error"), fpEv("b", "error")))
		a := groupByTitle(t, s, w.Owner.Token, w.ProjectID, "failure a")["id"].(string)
		b := groupByTitle(t, s, w.Owner.Token, w.ProjectID, "failure b")["id"].(string)
		_, outsiderKey := s.CreateKey(t, w.Outsider.Token, w.OtherProjectID)
		feed(t, s, outsiderKey, batchOf("api", fpEv("theirs", "error")))
		foreign := groupByTitle(t, s, w.Outsider.Token, w.OtherProjectID, "failure theirs")["id"].(string)
		sibling := s.CreateProject(t, w.Owner.Token, w.OrgID, "sibling")
		_, siblingKey := s.CreateKey(t, w.Owner.Token, sibling)
		feed(t, s, siblingKey, batchOf("api", fpEv("next door", "error")))
		nextDoor := groupByTitle(t, s, w.Owner.Token, sibling, "failure next door")["id"].(string)
		missing := "grp_0" + strings.Repeat("z", 25)

		// answer is the merge's status, code and detail with the named id
		// replaced by <id>.
		answer := func(ids ...string) string {
			r := s.Do(apitest.Request{Method: "POST", Path: "/v1/groups/" + a + "/merge", Token: w.Member.Token, Body: map[string]any{"group_ids": ids}})
			var p struct{ Type, Detail string }
			_ = json.Unmarshal(r.Body, &p)
			for _, id := range []string{foreign, nextDoor, missing} {
				p.Detail = strings.ReplaceAll(p.Detail, id, "<id>")
			}
			return fmt.Sprintf("%d %s %s", r.Status, p.Type, p.Detail)
		}
		for _, shape := range []func(id string) []string{
			func(id string) []string { return []string{id} },
			func(id string) []string { return []string{b, id} },
			func(id string) []string { return []string{id, b} },
			func(id string) []string { return []string{id, a} },
		} {
			want := answer(shape(missing)...)
			if !strings.HasPrefix(want, "422 ") || !strings.Contains(want, "<id>") {
				t.Fatalf("merging an unknown id answers %s, want a 422 naming it", want)
			}
			for name, id := range map[string]string{"another organization's": foreign, "another project's": nextDoor} {
				if got := answer(shape(id)...); got != want {
					t.Errorf("merging %s group answers\n%s\nwant as for an unknown id\n%s", name, got, want)
				}
			}
		}
		if got := getJSON(t, s, w.Outsider.Token, "/v1/groups/"+foreign); got["merged_into"] != nil || got["event_count"] != float64(1) {
			t.Errorf("the other organization's group changed: %v", got)
		}

		if s.App.DB.Dialect() != store.Postgres {
			return // SQLite has one writer: a held transaction holds every row alike
		}
		// The other organization holds its group in a transaction; the
		// merge naming it answers at once instead of waiting for the lock.
		locked, release := make(chan struct{}), make(chan struct{})
		go func() {
			_ = s.App.DB.Tx(context.Background(), func(c *store.Conn) error {
				if _, err := c.LockGroup(context.Background(), foreign); err != nil {
					t.Errorf("lock the other organization's group: %v", err)
				}
				close(locked)
				<-release
				return nil
			})
		}()
		<-locked
		done := make(chan string, 1)
		go func() { done <- answer(b, foreign) }()
		select {
		case got := <-done:
			if want := answer(b, missing); got != want {
				t.Errorf("while the group is locked, merging it answers %s, want %s", got, want)
			}
		case <-time.After(20 * time.Second):
			t.Errorf("a merge naming another organization's locked group waited for its lock")
			close(release)
			<-done
			return
		}
		close(release)
	})
}
