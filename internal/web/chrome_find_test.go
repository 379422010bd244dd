package web_test

// Browser test of finding things (issue 24): the search box of the triage
// list, the query's 422 beside the box, a facet bar's search, the event
// page's breadcrumbs and frames, and the header's lookup box.

import (
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/store"
)

func TestChromeFind(t *testing.T) {
	t.Parallel()
	chromePath(t) // skip (or fail in CI) before building anything
	s := apitest.Start(t, store.SQLite)
	w := s.NewWorld(t)
	ev := func(msg, region string) map[string]any {
		trace := "Traceback (most recent call last):\n  File \"app/pay.py\", line 12, in charge\n    raise ValueError(\"x\")\nValueError: " + msg
		return map[string]any{"level": "error", "message": msg, "stack_trace": trace, "trace_id": findTrace,
			"attributes":  map[string]any{"user.id": "u-" + region, "region": region, "fingerprint": msg},
			"breadcrumbs": []any{map[string]any{"category": "http", "level": "info", "message": "POST /checkout"}}}
	}
	insightIngest(t, s, w.Owner.Token, w.ProjectID, "billing", ev("card declined", "eu"), ev("card declined", "us"), ev("stock low", "us"))
	c := newChrome(t, s)
	chromeSignIn(c, w.Owner.Email)

	// The triage list's search box leads to the groups it finds, the query
	// in the address.
	if st := c.open("/projects/" + w.ProjectID); st != http.StatusOK {
		t.Fatalf("project: status %d", st)
	}
	c.replace("t-query", "region:eu")
	if st, loc := c.follow("search", chromedp.Submit(chromedp.ID("t-query"))); st != http.StatusOK || !strings.Contains(loc, "query=region%3Aeu") {
		t.Fatalf("search: %d at %s, want the groups page with the query in the address", st, loc)
	}
	if got := chromeTitles(c, "groups"); len(got) != 1 || !strings.Contains(got[0], "card declined") {
		t.Errorf("region:eu finds %q, want the card declined group", got)
	}

	// A query that does not parse: the message beside the box, which keeps it.
	c.replace("g-query", "events:>many")
	if st, _ := c.follow("bad search", chromedp.Submit(chromedp.ID("g-query"))); st != http.StatusUnprocessableEntity {
		t.Errorf("bad search: status %d, want 422", st)
	}
	c.expectText("#g-query-error", "events:>many")
	if v := eval[string](c, `document.getElementById("g-query").value`); v != "events:>many" {
		t.Errorf("the box holds %q after the 422, want the query", v)
	}

	// The group page's bars: a value searches the groups for it.
	c.open("/projects/" + w.ProjectID + "/groups?query=card")
	c.click("main table.groups a[href^='/groups/']")
	c.expectText("#facets-h", "What its events carried")
	if n := c.count("table.facet meter"); n == 0 {
		t.Fatal("the group page shows no facet bars")
	}
	if st, loc := c.click(`table.facet a[href*="query=region"]`); st != http.StatusOK || !strings.Contains(loc, "query=region") {
		t.Errorf("a facet value leads to %d %s, want the groups searched by it", st, loc)
	}

	// The event page: breadcrumbs as a timeline, frames with the line.
	c.open("/projects/" + w.ProjectID + "/groups?query=card")
	c.click("main table.groups a[href^='/groups/']")
	c.click(`a[href^="/events/"]`)
	c.expectText("ol.timeline", "POST /checkout", "http")
	c.expectText("ol.frames", "charge", "app/pay.py", "line 12")

	// The header's lookup box finds the trace's groups.
	c.replace("top-lookup", findTrace)
	if st, loc := c.follow("lookup", chromedp.Submit(chromedp.ID("top-lookup"))); st != http.StatusOK || !strings.Contains(loc, "/lookup?q="+findTrace) {
		t.Fatalf("lookup: %d at %s", st, loc)
	}
	c.expectText("main", "card declined", "stock low")
	c.shot("lookup")
	c.expectNoProblems()
}
