package httpapi_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/apitest"
)

// tokenFlow checks personal API tokens against the document: created, used
// on /v1, listed with last_used_at, refused outside their scopes, deleted.
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
}
