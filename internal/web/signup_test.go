package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/config"
)

// TestFirstAccount: on a server with no account, the sign-in form sends to
// "create the first account", which signs the new owner in and leads to
// creating an organization; once an account exists, the form is closed
// (invite-only) and sends back to sign in.
func TestFirstAccount(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		b := newBrowser(t, s)
		if loc := b.get("/").expect(t, http.StatusSeeOther).Header.Get("Location"); loc != "/sign-in" {
			t.Fatalf("Location of / = %q, want /sign-in", loc)
		}
		if loc := b.get("/sign-in").expect(t, http.StatusSeeOther).Header.Get("Location"); loc != "/sign-up" {
			t.Fatalf("Location of /sign-in with no account = %q, want /sign-up", loc)
		}
		next := "/orgs?x=1&y=2"
		if loc := b.get("/sign-in?next="+url.QueryEscape(next)).expect(t, http.StatusSeeOther).Header.Get("Location"); loc != "/sign-up?next="+url.QueryEscape(next) {
			t.Fatalf("Location of /sign-in?next with no account = %q, want the sign-up form keeping next", loc)
		}
		b.get("/sign-up").expect(t, http.StatusOK, "Welcome to Errata", "This server has no account yet", `action="/sign-up"`,
			`<label for="email">`, `<label for="password">`, "Create the first account")

		// Refused forms come back with the reason and the fields kept.
		b.post("/sign-up", url.Values{"email": {"owner@example.com"}, "name": {"Olive"}, "password": {"short"}, "next": {"/"}}).
			expect(t, http.StatusUnprocessableEntity, "Password: must be 8 to 256 characters.", `value="owner@example.com"`, `value="Olive"`, "Welcome to Errata")
		b.post("/sign-up", url.Values{"email": {"not an address"}, "password": {apitest.Password}}).
			expect(t, http.StatusUnprocessableEntity, `role="alert"`)
		b.post("/sign-up", url.Values{"email": {"owner@example.com"}, "name": {strings.Repeat("n", 101)}, "password": {apitest.Password}}).
			expect(t, http.StatusUnprocessableEntity, "Name: at most 100 characters.")

		// The first account: signed in with the API's cookie, then home,
		// which leads to the organization.
		p := b.post("/sign-up", url.Values{"email": {"Owner@Example.com"}, "name": {"Olive"}, "password": {apitest.Password}, "next": {"/"}}).
			expect(t, http.StatusSeeOther)
		if loc := p.Header.Get("Location"); loc != "/" {
			t.Fatalf("Location after sign-up = %q, want /", loc)
		}
		c := sessionCookie(t, p)
		s.Do(apitest.Request{Method: "GET", Path: "/v1/auth/session", Cookies: []*http.Cookie{c}}).Expect(t, http.StatusOK, "")
		b.get("/").expect(t, http.StatusOK, "You belong to no organization yet", `aria-current="step"`, "Create an organization", `action="/orgs"`)
		if loc := b.get("/sign-up").expect(t, http.StatusSeeOther).Header.Get("Location"); loc != "/" {
			t.Fatalf("Location of /sign-up when signed in = %q, want /", loc)
		}
		org := b.post("/orgs", url.Values{"name": {"Acme"}}).expect(t, http.StatusSeeOther).Header.Get("Location")
		prj := b.post(org+"/projects", url.Values{"name": {"checkout"}}).expect(t, http.StatusSeeOther).Header.Get("Location")
		b.get(prj).expect(t, http.StatusOK, "Nothing received yet")
		b.post(prj+"/keys", url.Values{"name": {"checkout production"}}).expect(t, http.StatusCreated, "API key created", "svc_live_")

		// Now an account exists: sign-in is the form, sign-up is closed.
		other := newBrowser(t, s)
		other.get("/sign-in").expect(t, http.StatusOK, `action="/sign-in"`)
		if strings.Contains(other.get("/sign-in").Body, `href="/sign-up`) {
			t.Error("an invite-only server's sign-in form links to sign-up")
		}
		if loc := other.get("/sign-up").expect(t, http.StatusSeeOther).Header.Get("Location"); loc != "/sign-in?next=%2F" {
			t.Fatalf("Location of /sign-up on an invite-only server = %q", loc)
		}
		closed := other.post("/sign-up", url.Values{"email": {"late@example.com"}, "password": {apitest.Password}}).
			expect(t, http.StatusForbidden, "new accounts now need an invitation", `href="/sign-in"`)
		if strings.Contains(closed.Body, `action="/sign-up"`) {
			t.Error("the closed sign-up page offers the form again, which can only be refused")
		}
		s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/sign-in/email", Body: map[string]any{"email": "late@example.com", "password": apitest.Password}}).
			Expect(t, http.StatusUnauthorized, "invalid-credentials")
	})
}

// TestFirstAccountRace: visitors creating the first account at once get one
// account; the others are told sign-up has closed.
func TestFirstAccountRace(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		const n = 6
		statuses := make([]int, n)
		var wg sync.WaitGroup
		for i := range n {
			b := newBrowser(t, s)
			wg.Add(1)
			go func() {
				defer wg.Done()
				statuses[i] = b.post("/sign-up", url.Values{"email": {"first" + string(rune('a'+i)) + "@example.com"}, "password": {apitest.Password}}).Status
			}()
		}
		wg.Wait()
		created := 0
		for _, st := range statuses {
			switch st {
			case http.StatusSeeOther:
				created++
			case http.StatusForbidden:
			default:
				t.Errorf("status %d, want 303 for the first and 403 for the others", st)
			}
		}
		if created != 1 {
			t.Fatalf("%d first accounts created at once (%v), want 1", created, statuses)
		}
	})
}

// TestOpenSignUpForm: with ERRATA_SIGNUP=open the sign-in form links to the
// sign-up form, which creates further accounts.
func TestOpenSignUpForm(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		s.SignUp(t, "owner@example.com")
		b := newBrowser(t, s)
		b.get("/sign-in").expect(t, http.StatusOK, `href="/sign-up"`, "Create one")
		b.get("/sign-up").expect(t, http.StatusOK, "<h1>Create an account</h1>")
		if strings.Contains(b.get("/sign-up").Body, "Welcome to Errata") {
			t.Error("the open sign-up form calls itself the first account")
		}
		b.post("/sign-up", url.Values{"email": {"owner@example.com"}, "password": {apitest.Password}}).
			expect(t, http.StatusConflict, "An account with this email already exists")
		b.post("/sign-up", url.Values{"email": {"second@example.com"}, "password": {apitest.Password}}).expect(t, http.StatusSeeOther)
	}, func(c *config.Serve) { c.Signup = "open" })
}
