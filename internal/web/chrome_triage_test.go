package web_test

// Browser test of triage: the lists sorted by clicking their headers, their
// counts and last-seen times, the ticket's readable facts, a chart with a
// seven-digit maximum, the home page's project figures, and the API keys
// page at 1280 px.

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/store"
)

// chromeTitles are the titles of a ticket or group list, top to bottom.
func chromeTitles(c *chromeTab, table string) []string {
	c.t.Helper()
	return eval[[]string](c, `[...document.querySelectorAll("main table.`+table+` tbody tr")].map((r) => r.querySelector("a[href^='/tickets/'], a[href^='/groups/']").textContent)`)
}

// chromeSorted is the text of the header the list says it is sorted by.
func chromeSorted(c *chromeTab, table string) string {
	c.t.Helper()
	return strings.TrimSpace(eval[string](c, `(document.querySelector("main table.`+table+` th[aria-sort=descending] a") || {}).textContent || ""`))
}

func TestChromeTriage(t *testing.T) {
	t.Parallel()
	chromePath(t) // skip (or fail in CI) before building anything
	s := apitest.Start(t, store.SQLite)
	w := s.NewWorld(t)
	triageSeed(t, s, w.Owner.Token, w.ProjectID)
	triageBigCount(t, s, w.ProjectID, "order <int>-<int>-<int> failed", 1234567)
	order := strings.ReplaceAll(strings.ReplaceAll(triageOrder, "&lt;", "<"), "&gt;", ">")
	c := newChrome(t, s)
	chromeSignIn(c, w.Owner.Email)

	// Home: the project's open tickets by severity and its last event.
	c.expectText("main table.projects", "web", "Critical", "High", "Medium", "Last event")
	if got := eval[[]string](c, `[...document.querySelectorAll("main table.projects tbody tr:first-child td.num")].map((td) => td.textContent)`); !slices.Equal(got, []string{"1", "2", "0"}) {
		t.Errorf("home shows %q open tickets by severity, want 1 critical, 2 high, 0 medium", got)
	}
	c.waitScript()
	if c.count(`main table.projects time[data-local]`) != 1 {
		t.Error("home shows no local last-event time")
	}
	c.shot("home")

	// Tickets: newest first; clicking a header sorts by it and says so.
	prj := "/projects/" + w.ProjectID
	if st := c.open(prj + "/tickets"); st != http.StatusOK {
		t.Fatalf("tickets: status %d", st)
	}
	for _, step := range []struct {
		click, sorted string
		want          []string
	}{
		{"", "Opened", []string{triageSample, "database timeout", "cache miss storm"}},
		{"Last seen", "Last seen", []string{"database timeout", "cache miss storm", triageSample}},
		{"Events", "Events", []string{triageSample, "cache miss storm", "database timeout"}},
	} {
		if step.click != "" {
			loc := chromeGo(c, fmt.Sprintf(`main table.tickets thead a[href$="sort=%s"]`, map[string]string{"Last seen": "last_seen", "Events": "event_count"}[step.click]),
				http.StatusOK, prj+"/tickets?sort=")
			c.shot("tickets-by-" + step.click)
			if !strings.Contains(loc, "sort=") {
				t.Errorf("sorting by %s leads to %s", step.click, loc)
			}
		}
		if got := chromeTitles(c, "tickets"); !slices.Equal(got, step.want) {
			t.Errorf("tickets sorted by %s: %q, want %q", step.sorted, got, step.want)
		}
		if got := chromeSorted(c, "tickets"); got != step.sorted {
			t.Errorf("the sorted header reads %q, want %q", got, step.sorted)
		}
	}
	c.expectText("main table.tickets tbody tr:first-child", "1,234,567", triageSample)
	// The templated title reads as its latest message, the template on hover.
	if hover := eval[string](c, `document.querySelector("main table.tickets tbody tr:first-child td.title a").title`); hover != order {
		t.Errorf("the templated title's hover text is %q, want %q", hover, order)
	}
	if c.count(`main table.tickets tbody time`) != 6 {
		t.Errorf("%d times in the ticket list, want last seen and opened for 3 rows", c.count(`main table.tickets tbody time`))
	}
	// Filtering keeps the sort (the form's "Sort by" carries it).
	c.fill("f-service", "checkout")
	loc := chromeGo(c, `form.filters button[type="submit"]`, http.StatusOK, prj+"/tickets?")
	if !strings.Contains(loc, "sort=event_count") || !strings.Contains(loc, "service=checkout") {
		t.Errorf("after filtering: %s, want the sort and the filter", loc)
	}
	if got := chromeSorted(c, "tickets"); got != "Events" {
		t.Errorf("after filtering the list is sorted by %q", got)
	}

	// The ticket's facts read as words, with local times and separators.
	chromeGo(c, `main table.tickets tbody tr:first-child a[href^="/tickets/"]`, http.StatusOK, "/tickets/tkt_")
	c.expectText("main h1", triageSample)
	c.expectText("main p.template code", order)
	labels := eval[[]string](c, `[...document.querySelector("main table.facts").querySelectorAll("th")].map((th) => th.textContent)`)
	for _, want := range []string{"First seen", "Last seen", "Event count", "Sample message", "Error group"} {
		if !slices.Contains(labels, want) {
			t.Errorf("the facts' labels %q lack %q", labels, want)
		}
	}
	c.waitScript()
	facts := c.text("main table.facts")
	if !strings.Contains(facts, "1,234,567") || strings.Contains(facts, "first_seen") || strings.Contains(facts, ".000Z") {
		t.Errorf("the facts read %q: want separators, no raw keys or ISO times", facts)
	}
	if n := eval[int](c, `document.querySelector("main table.facts").querySelectorAll('time[data-local="`+chromeZone+`"]').length`); n != 2 {
		t.Errorf("%d local times in the facts, want first and last seen", n)
	}
	c.shot("ticket-facts")

	// Groups, sorted by events.
	if st := c.open(prj + "/groups"); st != http.StatusOK {
		t.Fatalf("groups: status %d", st)
	}
	chromeGo(c, `main table.groups thead a[href$="sort=event_count"]`, http.StatusOK, prj+"/groups?sort=event_count")
	if got := chromeTitles(c, "groups"); !slices.Equal(got, []string{triageSample, "cache miss storm", "database timeout"}) {
		t.Errorf("groups by events: %q", got)
	}
	c.shot("groups-by-events")

	// The chart's "max 1,234,57x" label is drawn inside the picture.
	if st := c.open(prj); st != http.StatusOK {
		t.Fatalf("overview: status %d", st)
	}
	labelsIn := eval[[]string](c, `[...document.querySelectorAll("svg.chart text.chart-max")].map((el) => {
  const svg = el.ownerSVGElement.getBoundingClientRect(), r = el.getBoundingClientRect();
  return el.textContent + (r.left >= svg.left && r.right <= svg.right ? " inside" : " cut at " + (r.left - svg.left));
})`)
	if len(labelsIn) != 4 {
		t.Fatalf("%d max labels on the overview, want 4", len(labelsIn))
	}
	for _, l := range labelsIn {
		if !strings.HasSuffix(l, " inside") {
			t.Errorf("chart label %q", l)
		}
	}
	if !strings.HasPrefix(labelsIn[0], "max 1,234,5") {
		t.Errorf("the 24-hour chart's error maximum reads %q", labelsIn[0])
	}
	c.shot("overview-big-counts")
	c.expectOnlyOwnOrigin()
	c.expectNoProblems()
}

// TestChromeKeysFitAt1280: on a 1280 × 800 window the API keys page shows
// every column, the Status and the Revoke button included, without a
// horizontal scroll, even with long names and every time filled in, each
// time on one line.
func TestChromeKeysFitAt1280(t *testing.T) {
	t.Parallel()
	chromePath(t)
	s := apitest.Start(t, store.SQLite)
	w := s.NewWorld(t)
	for _, name := range []string{"checkout production eu-west-1, canary ring, deployed by the payments team", "ci", "old laptop"} {
		r := s.Do(apitest.Request{Method: "POST", Path: "/v1/projects/" + w.ProjectID + "/keys", Token: w.Owner.Token, Body: map[string]any{"name": name}}).
			Expect(t, http.StatusCreated, "")
		s.Do(apitest.Request{Method: "POST", Path: "/v1/ingest", Token: r.Str(t, "key"), Body: map[string]any{"service": "api",
			"events": []any{map[string]any{"message": "started", "level": "info"}}}}).Expect(t, http.StatusAccepted, "")
		if name == "old laptop" {
			s.Do(apitest.Request{Method: "DELETE", Path: "/v1/keys/" + r.Str(t, "id"), Token: w.Owner.Token}).Expect(t, http.StatusNoContent, "")
		}
	}
	c := newChrome(t, s)
	c.run("set a 1280 × 800 window", chromedp.EmulateViewport(1280, 800))
	chromeSignIn(c, w.Owner.Email)
	if st := c.open("/projects/" + w.ProjectID + "/keys"); st != http.StatusOK {
		t.Fatalf("keys: status %d", st)
	}
	c.waitScript() // the times are made local (and longer) first
	fit := eval[map[string]float64](c, `(() => {
  const table = document.querySelector("main table.keys"), box = table.parentElement;
  const buttons = [...table.querySelectorAll("form[action$='/revoke'] button")].map((b) => b.getBoundingClientRect());
  const status = [...table.querySelectorAll("tr > :nth-child(6)")].map((c) => c.getBoundingClientRect());
  return {
    viewport: document.documentElement.clientWidth,
    overflow: box.scrollWidth - box.clientWidth,
    pageOverflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
    buttons: buttons.length,
    buttonRight: Math.max(...buttons.map((r) => r.right)),
    statusRight: Math.max(...status.map((r) => r.right)),
  };
})()`)
	if fit["viewport"] > 1280 || fit["viewport"] < 1200 {
		t.Fatalf("the page is %v px wide, want the 1280 px window", fit["viewport"])
	}
	if fit["buttons"] != 2 {
		t.Errorf("%v Revoke buttons, want 2 (one key is revoked)", fit["buttons"])
	}
	if fit["overflow"] > 0 || fit["pageOverflow"] > 0 {
		t.Errorf("the keys table overflows its box by %v px (the page by %v px)", fit["overflow"], fit["pageOverflow"])
	}
	if fit["buttonRight"] > fit["viewport"] || fit["statusRight"] > fit["viewport"] {
		t.Errorf("Revoke ends at %v px and Status at %v px, past the %v px window", fit["buttonRight"], fit["statusRight"], fit["viewport"])
	}
	// Times stay on one line (issue 29): a wrapped time breaks every row.
	if wrapped := eval[[]string](c, `[...document.querySelectorAll("main td time")].filter((e) => {
  const r = document.createRange();
  r.selectNodeContents(e);
  return new Set([...r.getClientRects()].map((q) => Math.round(q.top))).size !== 1;
}).map((e) => e.textContent)`); len(wrapped) > 0 {
		t.Errorf("times in the keys table on more than one line: %q", wrapped)
	}
	c.expectText("main table.keys", "Status", "revoked", "active")
	c.shot("keys-1280")
	c.expectNoProblems()
}
