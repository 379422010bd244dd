package httpapi_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/apitest"
)

// tokenFlow checks personal API tokens against the document: created, used
// on /v1, listed with last_used_at, refused outside their scopes, deleted;
// and releases, made with a token through sentry-cli's /api/0 routes.
func tokenFlow(t *testing.T, c *contract, owner, prj string) {
	t.Helper()
	exp := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	created := c.call(t, apitest.Request{Method: "POST", Path: "/v1/auth/tokens", Token: owner,
		Body: map[string]any{"name": "ci", "scopes": []string{"project:read"}, "expires_at": exp}}, http.StatusCreated, "")
	tok := created.Str(t, "token")
	c.call(t, apitest.Request{Method: "GET", Path: "/v1/projects/" + prj, Token: tok}, http.StatusOK, "")
	c.call(t, apitest.Request{Method: "PATCH", Path: "/v1/projects/" + prj, Token: tok, Body: map[string]any{"name": "web"}}, http.StatusForbidden, "insufficient-scope")
	c.call(t, apitest.Request{Method: "GET", Path: "/v1/auth/tokens", Token: owner}, http.StatusOK, "")
	c.call(t, apitest.Request{Method: "DELETE", Path: "/v1/auth/tokens/" + created.Str(t, "id"), Token: owner}, http.StatusNoContent, "")
	c.call(t, apitest.Request{Method: "DELETE", Path: "/v1/auth/tokens/" + unknownIDs["token_id"], Token: owner}, http.StatusNotFound, "not-found")

	rel := c.call(t, apitest.Request{Method: "POST", Path: "/v1/auth/tokens", Token: owner,
		Body: map[string]any{"name": "release", "scopes": []string{"project:releases"}}}, http.StatusCreated, "").Str(t, "token")
	p := c.call(t, apitest.Request{Method: "GET", Path: "/v1/projects/" + prj, Token: owner}, http.StatusOK, "").JSON(t)
	o := c.call(t, apitest.Request{Method: "GET", Path: "/v1/orgs/" + p["organization_id"].(string), Token: owner}, http.StatusOK, "").JSON(t)
	sentry := "/api/0/organizations/" + o["slug"].(string) + "/releases/"
	c.s.Do(apitest.Request{Method: "POST", Path: sentry, Token: rel, Body: map[string]any{"version": "2.0.0", "projects": []string{p["slug"].(string)}}}).
		Expect(t, http.StatusCreated, "")
	c.s.Do(apitest.Request{Method: "POST", Path: sentry + "2.0.0/deploys/", Token: rel, Body: map[string]any{"environment": "production"}}).
		Expect(t, http.StatusCreated, "")
	list := c.call(t, apitest.Request{Method: "GET", Path: "/v1/projects/" + prj + "/releases", Token: rel}, http.StatusOK, "").JSON(t)
	data, _ := list["data"].([]any)
	if len(data) == 0 {
		t.Fatalf("releases = %v, want 2.0.0", list)
	}
	id, _ := data[0].(map[string]any)["id"].(string)
	c.call(t, apitest.Request{Method: "GET", Path: "/v1/releases/" + id, Token: owner}, http.StatusOK, "")
	c.call(t, apitest.Request{Method: "GET", Path: "/v1/releases/" + unknownIDs["release_id"], Token: owner}, http.StatusNotFound, "not-found")
}
