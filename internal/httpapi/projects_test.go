package httpapi_test

import (
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
)

func TestProjectCRUD(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		// Unknown fields are ignored; the name is trimmed.
		p := s.Do(apitest.Request{Method: "POST", Path: "/v1/orgs/" + w.OrgID + "/projects", Token: w.Admin.Token,
			Body: map[string]any{"name": " api ", "organization_id": w.OtherOrgID, "color": "red"}}).Expect(t, http.StatusCreated, "").JSON(t)
		pid, _ := p["id"].(string)
		if !strings.HasPrefix(pid, "prj_") || p["name"] != "api" || p["organization_id"] != w.OrgID {
			t.Errorf("project = %v, want prj_… named api in %s", p, w.OrgID)
		}
		for _, f := range []string{"created_at", "updated_at"} {
			if v, _ := p[f].(string); !apiTimeRe.MatchString(v) {
				t.Errorf("%s = %v, want a timestamp", f, p[f])
			}
		}
		// Numbers are positive and unique in the installation: the world
		// made web and other before.
		web := s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.ProjectID, Token: w.Viewer.Token}).Expect(t, http.StatusOK, "").JSON(t)
		otherPrj := s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.OtherProjectID, Token: w.Outsider.Token}).Expect(t, http.StatusOK, "").JSON(t)
		if web["number"] != float64(1) || otherPrj["number"] != float64(2) || p["number"] != float64(3) {
			t.Errorf("numbers %v, %v, %v; want 1, 2, 3 in order of creation", web["number"], otherPrj["number"], p["number"])
		}
		got := s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + pid, Token: w.Viewer.Token}).Expect(t, http.StatusOK, "").JSON(t)
		if !reflect.DeepEqual(got, p) {
			t.Errorf("GET = %v, want what POST answered: %v", got, p)
		}

		list := s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs/" + w.OrgID + "/projects", Token: w.Viewer.Token}).Expect(t, http.StatusOK, "").JSON(t)
		data := list["data"].([]any)
		if len(data) != 2 || data[0].(map[string]any)["id"] != pid || data[1].(map[string]any)["id"] != w.ProjectID || list["next_cursor"] != nil {
			t.Errorf("projects = %v, want [%s %s] and no next page", list, pid, w.ProjectID)
		}
		other := s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs/" + w.OtherOrgID + "/projects", Token: w.Outsider.Token}).Expect(t, http.StatusOK, "").JSON(t)
		if d := other["data"].([]any); len(d) != 1 || d[0].(map[string]any)["id"] != w.OtherProjectID {
			t.Errorf("other org's projects = %v, want only its own", d)
		}

		up := s.Do(apitest.Request{Method: "PATCH", Path: "/v1/projects/" + pid, Token: w.Admin.Token, Body: map[string]any{"name": "backend", "id": "prj_x"}}).
			Expect(t, http.StatusOK, "").JSON(t)
		if up["id"] != pid || up["name"] != "backend" || up["created_at"] != p["created_at"] || up["updated_at"].(string) < p["updated_at"].(string) {
			t.Errorf("renamed = %v, want backend with created_at kept", up)
		}
		if n := s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + pid, Token: w.Member.Token}).Expect(t, http.StatusOK, "").Str(t, "name"); n != "backend" {
			t.Errorf("name after rename = %q, want backend", n)
		}

		keyID, _ := s.CreateKey(t, w.Admin.Token, pid)
		s.Do(apitest.Request{Method: "DELETE", Path: "/v1/projects/" + pid, Token: w.Admin.Token}).Expect(t, http.StatusNoContent, "")
		for _, r := range []apitest.Request{
			{Method: "GET", Path: "/v1/projects/" + pid},
			{Method: "PATCH", Path: "/v1/projects/" + pid, Body: map[string]any{"name": "x"}},
			{Method: "DELETE", Path: "/v1/projects/" + pid},
			{Method: "GET", Path: "/v1/projects/" + pid + "/keys"},
			{Method: "POST", Path: "/v1/projects/" + pid + "/keys", Body: map[string]any{"name": "x"}},
			{Method: "DELETE", Path: "/v1/keys/" + keyID},
		} {
			r.Token = w.Owner.Token
			s.Do(r).Expect(t, http.StatusNotFound, "not-found")
		}
		ids, _ := pageIDs(t, s, w.Owner.Token, "/v1/orgs/"+w.OrgID+"/projects", "1")
		if !reflect.DeepEqual(ids, []string{w.ProjectID}) {
			t.Errorf("projects after delete = %v, want [%s]", ids, w.ProjectID)
		}
	})
}

func TestProjectNameValidation(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		for _, c := range []struct {
			name string
			body any
		}{
			{"empty", map[string]any{"name": ""}},
			{"blank", map[string]any{"name": " \t "}},
			{"missing", map[string]any{}},
			{"null", map[string]any{"name": nil}},
			{"too long", map[string]any{"name": strings.Repeat("x", 101)}},
			{"number", map[string]any{"name": 12}},
		} {
			for _, req := range []apitest.Request{
				{Method: "POST", Path: "/v1/orgs/" + w.OrgID + "/projects", Token: w.Admin.Token, Body: c.body},
				{Method: "PATCH", Path: "/v1/projects/" + w.ProjectID, Token: w.Admin.Token, Body: c.body},
			} {
				r := s.Do(req)
				if r.Status != http.StatusUnprocessableEntity {
					t.Errorf("%s %s with %s name: status = %d, want 422; body: %s", req.Method, req.Path, c.name, r.Status, r.Body)
					continue
				}
				r.Expect(t, http.StatusUnprocessableEntity, "validation-failed")
				if d := r.Str(t, "detail"); !namesField(d, "name") {
					t.Errorf("%s %s with %s name: detail = %q, want it to name name", req.Method, req.Path, c.name, d)
				}
			}
		}
		for _, body := range []string{`{"name":`, `[]`, `"api"`, `{"name":"a"}{}`} {
			r := s.Do(apitest.Request{Method: "POST", Path: "/v1/orgs/" + w.OrgID + "/projects", Token: w.Admin.Token, Body: body})
			if r.Status != http.StatusBadRequest && r.Status != http.StatusUnprocessableEntity {
				t.Errorf("body %s: status = %d, want 400 or 422; body: %s", body, r.Status, r.Body)
			}
		}
		s.Do(apitest.Request{Method: "POST", Path: "/v1/orgs/" + w.OrgID + "/projects", Token: w.Admin.Token, Body: `{"name":`}).Expect(t, http.StatusBadRequest, "malformed-body")
		// The name is unchanged after the refused renames; 100 characters fit.
		if n := s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.ProjectID, Token: w.Viewer.Token}).Expect(t, http.StatusOK, "").Str(t, "name"); n != "web" {
			t.Errorf("name = %q, want web", n)
		}
		s.Do(apitest.Request{Method: "POST", Path: "/v1/orgs/" + w.OrgID + "/projects", Token: w.Admin.Token, Body: map[string]any{"name": strings.Repeat("ü", 100)}}).
			Expect(t, http.StatusCreated, "")
	})
}

func TestProjectsArePerOrganization(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		// Many projects page correctly.
		want := []string{w.ProjectID}
		for i := 0; i < 6; i++ {
			want = append([]string{s.CreateProject(t, w.Admin.Token, w.OrgID, "p")}, want...)
		}
		ids, pages := pageIDs(t, s, w.Viewer.Token, "/v1/orgs/"+w.OrgID+"/projects", "3")
		if !reflect.DeepEqual(ids, want) || pages != 3 {
			t.Errorf("ids = %v in %d pages, want %v in 3", ids, pages, want)
		}
		// A project made in another organization is invisible here.
		s.Do(apitest.Request{Method: "PATCH", Path: "/v1/projects/" + w.OtherProjectID, Token: w.Owner.Token, Body: map[string]any{"name": "mine"}}).
			Expect(t, http.StatusNotFound, "not-found")
		s.Do(apitest.Request{Method: "DELETE", Path: "/v1/projects/" + w.OtherProjectID, Token: w.Owner.Token}).Expect(t, http.StatusNotFound, "not-found")
		if n := s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.OtherProjectID, Token: w.Outsider.Token}).Expect(t, http.StatusOK, "").Str(t, "name"); n != "other" {
			t.Errorf("other project's name = %q, want other", n)
		}
	})
}
