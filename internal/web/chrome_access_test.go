package web_test

// Browser tests of who may change what: a hostile page of another origin,
// and a viewer forcing actions the pages do not offer.

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/store"
)

// TestChromeCrossOriginFormRefused: a page of another origin, opened in the
// browser of a signed-in member, posts a form to resolve a ticket. From
// 127.0.0.1 on another port the request is same-site, so the SameSite=Lax
// session cookie goes along and only the origin check stands in the way;
// from localhost it is cross-site.
func TestChromeCrossOriginFormRefused(t *testing.T) {
	t.Parallel()
	chromePath(t) // skip (or fail in CI) before building anything
	s := apitest.Start(t, store.SQLite)
	w := s.NewWorld(t)
	ticketID := seedTicket(t, s, w.Owner.Token, w.ProjectID, "database timeout", "error")
	hostile := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = rw.Write([]byte(`<!doctype html><title>Win a prize</title>
<form method="post" action="` + s.URL + `/tickets/` + ticketID + `/resolve"><input type="hidden" name="x" value="1"><button id="go" type="submit">Claim</button></form>`))
	}))
	t.Cleanup(hostile.Close)

	c := newChrome(t, s)
	chromeSignIn(c, w.Member.Email)
	for _, origin := range []string{hostile.URL, strings.Replace(hostile.URL, "127.0.0.1", "localhost", 1)} {
		if st := c.open(origin + "/prize"); st != http.StatusOK {
			t.Fatalf("hostile page %s: status %d", origin, st)
		}
		st, loc := c.click("#go")
		if st != http.StatusForbidden || loc != "/tickets/"+ticketID+"/resolve" {
			t.Fatalf("cross-origin post from %s: status %d at %q, want 403", origin, st, loc)
		}
		c.expectText("main", "403", "csrf-origin-rejected")
		c.shot("refused")
		if got := chromeTicketStatus(t, s, w.Viewer.Token, ticketID); got != store.TicketOpen {
			t.Fatalf("ticket status after a cross-origin post from %s = %q, want open", origin, got)
		}
	}
	// Still signed in, and a member may resolve from the dashboard itself:
	// the refusals were the origin check's, not a lack of rights.
	if st := c.open("/tickets/" + ticketID); st != http.StatusOK {
		t.Fatalf("ticket page after the refusals: status %d", st)
	}
	chromeGo(c, `form[action="/tickets/`+ticketID+`/resolve"] button`, http.StatusOK, "/tickets/"+ticketID)
	if got := chromeTicketStatus(t, s, w.Viewer.Token, ticketID); got != store.TicketResolved {
		t.Fatalf("ticket status after the member's own Resolve = %q", got)
	}
	c.expectNoProblems()
}

// TestChromeViewerCannotChange: a viewer's pages offer no action beyond
// leaving the organization (or creating one of their own), and forcing the
// Resolve post anyway, from the dashboard's own origin so the origin check
// passes, is refused by authorization.
func TestChromeViewerCannotChange(t *testing.T) {
	t.Parallel()
	chromePath(t) // skip (or fail in CI) before building anything
	s := apitest.Start(t, store.SQLite)
	w := s.NewWorld(t)
	ticketID := seedTicket(t, s, w.Owner.Token, w.ProjectID, "database timeout", "error")
	channelID := s.Do(apitest.Request{Method: "POST", Path: "/v1/projects/" + w.ProjectID + "/channels", Token: w.Owner.Token,
		Body: map[string]any{"type": "email", "name": "ops mail", "email": "ops@example.com", "member_id": w.Owner.MemberID}}).Expect(t, http.StatusCreated, "").Str(t, "id")
	groupID := s.Do(apitest.Request{Method: "GET", Path: "/v1/tickets/" + ticketID, Token: w.Owner.Token}).Expect(t, http.StatusOK, "").Str(t, "group_id")

	c := newChrome(t, s)
	chromeSignIn(c, w.Viewer.Email)
	allowed := []string{"/orgs", "/members/" + w.Viewer.MemberID + "/remove"} // create an organization; leave this one
	seen := map[string]bool{}
	for _, path := range []string{"/", "/orgs/" + w.OrgID, "/orgs/" + w.OrgID + "/members",
		"/projects/" + w.ProjectID, "/projects/" + w.ProjectID + "/tickets", "/tickets/" + ticketID,
		"/projects/" + w.ProjectID + "/groups", "/groups/" + groupID, "/projects/" + w.ProjectID + "/summaries",
		"/projects/" + w.ProjectID + "/keys", "/projects/" + w.ProjectID + "/channels", "/channels/" + channelID,
		"/projects/" + w.ProjectID + "/notifications"} {
		if st := c.open(path); st != http.StatusOK {
			t.Errorf("viewer on %s: status %d", path, st)
			continue
		}
		for _, action := range c.postActions() {
			seen[action] = true
			if !slices.Contains(allowed, action) {
				t.Errorf("viewer on %s is offered the action %s", path, action)
			}
		}
	}
	if !seen["/orgs"] || !seen[allowed[1]] {
		t.Errorf("the viewer's own actions (create an organization, leave) were not found (%v): the check sees nothing", seen)
	}
	if st := c.open("/tickets/" + ticketID); st != http.StatusOK {
		t.Fatalf("ticket page: status %d", st)
	}
	c.expectText("h1", "database timeout")
	c.shot("viewer-ticket")

	// A script of the page's own origin posts anyway.
	got := eval[map[string]any](c, `fetch("/tickets/`+ticketID+`/resolve", {method: "POST", headers: {"Content-Type": "application/x-www-form-urlencoded"}, body: ""})
  .then(async (r) => ({status: r.status, body: await r.text()}))`)
	if st, _ := got["status"].(float64); st != http.StatusForbidden {
		t.Errorf("viewer's same-origin POST: status %v, want 403", got["status"])
	}
	if body, _ := got["body"].(string); !strings.Contains(body, "forbidden") {
		t.Errorf("viewer's same-origin POST: the page lacks the forbidden code: %s", body)
	}
	// And a form made in the page, submitted as a person would.
	c.run("craft a resolve form", chromedp.Evaluate[chromedp.Void](`(() => {
  const f = document.createElement("form");
  f.method = "post"; f.action = "/tickets/`+ticketID+`/resolve";
  const b = document.createElement("button"); b.id = "forced"; b.type = "submit"; b.textContent = "Resolve anyway";
  f.append(b); document.querySelector("main").append(f);
})()`))
	if st, _ := c.click("#forced"); st != http.StatusForbidden {
		t.Errorf("viewer's crafted form: status %d, want 403", st)
	}
	c.expectText("main", "403", "forbidden")
	c.shot("viewer-forbidden")
	if got := chromeTicketStatus(t, s, w.Viewer.Token, ticketID); got != store.TicketOpen {
		t.Fatalf("ticket status after the viewer's posts = %q, want open", got)
	}
	c.expectNoProblems()
}
