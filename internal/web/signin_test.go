package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/config"
)

func TestSignInFlow(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		b := newBrowser(t, s)

		// Signed out: pages send to the form, which remembers where to return.
		p := b.get("/projects/"+w.ProjectID+"/tickets?status=open").expect(t, http.StatusSeeOther)
		next := "/projects/" + w.ProjectID + "/tickets?status=open"
		if loc := p.Header.Get("Location"); loc != "/sign-in?next="+url.QueryEscape(next) {
			t.Fatalf("Location = %q, want the sign-in form with next", loc)
		}
		if loc := b.get("/").expect(t, http.StatusSeeOther).Header.Get("Location"); loc != "/sign-in" {
			t.Fatalf("Location of / = %q, want /sign-in", loc)
		}
		b.get("/sign-in?next="+url.QueryEscape(next)).expect(t, http.StatusOK, `<label for="email">`, `<label for="password">`,
			`name="next" value="`+strings.ReplaceAll(next, "&", "&amp;")+`"`)

		// Bad credentials: the form again, 401, the address kept.
		b.post("/sign-in", url.Values{"email": {w.Viewer.Email}, "password": {"wrong password"}, "next": {next}}).
			expect(t, http.StatusUnauthorized, "The email address or the password is wrong.", `value="`+w.Viewer.Email+`"`)

		// A look-alike address: the form again, 422, saying why.
		b.post("/sign-in", url.Values{"email": {"vi\u200bewer@example.com"}, "password": {apitest.Password}, "next": {next}}).
			expect(t, http.StatusUnprocessableEntity, `role="alert"`, "invisible character")

		// Good credentials: the cookie as the API sets it, then back to next.
		p = b.post("/sign-in", url.Values{"email": {w.Viewer.Email}, "password": {apitest.Password}, "next": {next}}).expect(t, http.StatusSeeOther)
		if loc := p.Header.Get("Location"); loc != next {
			t.Fatalf("Location after sign-in = %q, want %q", loc, next)
		}
		c := sessionCookie(t, p)
		if !c.HttpOnly || c.SameSite != http.SameSiteLaxMode || c.Path != "/" || c.Secure {
			t.Fatalf("cookie = %+v, want HttpOnly, SameSite=Lax, Path=/, not Secure over http", c)
		}
		b.get(next).expect(t, http.StatusOK, "Tickets", "User "+w.Viewer.Email)
		// The same session works on the API.
		s.Do(apitest.Request{Method: "GET", Path: "/v1/auth/session", Cookies: []*http.Cookie{c}}).Expect(t, http.StatusOK, "")
		// Signed in, the form sends straight on.
		if loc := b.get("/sign-in?next=/").expect(t, http.StatusSeeOther).Header.Get("Location"); loc != "/" {
			t.Fatalf("Location of sign-in when signed in = %q", loc)
		}

		// Sign out ends the session and clears the cookie.
		p = b.post("/sign-out", url.Values{}).expect(t, http.StatusSeeOther)
		if loc := p.Header.Get("Location"); loc != "/sign-in" {
			t.Fatalf("Location after sign-out = %q", loc)
		}
		b.get("/").expect(t, http.StatusSeeOther)
		s.Do(apitest.Request{Method: "GET", Path: "/v1/auth/session", Cookies: []*http.Cookie{c}}).Expect(t, http.StatusUnauthorized, "unauthorized")
	})
}

func TestSignInIgnoresForeignNext(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		s.SignUp(t, "owner@example.com")
		for _, next := range []string{"https://evil.example/", "//evil.example/x", `/\evil.example`, "javascript:alert(1)", "evil"} {
			b := newBrowser(t, s)
			p := b.post("/sign-in", url.Values{"email": {"owner@example.com"}, "password": {apitest.Password}, "next": {next}}).expect(t, http.StatusSeeOther)
			if loc := p.Header.Get("Location"); loc != "/" {
				t.Errorf("next %q: Location = %q, want /", next, loc)
			}
		}
	})
}

func sessionCookie(t *testing.T, p *page) *http.Cookie {
	t.Helper()
	for _, c := range (&http.Response{Header: p.Header}).Cookies() {
		if c.Name == "errata_session" {
			return c
		}
	}
	t.Fatalf("no errata_session cookie set; headers: %v", p.Header)
	return nil
}

// TestSessionCookieSecureBehindHTTPS: served behind https (the app URL says
// so), the dashboard's sign-in sets the cookie Secure, as the API does.
func TestSessionCookieSecureBehindHTTPS(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		b := newBrowser(t, s)
		p := b.post("/sign-in", url.Values{"email": {w.Viewer.Email}, "password": {apitest.Password}, "next": {"/"}}).expect(t, http.StatusSeeOther)
		if c := sessionCookie(t, p); !c.Secure || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode {
			t.Fatalf("cookie = %+v, want Secure, HttpOnly, SameSite=Lax behind https", c)
		}
	}, func(c *config.Serve) { c.AppURL = "https://errata.example.com" })
}
