package web_test

// Browser test of a fresh server opened for the first time: the first
// account, then an organization, a project and a key, then the first event.

import (
	"net/http"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/store"
)

// TestChromeFirstAccount: on a server with no account, opening / in a
// browser leads to "create the first account"; the home page then leads to
// an organization, its page to a project, the project's empty overview to
// its keys, and an error sent with the new key shows on the overview.
func TestChromeFirstAccount(t *testing.T) {
	t.Parallel()
	chromePath(t) // skip (or fail in CI) before building anything
	s := apitest.Start(t, store.SQLite)
	c := newChrome(t, s)
	if st := c.open("/"); st != http.StatusOK {
		t.Fatalf("GET / on a fresh server: status %d", st)
	}
	if loc := c.location(); loc != "/sign-up" {
		t.Fatalf("a fresh server's / leads to %q, want /sign-up", loc)
	}
	c.expectText("h1", "Welcome to Errata")
	c.expectText(`ol.steps [aria-current="step"]`, "Create the first account")
	c.shot("first-account")
	c.fill("email", "olive@example.com")
	c.fill("name", "Olive")
	c.fill("password", apitest.Password)
	chromeGo(c, `form[action="/sign-up"] button[type="submit"]`, http.StatusOK, "/")
	c.expectText("header", "Olive", "Sign out")
	c.expectText(`ol.steps [aria-current="step"]`, "Create an organization")
	c.shot("first-home")

	c.fill("org-name", "Acme")
	org := chromeGo(c, `form[action="/orgs"] button[type="submit"]`, http.StatusOK, "/orgs/org_")
	c.expectText("main", "No projects yet. Create the first one below")
	c.fill("project-name", "checkout")
	prj := chromeGo(c, `form[action="`+org+`/projects"] button[type="submit"]`, http.StatusOK, "/projects/prj_")
	c.expectText("main", "Nothing received yet")
	chromeGo(c, `nav.tabs a[href="`+prj+`/keys"]`, http.StatusOK, prj+"/keys")
	c.fill("key-name", "checkout production")
	chromeGo(c, `form[action="`+prj+`/keys"] button[type="submit"]`, http.StatusCreated, prj+"/keys")
	key := strings.TrimSpace(c.text("#api-key"))
	c.shot("first-key")

	s.Do(apitest.Request{Method: "POST", Path: "/v1/ingest", Token: key, Body: map[string]any{"service": "checkout", "environment": "prod",
		"events": []any{map[string]any{"message": "payment gateway timeout", "level": "error"}}}}).Expect(t, http.StatusAccepted, "")
	drainAll(t, s)
	if st := c.open(prj); st != http.StatusOK {
		t.Fatalf("overview: status %d", st)
	}
	c.expectText("main", "payment gateway timeout")
	c.expectNoProblems()
	c.expectOnlyOwnOrigin()
}
