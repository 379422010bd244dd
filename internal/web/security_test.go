package web_test

import (
	"context"
	"net/http"
	"net/url"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
)

func drainAll(t *testing.T, s *apitest.Server) {
	t.Helper()
	if err := s.App.Processor.Drain(context.Background()); err != nil {
		t.Fatalf("drain: %v", err)
	}
}

func TestTicketStatusByRole(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		ticketID := seedTicket(t, s, w.Owner.Token, w.ProjectID, "database timeout", "error")

		viewer := newBrowser(t, s)
		viewer.signIn(w.Viewer.Email)
		viewer.post("/tickets/"+ticketID+"/resolve", url.Values{}).expect(t, http.StatusForbidden, "forbidden")

		member := newBrowser(t, s)
		member.signIn(w.Member.Email)
		member.get("/tickets/"+ticketID).expect(t, http.StatusOK, `action="/tickets/`+ticketID+`/resolve"`)
		p := member.post("/tickets/"+ticketID+"/resolve", url.Values{}).expect(t, http.StatusSeeOther)
		if loc := p.Header.Get("Location"); loc != "/tickets/"+ticketID {
			t.Fatalf("Location = %q", loc)
		}
		member.get("/tickets/"+ticketID).expect(t, http.StatusOK, "resolved", `action="/tickets/`+ticketID+`/reopen"`)
		api := s.Do(apitest.Request{Method: "GET", Path: "/v1/tickets/" + ticketID, Token: w.Viewer.Token}).Expect(t, http.StatusOK, "")
		if got := api.Str(t, "status"); got != "resolved" {
			t.Fatalf("API status after resolving = %q", got)
		}
		member.post("/tickets/"+ticketID+"/reopen", url.Values{}).expect(t, http.StatusSeeOther)
		member.get("/tickets/"+ticketID).expect(t, http.StatusOK, `action="/tickets/`+ticketID+`/resolve"`)
	})
}

func TestCrossOriginPostsRefused(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		ticketID := seedTicket(t, s, w.Owner.Token, w.ProjectID, "database timeout", "error")
		b := newBrowser(t, s)
		b.signIn(w.Member.Email)
		for _, h := range []map[string]string{
			{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"},
			{"Origin": "https://evil.example"},
		} {
			for _, path := range []string{"/tickets/" + ticketID + "/resolve", "/sign-out", "/sign-in"} {
				p := b.do("POST", path, url.Values{"email": {w.Member.Email}, "password": {apitest.Password}}, h)
				p.expect(t, http.StatusForbidden, "csrf-origin-rejected")
				if p.Header.Get("Content-Type") != "text/html; charset=utf-8" {
					t.Errorf("%s: Content-Type = %q", path, p.Header.Get("Content-Type"))
				}
			}
		}
		b.get("/tickets/"+ticketID).expect(t, http.StatusOK, "open") // still signed in, still open
	})
}

func TestSecurityHeaders(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		b := newBrowser(t, s)
		check := func(path string, p *page) {
			t.Helper()
			for k, v := range map[string]string{
				"Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
				"Referrer-Policy":         "same-origin",
				"X-Content-Type-Options":  "nosniff",
			} {
				if got := p.Header.Get(k); got != v {
					t.Errorf("%s: %s = %q, want %q", path, k, got, v)
				}
			}
		}
		check("/sign-in", b.get("/sign-in").expect(t, http.StatusOK))
		check("/nowhere", b.get("/nowhere").expect(t, http.StatusNotFound, "not-found"))
		b.signIn(w.Viewer.Email)
		check("/", b.get("/").expect(t, http.StatusOK))
		check("/projects", b.get("/projects/"+w.ProjectID).expect(t, http.StatusOK))
		css := b.get("/static/style.css").expect(t, http.StatusOK, "prefers-color-scheme: dark")
		if ct := css.Header.Get("Content-Type"); ct != "text/css; charset=utf-8" {
			t.Errorf("style.css Content-Type = %q", ct)
		}
		// The API's unknown routes still answer problems, to browsers too, and
		// so do unknown routes elsewhere for clients that do not ask for HTML.
		b.get("/v1/nowhere").expect(t, http.StatusNotFound)
		if ct := b.get("/v1/nowhere").Header.Get("Content-Type"); ct != "application/problem+json" {
			t.Errorf("/v1/nowhere Content-Type = %q", ct)
		}
		s.Do(apitest.Request{Method: "GET", Path: "/v1/nowhere"}).Expect(t, http.StatusNotFound, "not-found")
		s.Do(apitest.Request{Method: "GET", Path: "/nowhere"}).Expect(t, http.StatusNotFound, "not-found")
	})
}

func TestOtherOrganizationIsNotFound(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		otherTicket := seedTicket(t, s, w.Outsider.Token, w.OtherProjectID, "elsewhere", "error")
		b := newBrowser(t, s)
		b.signIn(w.Owner.Email)
		for _, path := range []string{"/tickets/" + otherTicket, "/projects/" + w.OtherProjectID, "/projects/" + w.OtherProjectID + "/tickets",
			"/tickets/tkt_doesnotexist", "/projects/nonsense"} {
			p := b.get(path).expect(t, http.StatusNotFound, "not-found")
			if p.Header.Get("Content-Type") != "text/html; charset=utf-8" {
				t.Errorf("%s: Content-Type = %q", path, p.Header.Get("Content-Type"))
			}
		}
		b.post("/tickets/"+otherTicket+"/resolve", url.Values{}).expect(t, http.StatusNotFound, "not-found")
	})
}
