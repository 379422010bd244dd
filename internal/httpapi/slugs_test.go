package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
)

func TestSlugs(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		get := func(path string) map[string]any {
			return s.Do(apitest.Request{Method: "GET", Path: path, Token: w.Owner.Token}).Expect(t, http.StatusOK, "").JSON(t)
		}
		if o := get("/v1/orgs/" + w.OrgID); o["slug"] != "acme" {
			t.Errorf("org slug = %v, want acme", o["slug"])
		}
		// Unique in the installation: a second "Acme" is acme-2.
		second := s.CreateOrg(t, w.Owner.Token, "ACME!")
		if o := get("/v1/orgs/" + second); o["slug"] != "acme-2" {
			t.Errorf("second org slug = %v, want acme-2", o["slug"])
		}
		// Projects: unique within their organization only.
		if p := get("/v1/projects/" + w.ProjectID); p["slug"] != "web" {
			t.Errorf("project slug = %v, want web", p["slug"])
		}
		again := s.CreateProject(t, w.Owner.Token, w.OrgID, "Web")
		if p := get("/v1/projects/" + again); p["slug"] != "web-2" {
			t.Errorf("second project slug = %v, want web-2", p["slug"])
		}
		elsewhere := s.CreateProject(t, w.Owner.Token, second, "Café Web")
		if p := get("/v1/projects/" + elsewhere); p["slug"] != "cafe-web" {
			t.Errorf("project slug = %v, want cafe-web", p["slug"])
		}
		list := get("/v1/orgs/" + w.OrgID + "/projects")["data"].([]any)
		if p := list[0].(map[string]any); p["slug"] != "web-2" {
			t.Errorf("listed project = %v, want its slug", p)
		}

		// Changed with PATCH, alone or with the name; taken is 409 conflict.
		up := s.Do(apitest.Request{Method: "PATCH", Path: "/v1/orgs/" + second, Token: w.Owner.Token, Body: map[string]any{"slug": "globex"}}).Expect(t, http.StatusOK, "").JSON(t)
		if up["slug"] != "globex" || up["name"] != "ACME!" {
			t.Errorf("patched org = %v, want slug globex, name kept", up)
		}
		s.Do(apitest.Request{Method: "PATCH", Path: "/v1/orgs/" + second, Token: w.Owner.Token, Body: map[string]any{"slug": "acme"}}).Expect(t, http.StatusConflict, "conflict")
		s.Do(apitest.Request{Method: "PATCH", Path: "/v1/projects/" + again, Token: w.Admin.Token, Body: map[string]any{"slug": "web"}}).Expect(t, http.StatusConflict, "conflict")
		up = s.Do(apitest.Request{Method: "PATCH", Path: "/v1/projects/" + again, Token: w.Admin.Token, Body: map[string]any{"slug": "cafe-web", "name": "Frontend"}}).
			Expect(t, http.StatusOK, "").JSON(t)
		if up["slug"] != "cafe-web" || up["name"] != "Frontend" {
			t.Errorf("patched project = %v, want slug cafe-web named Frontend", up)
		}
		for _, bad := range []any{"Web", "a_b", "", "a b", 7, "abcdefghij-abcdefghij-abcdefghij-abcdefghij-abcdefghij"} {
			r := s.Do(apitest.Request{Method: "PATCH", Path: "/v1/projects/" + again, Token: w.Admin.Token, Body: map[string]any{"slug": bad}}).
				Expect(t, http.StatusUnprocessableEntity, "validation-failed")
			if d := r.Str(t, "detail"); !namesField(d, "slug") {
				t.Errorf("slug %v: detail = %q, want it to name slug", bad, d)
			}
		}
	})
}
