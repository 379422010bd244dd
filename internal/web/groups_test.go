package web_test

import (
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
)

// groupsPanic is a Go panic with two application frames around two library
// frames (the module cache and the standard library).
const groupsPanic = "panic: card declined [recovered]\n\ngoroutine 1 [running]:\n" +
	"github.com/acme/shop/pay.Charge(0xc000012345)\n\t/app/pay/charge.go:12 +0x1d\n" +
	"github.com/lib/pq.(*conn).Exec(0xc0000)\n\t/root/go/pkg/mod/github.com/lib/pq@v1.10.9/conn.go:80 +0x2a\n" +
	"net/http.(*conn).serve(0xc0001)\n\t/usr/local/go/src/net/http/server.go:2039 +0x3b\n" +
	"main.main()\n\t/app/main.go:9 +0x25\n"

// groupsIngest sends one batch to projectID with a new key of owner's and
// processes it.
func groupsIngest(t *testing.T, s *apitest.Server, ownerToken, projectID string, batch map[string]any) {
	t.Helper()
	_, key := s.CreateKey(t, ownerToken, projectID)
	s.Do(apitest.Request{Method: "POST", Path: "/v1/ingest", Token: key, Body: batch}).Expect(t, http.StatusAccepted, "")
	drainAll(t, s)
}

// groupsSeed ingests the panic (service checkout) and a warning (service
// billing) and returns the API's view of the panic's group.
func groupsSeed(t *testing.T, s *apitest.Server, w apitest.World) map[string]any {
	t.Helper()
	groupsIngest(t, s, w.Owner.Token, w.ProjectID, map[string]any{"service": "checkout", "environment": "prod", "release": "v1.2.3",
		"events": []any{map[string]any{"message": "card declined for order 42", "level": "fatal", "stack_trace": groupsPanic,
			"trace_id": "4bf92f3577b34da6a3ce929d0e0e4736", "attributes": map[string]any{"order_id": "42", "amount": 12.5}}}})
	groupsIngest(t, s, w.Owner.Token, w.ProjectID, map[string]any{"service": "billing",
		"events": []any{map[string]any{"message": "slow query on invoices", "level": "warn"}}})
	for _, g := range groupsAPI(t, s, w.Owner.Token, w.ProjectID, "service=checkout") {
		return g
	}
	t.Fatal("no checkout group")
	return nil
}

// groupsAPI lists a project's groups through the API.
func groupsAPI(t *testing.T, s *apitest.Server, token, projectID, query string) []map[string]any {
	t.Helper()
	r := s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + projectID + "/groups?" + query, Token: token}).Expect(t, http.StatusOK, "")
	var out []map[string]any
	for _, g := range r.JSON(t)["data"].([]any) {
		out = append(out, g.(map[string]any))
	}
	return out
}

// groupsAPIStatus is a group's status as GET /v1/groups/{group_id} tells.
func groupsAPIStatus(t *testing.T, s *apitest.Server, token, groupID string) string {
	t.Helper()
	return s.Do(apitest.Request{Method: "GET", Path: "/v1/groups/" + groupID, Token: token}).Expect(t, http.StatusOK, "").Str(t, "status")
}

func TestGroupPagesForAViewer(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		g := groupsSeed(t, s, w)
		groupID := g["id"].(string)
		b := newBrowser(t, s)
		b.signIn(w.Viewer.Email)

		list := "/projects/" + w.ProjectID + "/groups"
		all := b.get(list+"?status=unresolved").expect(t, http.StatusOK, `href="/groups/`+groupID+`"`, "slow query on invoices",
			`<label for="g-status">`, `<option value="unresolved" selected>`, "checkout", "billing", `aria-current="page">Error groups`)
		if strings.Contains(all.Body, `rel="next"`) {
			t.Errorf("one page of groups links to another")
		}
		billing := b.get(list+"?service=billing").expect(t, http.StatusOK, "slow query on invoices")
		if strings.Contains(billing.Body, groupID) {
			t.Errorf("service=billing lists the checkout group")
		}
		b.get(list+"?status=ignored").expect(t, http.StatusOK, "No error groups match these filters.")
		b.get(list+"?status=asleep").expect(t, http.StatusUnprocessableEntity, "validation-failed")

		page := b.get("/groups/"+groupID).expect(t, http.StatusOK, html.EscapeString(g["title"].(string)), "card declined for order 42", "checkout",
			g["fingerprint"].(string), "v1.2.3", "4bf92f3577b34da6a3ce929d0e0e4736", `<th scope="row">order_id</th><td>42</td>`,
			`<th scope="row">amount</th><td>12.5</td>`, "<h2>Sample events</h2>", "first event",
			`<pre class="frame-app">github.com/acme/shop/pay.Charge(0xc000012345)`+"\n\t/app/pay/charge.go:12 &#43;0x1d</pre>",
			`<pre class="frame-app">main.main()`,
			`<details class="frames-lib"><summary>2 library frames</summary><pre>github.com/lib/pq.(*conn).Exec(0xc0000)`,
			"/usr/local/go/src/net/http/server.go:2039 &#43;0x3b</pre></details>", "2 application frames, 2 library frames folded")
		if strings.Contains(page.Body, `action="/groups/`) {
			t.Errorf("a viewer is offered the status buttons")
		}
		b.post("/groups/"+groupID+"/status", url.Values{"status": {"resolved"}}).expect(t, http.StatusForbidden, "forbidden")
		if got := groupsAPIStatus(t, s, w.Owner.Token, groupID); got != "unresolved" {
			t.Fatalf("after a viewer's post the group is %q", got)
		}
	})
}

func TestGroupStatusByAMember(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		g := groupsSeed(t, s, w)
		groupID, ticketID := g["id"].(string), g["ticket_id"].(string)
		b := newBrowser(t, s)
		b.signIn(w.Member.Email)
		page := b.get("/groups/"+groupID).expect(t, http.StatusOK, `action="/groups/`+groupID+`/status"`,
			`value="resolved"><button type="submit">Resolve</button>`, `value="ignored"><button type="submit">Ignore</button>`)
		if strings.Contains(page.Body, "Unresolve") {
			t.Errorf("an unresolved group offers Unresolve")
		}
		for _, status := range []string{"resolved", "ignored", "unresolved"} {
			p := b.post("/groups/"+groupID+"/status", url.Values{"status": {status}}).expect(t, http.StatusSeeOther)
			if loc := p.Header.Get("Location"); loc != "/groups/"+groupID {
				t.Fatalf("Location = %q", loc)
			}
			if got := groupsAPIStatus(t, s, w.Viewer.Token, groupID); got != status {
				t.Fatalf("API status after %s = %q", status, got)
			}
			b.get("/groups/"+groupID).expect(t, http.StatusOK, `<span class="badge status-`+status+`">`+status+`</span>`)
			if status == "resolved" {
				tk := s.Do(apitest.Request{Method: "GET", Path: "/v1/tickets/" + ticketID, Token: w.Viewer.Token}).Expect(t, http.StatusOK, "")
				if got := tk.Str(t, "status"); got != "resolved" {
					t.Errorf("resolving the group left its ticket %q", got)
				}
			}
		}
		b.post("/groups/"+groupID+"/status", url.Values{"status": {"deleted"}}).expect(t, http.StatusUnprocessableEntity, "validation-failed")
		b.post("/groups/"+groupID+"/status", url.Values{}).expect(t, http.StatusUnprocessableEntity, "validation-failed")
		if got := groupsAPIStatus(t, s, w.Viewer.Token, groupID); got != "unresolved" {
			t.Fatalf("a refused post changed the group to %q", got)
		}
	})
}

func TestTicketPageShowsSampleEvents(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		g := groupsSeed(t, s, w)
		b := newBrowser(t, s)
		b.signIn(w.Viewer.Email)
		b.get("/tickets/"+g["ticket_id"].(string)).expect(t, http.StatusOK, `href="/groups/`+g["id"].(string)+`"`,
			"<h2>Sample events</h2>", "card declined for order 42", `<pre class="frame-app">github.com/acme/shop/pay.Charge`,
			`<summary>2 library frames</summary>`, `<th scope="row">Release</th><td>v1.2.3</td>`)
	})
}

func TestGroupOfAnotherOrganizationIsNotFound(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		groupsIngest(t, s, w.Outsider.Token, w.OtherProjectID, map[string]any{"service": "x",
			"events": []any{map[string]any{"message": "elsewhere", "level": "error"}}})
		other := groupsAPI(t, s, w.Outsider.Token, w.OtherProjectID, "")[0]["id"].(string)
		b := newBrowser(t, s)
		b.signIn(w.Owner.Email)
		for _, path := range []string{"/groups/" + other, "/projects/" + w.OtherProjectID + "/groups", "/groups/grp_doesnotexist"} {
			b.get(path).expect(t, http.StatusNotFound, "not-found")
		}
		b.post("/groups/"+other+"/status", url.Values{"status": {"ignored"}}).expect(t, http.StatusNotFound, "not-found")
		if got := groupsAPIStatus(t, s, w.Outsider.Token, other); got != "unresolved" {
			t.Fatalf("another organization's group is now %q", got)
		}
	})
}

func TestGroupPaging(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		events := make([]any, 0, 51)
		for i := range 51 {
			events = append(events, map[string]any{"message": "failure", "level": "error",
				"attributes": map[string]any{"fingerprint": "fp" + string(rune('A'+i/26)) + string(rune('a'+i%26))}})
		}
		groupsIngest(t, s, w.Owner.Token, w.ProjectID, map[string]any{"service": "api", "events": events})
		b := newBrowser(t, s)
		b.signIn(w.Viewer.Email)
		list := "/projects/" + w.ProjectID + "/groups"
		first := b.get(list+"?status=unresolved").expect(t, http.StatusOK, `rel="next"`)
		if n := strings.Count(first.Body, `href="/groups/`); n != 50 {
			t.Fatalf("first page has %d groups, want 50", n)
		}
		next := groupsNextLink(t, first)
		u, _ := url.Parse(next)
		if u.Query().Get("status") != "unresolved" || u.Query().Get("cursor") == "" {
			t.Fatalf("next page %q drops the filter or has no cursor", next)
		}
		second := b.get(next).expect(t, http.StatusOK)
		if n := strings.Count(second.Body, `href="/groups/`); n != 1 || strings.Contains(second.Body, `rel="next"`) {
			t.Fatalf("second page has %d groups (want 1) or a next link", n)
		}
		// The dashboard's cursors are the API's: the same list and filter
		// accept them, anything else refuses them as the API does.
		cursor := u.Query().Get("cursor")
		api := s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.ProjectID + "/groups?status=unresolved&cursor=" + url.QueryEscape(cursor),
			Token: w.Viewer.Token}).Expect(t, http.StatusOK, "")
		if n := len(api.JSON(t)["data"].([]any)); n != 1 {
			t.Errorf("the API's second page from the dashboard's cursor has %d groups", n)
		}
		for _, bad := range []string{list + "?status=unresolved&cursor=" + url.QueryEscape(groupsTamper(cursor)),
			list + "?status=resolved&cursor=" + url.QueryEscape(cursor), list + "?cursor=bogus",
			"/projects/" + w.ProjectID + "/tickets?cursor=" + url.QueryEscape(cursor)} {
			b.get(bad).expect(t, http.StatusUnprocessableEntity, "validation-failed", "cursor")
		}
	})
}

// groupsNextLink is the address of a page's rel="next" link.
func groupsNextLink(t *testing.T, p *page) string {
	t.Helper()
	i := strings.Index(p.Body, `rel="next" href="`)
	if i < 0 {
		t.Fatalf("no next link in %s", p.Body)
	}
	i += len(`rel="next" href="`)
	return strings.ReplaceAll(p.Body[i:i+strings.IndexByte(p.Body[i:], '"')], "&amp;", "&")
}

// groupsTamper changes the first character of a cursor's id part.
func groupsTamper(c string) string {
	b := []byte(c)
	if b[0] == 'Z' {
		b[0] = 'Y'
	} else {
		b[0] = 'Z'
	}
	return string(b)
}
