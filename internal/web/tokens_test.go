package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
)

var tokenOnPage = regexp.MustCompile(`errata_pat_[0-9a-z]+_[a-z2-7]{40,}`)

func TestTokensPage(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		b := newBrowser(t, s)
		b.signIn(w.Member.Email)
		b.get("/tokens").expect(t, http.StatusOK, "No API tokens yet", `<a href="/tokens">API tokens</a>`, `value="project:releases"`)
		b.post("/tokens", url.Values{"name": {"ci"}}).expect(t, http.StatusUnprocessableEntity, `role="alert"`, "Scopes")
		created := b.post("/tokens", url.Values{"name": {"frontend CI"}, "scope": {"project:releases", "project:read"}}).
			expect(t, http.StatusCreated, "shown only this once", "frontend CI", "<code>project:releases</code>")
		tok := tokenOnPage.FindString(created.Body)
		if tok == "" {
			t.Fatalf("no token on the page: %s", created.Body)
		}
		s.Do(apitest.Request{Method: "GET", Path: "/api/0/organizations/acme/chunk-upload/", Token: tok}).Expect(t, http.StatusOK, "")
		list := b.get("/tokens").expect(t, http.StatusOK, "frontend CI", "<td>password sign-in</td>")
		if tokenOnPage.MatchString(list.Body) {
			t.Error("the list shows a token's secret")
		}
		m := regexp.MustCompile(`action="(/tokens/pat_[0-9a-z]+/delete)"`).FindStringSubmatch(list.Body)
		if m == nil {
			t.Fatalf("no delete form: %s", list.Body)
		}
		b.post(m[1], nil).expect(t, http.StatusSeeOther)
		b.get("/tokens").expect(t, http.StatusOK, "No API tokens yet")
		if r := s.Do(apitest.Request{Method: "GET", Path: "/api/0/organizations/acme/chunk-upload/", Token: tok}); r.Status != http.StatusUnauthorized {
			t.Errorf("deleted token: status %d, want 401", r.Status)
		}
	})
}

func TestReleasesPage(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		b := newBrowser(t, s)
		b.signIn(w.Viewer.Email)
		path := "/projects/" + w.ProjectID + "/releases"
		b.get(path).expect(t, http.StatusOK, "No releases yet", `<a href="`+path+`" aria-current="page">Releases</a>`)
		_, tok := createTokenFor(t, s, w.Member.Token, "project:releases")
		s.Do(apitest.Request{Method: "POST", Path: "/api/0/organizations/acme/releases/", Token: tok,
			Body: map[string]any{"version": "7.1.0", "projects": []string{"web"}}}).Expect(t, http.StatusCreated, "")
		s.Do(apitest.Request{Method: "POST", Path: "/api/0/organizations/acme/releases/7.1.0/deploys/", Token: tok,
			Body: map[string]any{"environment": "production", "name": "green"}}).Expect(t, http.StatusCreated, "")
		b.get(path).expect(t, http.StatusOK, "<code>7.1.0</code>", "production (green)", "no events")
		b.get("/projects/"+w.OtherProjectID+"/releases").expect(t, http.StatusNotFound)
	})
}

func createTokenFor(t *testing.T, s *apitest.Server, session string, scopes ...string) (string, string) {
	t.Helper()
	r := s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/tokens", Token: session, Body: map[string]any{"name": "ci", "scopes": scopes}}).
		Expect(t, http.StatusCreated, "")
	return r.Str(t, "id"), r.Str(t, "token")
}
