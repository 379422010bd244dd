package httpapi_test

import (
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/config"
)

func TestCreateOrg(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		a := s.SignUp(t, "ada@example.com")
		r := s.Do(apitest.Request{Method: "POST", Path: "/v1/orgs", Token: a.Token, Body: map[string]any{"name": "  Acme  ", "plan": "free", "extra": 1}}).
			Expect(t, http.StatusCreated, "")
		o := r.JSON(t)
		if got := o["id"].(string); !strings.HasPrefix(got, "org_") {
			t.Errorf("id = %q, want org_…", got)
		}
		if o["name"] != "Acme" {
			t.Errorf("name = %v, want Acme (trimmed)", o["name"])
		}
		if o["plan"] != "team" {
			t.Errorf("plan = %v, want the default plan team (a plan in the body is ignored)", o["plan"])
		}
		limits, _ := o["limits"].(map[string]any)
		if limits["channels_per_project"] != float64(25) || !reflect.DeepEqual(limits["channel_types"], []any{"email", "webhook"}) {
			t.Errorf("limits = %v, want 25 channels of email and webhook", limits)
		}
		for _, f := range []string{"created_at", "updated_at"} {
			if v, _ := o[f].(string); !apiTimeRe.MatchString(v) {
				t.Errorf("%s = %v, want YYYY-MM-DDTHH:MM:SS.mmmZ", f, o[f])
			}
		}
		// The creator is its owner.
		m := s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs/" + o["id"].(string) + "/members", Token: a.Token}).Expect(t, http.StatusOK, "").JSON(t)
		data := m["data"].([]any)
		if len(data) != 1 {
			t.Fatalf("members = %v, want the creator alone", data)
		}
		if mem := data[0].(map[string]any); mem["user_id"] != a.UserID || mem["role"] != "owner" || mem["email"] != a.Email {
			t.Errorf("member = %v, want %s as owner", mem, a.UserID)
		}
	})
}

func TestCreateOrgOnFreePlan(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		a := s.SignUp(t, "ada@example.com")
		o := s.Do(apitest.Request{Method: "POST", Path: "/v1/orgs", Token: a.Token, Body: map[string]any{"name": "Acme"}}).Expect(t, http.StatusCreated, "").JSON(t)
		limits, _ := o["limits"].(map[string]any)
		if o["plan"] != "free" || limits["channels_per_project"] != float64(3) || !reflect.DeepEqual(limits["channel_types"], []any{"email"}) {
			t.Errorf("org = %v, want plan free with 3 email channels", o)
		}
	}, func(c *config.Serve) { c.DefaultPlan = "free" })
}

func TestOrgNameValidation(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		for _, c := range []struct {
			name string
			body any
		}{
			{"empty", map[string]any{"name": ""}},
			{"blank", map[string]any{"name": "   "}},
			{"missing", map[string]any{"title": "Acme"}},
			{"too long", map[string]any{"name": strings.Repeat("a", 101)}},
			{"not a string", map[string]any{"name": 7}},
		} {
			for _, req := range []apitest.Request{
				{Method: "POST", Path: "/v1/orgs", Token: w.Owner.Token, Body: c.body},
				{Method: "PATCH", Path: "/v1/orgs/" + w.OrgID, Token: w.Owner.Token, Body: c.body},
			} {
				r := s.Do(req).Expect(t, http.StatusUnprocessableEntity, "validation-failed")
				if d := r.Str(t, "detail"); !namesField(d, "name") {
					t.Errorf("%s %s with %s name: detail = %q, want it to name name", req.Method, req.Path, c.name, d)
				}
			}
		}
		s.Do(apitest.Request{Method: "POST", Path: "/v1/orgs", Token: w.Owner.Token, Body: map[string]any{"name": strings.Repeat("é", 100)}}).Expect(t, http.StatusCreated, "")
	})
}

func TestGetRenameDeleteOrg(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		got := s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs/" + w.OrgID, Token: w.Viewer.Token}).Expect(t, http.StatusOK, "").JSON(t)
		if got["id"] != w.OrgID || got["name"] != "Acme" || got["plan"] != "team" {
			t.Errorf("org = %v, want Acme on team", got)
		}
		s.Do(apitest.Request{Method: "PATCH", Path: "/v1/orgs/" + w.OrgID, Token: w.Admin.Token, Body: map[string]any{"name": "Admin's"}}).Expect(t, http.StatusForbidden, "forbidden")
		up := s.Do(apitest.Request{Method: "PATCH", Path: "/v1/orgs/" + w.OrgID, Token: w.Owner.Token, Body: map[string]any{"name": "Acme Ltd", "plan": "free"}}).
			Expect(t, http.StatusOK, "").JSON(t)
		if up["name"] != "Acme Ltd" || up["plan"] != "team" || up["created_at"] != got["created_at"] || up["updated_at"].(string) < got["updated_at"].(string) {
			t.Errorf("renamed org = %v, want name Acme Ltd, plan unchanged, created_at kept, updated_at not earlier", up)
		}
		again := s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs/" + w.OrgID, Token: w.Member.Token}).Expect(t, http.StatusOK, "").JSON(t)
		if again["name"] != "Acme Ltd" {
			t.Errorf("name after rename = %v, want Acme Ltd", again["name"])
		}

		s.Do(apitest.Request{Method: "DELETE", Path: "/v1/orgs/" + w.OrgID, Token: w.Admin.Token}).Expect(t, http.StatusForbidden, "forbidden")
		s.Do(apitest.Request{Method: "DELETE", Path: "/v1/orgs/" + w.OrgID, Token: w.Owner.Token}).Expect(t, http.StatusNoContent, "")
		for _, p := range []string{"/v1/orgs/" + w.OrgID, "/v1/orgs/" + w.OrgID + "/members", "/v1/projects/" + w.ProjectID, "/v1/projects/" + w.ProjectID + "/keys"} {
			s.Do(apitest.Request{Method: "GET", Path: p, Token: w.Owner.Token}).Expect(t, http.StatusNotFound, "not-found")
		}
		s.Do(apitest.Request{Method: "DELETE", Path: "/v1/orgs/" + w.OrgID, Token: w.Owner.Token}).Expect(t, http.StatusNotFound, "not-found")
		s.Do(apitest.Request{Method: "DELETE", Path: "/v1/members/" + w.Viewer.MemberID, Token: w.Viewer.Token}).Expect(t, http.StatusNotFound, "not-found")
		list := s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs", Token: w.Owner.Token}).Expect(t, http.StatusOK, "").JSON(t)
		if data := list["data"].([]any); len(data) != 0 {
			t.Errorf("orgs after delete = %v, want none", data)
		}
		// The other organization is untouched.
		s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs/" + w.OtherOrgID, Token: w.Outsider.Token}).Expect(t, http.StatusOK, "")
	})
}

// namesField reports whether a problem detail names field: "field: …", or
// huma's "expected required property field to be present".
func namesField(detail, field string) bool {
	return strings.HasPrefix(detail, field+":") || strings.Contains(detail, "property "+field+" ")
}

// pageIDs fetches path page by page with limit and returns every id in
// order and the number of pages.
func pageIDs(t *testing.T, s *apitest.Server, token, path string, limit string) ([]string, int) {
	t.Helper()
	var ids []string
	cursor, pages := "", 0
	for {
		q := url.Values{"limit": {limit}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		page := s.Do(apitest.Request{Method: "GET", Path: path + "?" + q.Encode(), Token: token}).Expect(t, http.StatusOK, "").JSON(t)
		pages++
		for _, v := range page["data"].([]any) {
			ids = append(ids, v.(map[string]any)["id"].(string))
		}
		next, present := page["next_cursor"]
		if !present {
			t.Fatalf("page of %s lacks next_cursor: %v", path, page)
		}
		if next == nil {
			return ids, pages
		}
		cursor = next.(string)
		if pages > 50 {
			t.Fatalf("paging %s does not end", path)
		}
	}
}

func TestListOrgsPaging(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		want := []string{w.OrgID}
		for _, n := range []string{"B", "C", "D", "E"} {
			want = append([]string{s.CreateOrg(t, w.Owner.Token, n)}, want...) // newest first
		}
		for _, c := range []struct {
			limit string
			pages int
		}{{"2", 3}, {"5", 1}, {"4", 2}, {"100", 1}, {"1", 5}} {
			ids, pages := pageIDs(t, s, w.Owner.Token, "/v1/orgs", c.limit)
			if !reflect.DeepEqual(ids, want) || pages != c.pages {
				t.Errorf("limit %s: ids = %v in %d pages, want %v in %d", c.limit, ids, pages, want, c.pages)
			}
		}
		def := s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs", Token: w.Owner.Token}).Expect(t, http.StatusOK, "").JSON(t)
		if len(def["data"].([]any)) != 5 || def["next_cursor"] != nil {
			t.Errorf("default page = %v, want all 5 and next_cursor null", def)
		}
		// Only your organizations: the outsider sees the other one alone.
		ids, _ := pageIDs(t, s, w.Outsider.Token, "/v1/orgs", "50")
		if !reflect.DeepEqual(ids, []string{w.OtherOrgID}) {
			t.Errorf("outsider's orgs = %v, want [%s]", ids, w.OtherOrgID)
		}
	})
}

// TestListParameters: every list refuses a limit outside 1–100 and a
// cursor that is not its own, naming the parameter.
func TestListParameters(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		s.CreateOrg(t, w.Owner.Token, "Second")
		s.CreateProject(t, w.Owner.Token, w.OrgID, "api")
		s.CreateKey(t, w.Owner.Token, w.ProjectID)
		s.CreateKey(t, w.Owner.Token, w.ProjectID)
		s.Invite(t, w.Owner.Token, w.OrgID, "a@example.com", "viewer")
		s.Invite(t, w.Owner.Token, w.OrgID, "b@example.com", "viewer")
		lists := []string{"/v1/orgs", "/v1/orgs/" + w.OrgID + "/members", "/v1/orgs/" + w.OrgID + "/invitations",
			"/v1/orgs/" + w.OrgID + "/projects", "/v1/projects/" + w.ProjectID + "/keys"}
		cursors := map[string]string{}
		for _, l := range lists {
			page := s.Do(apitest.Request{Method: "GET", Path: l + "?limit=1", Token: w.Owner.Token}).Expect(t, http.StatusOK, "").JSON(t)
			c, _ := page["next_cursor"].(string)
			if c == "" {
				t.Fatalf("%s?limit=1: next_cursor = %v, want a cursor", l, page["next_cursor"])
			}
			cursors[l] = c
		}
		// The owner's orgs cursor is not the admin's.
		adminOrgs := s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs?cursor=" + url.QueryEscape(cursors["/v1/orgs"]), Token: w.Admin.Token}).
			Expect(t, http.StatusUnprocessableEntity, "validation-failed")
		if d := adminOrgs.Str(t, "detail"); !namesField(d, "cursor") {
			t.Errorf("another user's cursor: detail = %q, want it to name cursor", d)
		}
		for i, l := range lists {
			own := cursors[l]
			foreign := cursors[lists[(i+1)%len(lists)]]
			tampered := []byte(own)
			tampered[0] ^= 1
			for _, c := range []struct{ query, field string }{
				{"limit=0", "limit"},
				{"limit=101", "limit"},
				{"limit=-1", "limit"},
				{"limit=ten", "limit"},
				{"limit=", "limit"},
				{"cursor=" + url.QueryEscape(string(tampered)), "cursor"},
				{"cursor=" + url.QueryEscape(own+"x"), "cursor"},
				{"cursor=garbage", "cursor"},
				{"cursor=" + url.QueryEscape(foreign), "cursor"},
			} {
				r := s.Do(apitest.Request{Method: "GET", Path: l + "?" + c.query, Token: w.Owner.Token})
				if r.Status != http.StatusUnprocessableEntity {
					t.Errorf("%s?%s: status = %d, want 422; body: %s", l, c.query, r.Status, r.Body)
					continue
				}
				r.Expect(t, http.StatusUnprocessableEntity, "validation-failed")
				if d := r.Str(t, "detail"); !namesField(d, c.field) {
					t.Errorf("%s?%s: detail = %q, want it to name %s", l, c.query, d, c.field)
				}
			}
			for _, q := range []string{"limit=1", "limit=100", "cursor=" + url.QueryEscape(own)} {
				s.Do(apitest.Request{Method: "GET", Path: l + "?" + q, Token: w.Owner.Token}).Expect(t, http.StatusOK, "")
			}
		}
	})
}
