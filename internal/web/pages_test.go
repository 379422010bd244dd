package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/store"
)

func TestPagesForAViewer(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		ticketID := seedTicket(t, s, w.Owner.Token, w.ProjectID, "card declined for order", "fatal")
		seedTicket(t, s, w.Owner.Token, w.ProjectID, "database timeout", "error")
		b := newBrowser(t, s)
		b.signIn(w.Viewer.Email)

		b.get("/").expect(t, http.StatusOK, "Acme", `href="/projects/`+w.ProjectID+`"`, "viewer", `action="/sign-out"`)
		b.get("/projects/"+w.ProjectID).expect(t, http.StatusOK, "<strong>1</strong> critical", "<strong>1</strong> high",
			"<strong>0</strong> medium", `href="/tickets/`+ticketID+`"`, `<nav class="crumbs"`, "Acme")
		list := b.get("/projects/"+w.ProjectID+"/tickets").expect(t, http.StatusOK, "card declined", "database timeout", `<label for="f-severity">`)
		if strings.Contains(list.Body, `rel="next"`) {
			t.Errorf("one page of tickets links to another")
		}
		filtered := b.get("/projects/"+w.ProjectID+"/tickets?severity=critical&status=open").expect(t, http.StatusOK, "card declined")
		if strings.Contains(filtered.Body, "database timeout") {
			t.Errorf("severity=critical lists a high ticket")
		}
		b.get("/projects/"+w.ProjectID+"/tickets?severity=urgent").expect(t, http.StatusUnprocessableEntity, "validation-failed")
		// A filter or a search that matches nothing says so, with the way
		// back, rather than telling a project with tickets to send events.
		for _, q := range []string{"service=nope", "query=" + url.QueryEscape("severity:critical reason:regression")} {
			none := b.get("/projects/"+w.ProjectID+"/tickets?"+q).expect(t, http.StatusOK, "No tickets match these filters.", `href="/projects/`+w.ProjectID+`/tickets"`)
			if strings.Contains(none.Body, "Send errors to this project") {
				t.Errorf("tickets?%s with no match tells the viewer to send events", q)
			}
		}

		tp := b.get("/tickets/"+ticketID).expect(t, http.StatusOK, "card declined", "critical", "open", `<th scope="row">Service</th>`,
			"checkout", `<time datetime="`)
		if strings.Contains(tp.Body, "/resolve") {
			t.Errorf("a viewer is offered the resolve button")
		}
	})
}

func TestTicketPaging(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		_, key := s.CreateKey(t, w.Owner.Token, w.ProjectID)
		events := make([]any, 0, 51)
		for i := range 51 {
			events = append(events, map[string]any{"message": "failure", "level": "error", "attributes": map[string]any{"fingerprint": "fp" + string(rune('A'+i/26)) + string(rune('a'+i%26))}})
		}
		s.Do(apitest.Request{Method: "POST", Path: "/v1/ingest", Token: key, Body: map[string]any{"service": "api", "events": events}}).Expect(t, http.StatusAccepted, "")
		drainAll(t, s)
		b := newBrowser(t, s)
		b.signIn(w.Viewer.Email)
		first := b.get("/projects/"+w.ProjectID+"/tickets?status=open").expect(t, http.StatusOK, `rel="next"`)
		if n := strings.Count(first.Body, `href="/tickets/`); n != 50 {
			t.Fatalf("first page has %d tickets, want 50", n)
		}
		i := strings.Index(first.Body, `rel="next" href="`) + len(`rel="next" href="`)
		next := strings.ReplaceAll(first.Body[i:i+strings.IndexByte(first.Body[i:], '"')], "&amp;", "&")
		u, _ := url.Parse(next)
		if u.Query().Get("status") != "open" || u.Query().Get("cursor") == "" || u.Query().Has("before") {
			t.Errorf("next page %q drops the filter or does not page with a cursor", next)
		}
		second := b.get(next).expect(t, http.StatusOK)
		if n := strings.Count(second.Body, `href="/tickets/`); n != 1 || strings.Contains(second.Body, `rel="next"`) {
			t.Fatalf("second page has %d tickets (want 1) or a next link", n)
		}
		// The API's next_cursor for the same list and filter pages here too.
		api := s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.ProjectID + "/tickets?status=open&limit=50", Token: w.Viewer.Token}).
			Expect(t, http.StatusOK, "").JSON(t)
		apiNext := b.get("/projects/"+w.ProjectID+"/tickets?status=open&cursor="+url.QueryEscape(api["next_cursor"].(string))).expect(t, http.StatusOK)
		if n := strings.Count(apiNext.Body, `href="/tickets/`); n != 1 {
			t.Errorf("the API's cursor gives a page of %d tickets, want 1", n)
		}
		// A cursor altered, of another filter or of nothing is the API's 422.
		cursor := u.Query().Get("cursor")
		for _, bad := range []string{"status=open&cursor=" + url.QueryEscape("x"+cursor), "status=resolved&cursor=" + url.QueryEscape(cursor), "cursor=bogus"} {
			b.get("/projects/"+w.ProjectID+"/tickets?"+bad).expect(t, http.StatusUnprocessableEntity, "validation-failed", "cursor")
		}
	})
}

// TestOpenTicketsLinkPlural: the overview's link to the open tickets reads
// "The 1 open ticket", then "All 2 open tickets" (issue 29).
func TestOpenTicketsLinkPlural(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, store.SQLite)
	w := s.NewWorld(t)
	b := newBrowser(t, s)
	b.signIn(w.Viewer.Email)
	seedTicket(t, s, w.Owner.Token, w.ProjectID, "card declined for order", "fatal")
	if p := b.get("/projects/"+w.ProjectID).expect(t, http.StatusOK, ">The 1 open ticket</a>"); strings.Contains(p.Body, "open tickets</a>") {
		t.Error("one open ticket is called tickets")
	}
	seedTicket(t, s, w.Owner.Token, w.ProjectID, "database timeout", "error")
	b.get("/projects/"+w.ProjectID).expect(t, http.StatusOK, ">All 2 open tickets</a>")
}

// TestFavicon: the icon browsers ask for on every page is served, and the
// pages link it.
func TestFavicon(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, store.SQLite)
	b := newBrowser(t, s)
	p := b.get("/favicon.ico").expect(t, http.StatusOK, "<svg")
	if ct := p.Header.Get("Content-Type"); ct != "image/svg+xml" {
		t.Errorf("/favicon.ico Content-Type %q", ct)
	}
	// A fresh server's sign-up offers no sign-in: it would lead back here.
	if p := b.get("/sign-up").expect(t, http.StatusOK, `<link rel="icon" href="/static/icon.svg"`, "Create the first account"); strings.Contains(p.Body, "Already have an account") {
		t.Errorf("the first sign-up offers to sign in")
	}
	b.get("/static/icon.svg").expect(t, http.StatusOK, "<svg")
}
