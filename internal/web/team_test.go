package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
)

// TestTriageBulkBar: a member checks groups in the project page's triage
// list and resolves, assigns or ignores them at once; a viewer sees no
// check boxes and is refused.
func TestTriageBulkBar(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		ev := func(fp string) map[string]any {
			return map[string]any{"message": "failure " + fp, "level": "error", "attributes": map[string]any{"fingerprint": fp}}
		}
		groupsIngest(t, s, w.Owner.Token, w.ProjectID, map[string]any{"service": "api", "events": []any{ev("alpha"), ev("bravo"), ev("charlie")}})
		ids := map[string]string{}
		for _, g := range groupsAPI(t, s, w.Owner.Token, w.ProjectID, "") {
			ids[strings.TrimPrefix(g["title"].(string), "failure ")] = g["id"].(string)
		}
		home := "/projects/" + w.ProjectID
		action := home + "/groups/bulk"

		viewer := newBrowser(t, s)
		viewer.signIn(w.Viewer.Email)
		if p := viewer.get(home).expect(t, http.StatusOK, "failure alpha", "Unresolved error groups"); strings.Contains(p.Body, action) {
			t.Errorf("a viewer sees the bulk bar")
		}
		viewer.post(action, url.Values{"group_ids": {ids["alpha"]}, "action": {"resolve"}}).expect(t, http.StatusForbidden)

		b := newBrowser(t, s)
		b.signIn(w.Member.Email)
		b.get(home).expect(t, http.StatusOK, `action="`+action+`"`, `name="group_ids" value="`+ids["alpha"]+`"`, `value="assign-me"`)
		b.post(action, url.Values{"action": {"resolve"}}).expect(t, http.StatusUnprocessableEntity, "Check one or more")
		b.post(action, url.Values{"group_ids": {ids["alpha"]}, "action": {"merge"}}).expect(t, http.StatusUnprocessableEntity, "Check two or more")
		b.post(action, url.Values{"group_ids": {ids["alpha"]}, "action": {"explode"}}).expect(t, http.StatusUnprocessableEntity)
		if p := b.post(action, url.Values{"group_ids": {ids["alpha"], ids["bravo"]}, "action": {"assign-me"}}); p.Status != http.StatusSeeOther {
			t.Fatalf("assign-me: status %d: %s", p.Status, p.Body)
		}
		// The page the bar leads back to says what it did.
		done := b.post(action, url.Values{"group_ids": {ids["alpha"]}, "action": {"resolve"}}).expect(t, http.StatusSeeOther)
		b.get(done.Header.Get("Location")).expect(t, http.StatusOK, `role="status">1 error group resolved.<`)
		again := b.post(action, url.Values{"group_ids": {ids["alpha"]}, "action": {"resolve"}}).expect(t, http.StatusSeeOther)
		b.get(again.Header.Get("Location")).expect(t, http.StatusOK, "No error group changed: they were resolved already.")
		// A group that is not there (another project's, deleted) is not
		// "resolved already".
		gone := b.post(action, url.Values{"group_ids": {"grp_00000000000000000000000000"}, "action": {"resolve"}}).expect(t, http.StatusSeeOther)
		b.get(gone.Header.Get("Location")).expect(t, http.StatusOK, "No error group changed: none of the checked ones is left")
		if p := b.get(home + "?done=explode&n=3"); strings.Contains(p.Body, `class="notice"`) {
			t.Errorf("a notice for an action the bar has not: %s", p.Body)
		}
		p := b.get(home).expect(t, http.StatusOK, "failure bravo", "User member@example.com")
		if strings.Contains(p.Body, "failure alpha") {
			t.Errorf("a resolved group is still in the triage list")
		}
		for name, want := range map[string]string{"alpha": "resolved", "bravo": "unresolved", "charlie": "unresolved"} {
			g := apiGroup(t, s, w.Owner.Token, ids[name])
			if g["status"] != want {
				t.Errorf("%s status = %v, want %s", name, g["status"], want)
			}
			assigned := g["assignee"] != nil
			if assigned != (name != "charlie") {
				t.Errorf("%s assignee = %v", name, g["assignee"])
			}
		}
	})
}

// TestGroupPageTeam: the group page shows the activity with comments; a
// member assigns, ignores with a condition, resolves in the next release
// and comments there; a viewer sees none of the forms.
func TestGroupPageTeam(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		seedTicket(t, s, w.Owner.Token, w.ProjectID, "card declined", "error")
		gid := groupsAPI(t, s, w.Owner.Token, w.ProjectID, "")[0]["id"].(string)
		path := "/groups/" + gid

		viewer := newBrowser(t, s)
		viewer.signIn(w.Viewer.Email)
		if p := viewer.get(path).expect(t, http.StatusOK, "Activity", "First seen", "Assignee: <strong>nobody</strong>"); strings.Contains(p.Body, path+"/assign") ||
			strings.Contains(p.Body, path+"/comments") || strings.Contains(p.Body, "Ignore…") {
			t.Errorf("a viewer sees the team forms")
		}
		viewer.post(path+"/comments", url.Values{"body": {"hi"}}).expect(t, http.StatusForbidden)

		b := newBrowser(t, s)
		b.signIn(w.Member.Email)
		b.get(path).expect(t, http.StatusOK, `action="`+path+`/assign"`, `<option value="`+w.Admin.MemberID+`"`, "Ignore…", "Resolve in next release")
		b.post(path+"/assign", url.Values{"assignee_id": {w.Admin.MemberID}}).expect(t, http.StatusSeeOther)
		b.post(path+"/assign", url.Values{"assignee_id": {"mem_00000000000000000000000000"}}).expect(t, http.StatusUnprocessableEntity, "assignee_id")
		b.post(path+"/comments", url.Values{"body": {"the <gateway> again"}}).expect(t, http.StatusSeeOther)
		b.post(path+"/comments", url.Values{"body": {""}}).expect(t, http.StatusUnprocessableEntity)
		b.post(path+"/status", url.Values{"status": {"ignored"}, "ignore": {"window"}, "ignore_count": {"50"}, "ignore_window": {"1h"}}).expect(t, http.StatusSeeOther)
		b.get(path).expect(t, http.StatusOK, "Assignee: <strong>User admin@example.com</strong>", "ignored until 50 events within 1h",
			"User member@example.com commented", "the &lt;gateway&gt; again", "User member@example.com assigned it to User admin@example.com",
			"User member@example.com ignored it until 50 events within 1h")
		if g := apiGroup(t, s, w.Owner.Token, gid); g["ignore"].(map[string]any)["window"] != "1h" {
			t.Errorf("ignore = %v", g["ignore"])
		}
		b.post(path+"/status", url.Values{"status": {"ignored"}, "ignore": {"events"}, "ignore_count": {"0"}}).expect(t, http.StatusUnprocessableEntity)
		// Hours that would wrap the duration (into the far future) are no
		// time from now either.
		b.post(path+"/status", url.Values{"status": {"ignored"}, "ignore": {"until"}, "ignore_hours": {"-2562048"}}).expect(t, http.StatusUnprocessableEntity)
		// An ignore until a time reads as a time, not an ISO string.
		b.post(path+"/status", url.Values{"status": {"ignored"}, "ignore": {"until"}, "ignore_hours": {"5"}}).expect(t, http.StatusSeeOther)
		if p := b.get(path); !regexp.MustCompile(`ignored until \d{1,2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2} UTC`).MatchString(p.Body) || regexp.MustCompile(`until \d{4}-\d{2}-\d{2}T`).MatchString(p.Body) {
			t.Errorf("the group page of a group ignored until a time does not show it as a time")
		}
		// A release with another status is refused, as the API refuses it,
		// not dropped.
		b.post(path+"/status", url.Values{"status": {"ignored"}, "resolved_in": {"next"}}).expect(t, http.StatusUnprocessableEntity, "resolved_in")
		b.post(path+"/status", url.Values{"status": {"resolved"}, "resolved_in": {strings.Repeat("r", 65)}}).expect(t, http.StatusUnprocessableEntity, "resolved_in")
		b.post(path+"/status", url.Values{"status": {"resolved"}, "resolved_in": {"next"}}).expect(t, http.StatusSeeOther)
		if g := apiGroup(t, s, w.Owner.Token, gid); g["status"] != "resolved" {
			t.Errorf("status = %v", g["status"])
		}
		b.get(path).expect(t, http.StatusOK, "resolved in the next release") // no release seen yet: "next" stays
		// The author edits and deletes their comment; another member may
		// not.
		p := b.get(path)
		m := regexp.MustCompile(`action="(/comments/[^"/]+)/edit"`).FindStringSubmatch(p.Body)
		if m == nil || !strings.Contains(p.Body, `action="`+m[1]+`/delete"`) {
			t.Fatalf("no edit and delete forms for the author: %s", p.Body)
		}
		edit, del := m[1]+"/edit", m[1]+"/delete"
		admin := newBrowser(t, s)
		admin.signIn(w.Admin.Email)
		other := s.AddMember(t, w.Owner.Token, w.OrgID, "other@example.com", "member")
		ob := newBrowser(t, s)
		ob.signIn(other.Email)
		ob.post(edit, url.Values{"body": {"not mine"}}).expect(t, http.StatusForbidden)
		b.post(edit, url.Values{"body": {""}}).expect(t, http.StatusUnprocessableEntity)
		b.post(edit, url.Values{"body": {"the <gateway> again, twice\r\nsince noon"}}).expect(t, http.StatusSeeOther)
		if p := b.get(path); !strings.Contains(p.Body, "the &lt;gateway&gt; again, twice\nsince noon") {
			t.Errorf("the edited comment is not shown as edited")
		}
		ob.post(del, nil).expect(t, http.StatusForbidden)
		b.post(del, nil).expect(t, http.StatusSeeOther)
		if p := b.get(path); strings.Contains(p.Body, "gateway") {
			t.Errorf("the deleted comment is still shown")
		}
		// A textarea sends its line breaks as CRLF: kept as plain newlines.
		b.post(path+"/comments", url.Values{"body": {"first line\r\nsecond line"}}).expect(t, http.StatusSeeOther)
		if acts := activityOf(t, s, w.Owner.Token, gid); acts[0]["data"].(map[string]any)["body"] != "first line\nsecond line" {
			t.Errorf("a two-line comment from the form = %v, want its lines joined by a newline", acts[0]["data"])
		}
		// 10,000 characters in any script fit the form (CONTRACT 8), though
		// each CJK character is nine bytes percent-encoded; a form over
		// 1 MiB is 413 saying so.
		b.post(path+"/comments", url.Values{"body": {strings.Repeat("日", 10000)}}).expect(t, http.StatusSeeOther)
		b.post(path+"/comments", url.Values{"body": {strings.Repeat("日", 120000)}}).expect(t, http.StatusRequestEntityTooLarge, "1 MiB")
	})
}

// apiGroup reads a group through the API.
func apiGroup(t *testing.T, s *apitest.Server, token, id string) map[string]any {
	t.Helper()
	return s.Do(apitest.Request{Method: "GET", Path: "/v1/groups/" + id, Token: token}).Expect(t, http.StatusOK, "").JSON(t)
}

// activityOf reads a group's activity through the API, newest first.
func activityOf(t *testing.T, s *apitest.Server, token, id string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, a := range s.Do(apitest.Request{Method: "GET", Path: "/v1/groups/" + id + "/activity", Token: token}).Expect(t, http.StatusOK, "").JSON(t)["data"].([]any) {
		out = append(out, a.(map[string]any))
	}
	return out
}
