package web_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/store"
)

// chromeLinkLimit bounds the pages the link test visits: a loop (a link
// that makes new links forever) fails the test instead of hanging it.
const chromeLinkLimit = 600

// TestChromeEveryLinkLeadsSomewhere (issue 29): signed in as an owner of a
// project with tickets, error groups, an INFO summary, a channel and keys,
// the browser follows every link of every dashboard page it reaches from the
// home page, and every link of the documentation those pages lead to, on
// this server: none answers 404 (or any error), and every link to a place
// on a page (#fragment) finds an element with that id there.
func TestChromeEveryLinkLeadsSomewhere(t *testing.T) {
	t.Parallel()
	chromePath(t)
	s := apitest.Start(t, store.SQLite)
	w := s.NewWorld(t)
	triageSeed(t, s, w.Owner.Token, w.ProjectID)
	s.CreateKey(t, w.Owner.Token, w.ProjectID)
	insightFailingChannel(t, s, w.ProjectID, w.Owner.MemberID, "ops hook")
	ws := time.Now().UTC().Truncate(time.Hour).Add(-3 * time.Hour)
	if _, err := s.App.DB.Write().AddInfo(context.Background(), store.InfoDelta{ProjectID: w.ProjectID, WindowStart: ws, WindowEnd: ws.Add(time.Hour),
		Events: 3, Services: map[string]int64{"api": 3}, Templates: []store.TemplateCount{{Hash: "h", Template: "user <int> signed in", Sample: "user 7 signed in", Count: 3}}},
		id.NewAt(id.InfoSummary, ws), ws); err != nil {
		t.Fatal(err)
	}
	empty := s.CreateProject(t, w.Owner.Token, w.OrgID, "empty") // the getting-started page's links

	c := newChromeFor(t, s, 10*time.Minute)
	chromeSignIn(c, w.Owner.Email)
	own, err := url.Parse(s.URL)
	if err != nil {
		t.Fatal(err)
	}

	type link struct{ from, href string }
	queue := []link{{"(start)", "/"}, {"(start)", "/projects/" + empty}}
	visited := map[string]bool{} // path?query
	ids := map[string][]string{} // path?query → the ids on the page
	var fragments []link         // links with a #fragment, checked at the end
	var broken []string
	for len(queue) > 0 {
		l := queue[0]
		queue = queue[1:]
		u, err := own.Parse(l.href)
		if err != nil {
			broken = append(broken, l.from+" links "+l.href+": "+err.Error())
			continue
		}
		if u.Scheme != own.Scheme || u.Host != own.Host {
			continue // another site
		}
		if u.Fragment != "" {
			fragments = append(fragments, l)
		}
		key := u.RequestURI()
		if visited[key] {
			continue
		}
		if len(visited) >= chromeLinkLimit {
			t.Fatalf("more than %d pages reached from the home page: a link loop? the last, %s from %s", chromeLinkLimit, key, l.from)
		}
		visited[key] = true
		status := c.open(key)
		if status != http.StatusOK {
			broken = append(broken, l.from+" links "+l.href+": "+http.StatusText(int(status)))
			continue
		}
		page := eval[struct {
			HTML  bool
			IDs   []string
			Hrefs []string
		}](c, `({
  html: document.contentType === "text/html",
  ids: [...document.querySelectorAll("[id]")].map((e) => e.id),
  hrefs: [...document.querySelectorAll("a[href]")].map((a) => a.getAttribute("href")),
})`)
		ids[key] = page.IDs
		if !page.HTML {
			continue // /v1/openapi.json and the like: reached is enough
		}
		for _, h := range page.Hrefs {
			ref, err := url.Parse(h)
			if err != nil {
				broken = append(broken, key+" has a bad link "+h)
				continue
			}
			if ref.Scheme == "mailto" {
				continue
			}
			abs := u.ResolveReference(ref)
			queue = append(queue, link{key, abs.String()})
		}
	}
	for _, l := range fragments {
		u, _ := own.Parse(l.href)
		if got, ok := ids[u.RequestURI()]; ok && !slices.Contains(got, u.Fragment) {
			broken = append(broken, l.from+" links "+l.href+": no element with that id")
		}
	}
	for _, b := range broken {
		t.Error(b)
	}
	want := []string{"/", "/projects/" + w.ProjectID, "/projects/" + w.ProjectID + "/keys", "/docs/", "/docs/sentry.md", "/docs/api", "/docs/errors/"}
	for _, p := range want {
		if !visited[p] {
			t.Errorf("no link leads to %s", p)
		}
	}
	var docs, dashboard int
	for p := range visited {
		if strings.HasPrefix(p, "/docs/") {
			docs++
		} else {
			dashboard++
		}
	}
	t.Logf("followed the links of %d dashboard pages and %d documentation pages", dashboard, docs)
	if dashboard < 20 {
		t.Errorf("only %d dashboard pages reached", dashboard)
	}
	c.expectNoProblems()
}

// TestChromeKeyCreatedFitsAt1280 (issue 29): the page that shows a new key,
// its DSN and the snippets to send with them does not scroll sideways in a
// 1280 × 800 window; a long line scrolls inside its own box.
func TestChromeKeyCreatedFitsAt1280(t *testing.T) {
	t.Parallel()
	chromePath(t)
	s := apitest.Start(t, store.SQLite)
	w := s.NewWorld(t)
	c := newChrome(t, s)
	c.run("set a 1280 × 800 window", chromedp.EmulateViewport(1280, 800))
	chromeSignIn(c, w.Owner.Email)
	prj := "/projects/" + w.ProjectID
	if st := c.open(prj + "/keys"); st != http.StatusOK {
		t.Fatalf("keys: status %d", st)
	}
	c.fill("key-name", "checkout production eu-west-1, canary ring, deployed by the payments team")
	chromeGo(c, `form[action="`+prj+`/keys"] button[type="submit"]`, http.StatusCreated, prj+"/keys")
	c.expectText("#api-key", "svc_live_")
	c.waitScript()
	fit := eval[map[string]float64](c, `({
  viewport: document.documentElement.clientWidth,
  pageOverflow: document.documentElement.scrollWidth - document.documentElement.clientWidth,
  // Boxes that scroll (code blocks, wide tables) may hold wider content.
  widest: Math.max(...[...document.querySelectorAll("main *")].filter((e) => !e.parentElement.closest("pre, .scroll"))
    .map((e) => e.getBoundingClientRect().right)),
})`)
	if fit["viewport"] > 1280 || fit["viewport"] < 1200 {
		t.Fatalf("the page is %v px wide, want the 1280 px window", fit["viewport"])
	}
	if fit["pageOverflow"] > 0 || fit["widest"] > fit["viewport"] {
		t.Errorf("the key created page scrolls sideways: %v px too wide, an element ends at %v px", fit["pageOverflow"], fit["widest"])
	}
	c.shot("key-created-1280")
	c.expectNoProblems()
}

// TestChromeListsFitAPhone: the project's lists, whose search box is 40
// characters wide, do not scroll sideways in a 390 × 844 window (the
// dashboard is readable on a phone, docs/dashboard.md).
func TestChromeListsFitAPhone(t *testing.T) {
	t.Parallel()
	chromePath(t)
	s := apitest.Start(t, store.SQLite)
	w := s.NewWorld(t)
	c := newChrome(t, s)
	c.run("set a 390 × 844 window", chromedp.EmulateViewport(390, 844))
	chromeSignIn(c, w.Owner.Email)
	prj := "/projects/" + w.ProjectID
	for _, p := range []string{prj, prj + "/groups", prj + "/tickets"} {
		if st := c.open(p); st != http.StatusOK {
			t.Fatalf("%s: status %d", p, st)
		}
		over := eval[float64](c, `document.documentElement.scrollWidth - document.documentElement.clientWidth`)
		if over > 0 {
			t.Errorf("%s scrolls sideways on a phone: %v px too wide", p, over)
		}
	}
	c.expectNoProblems()
}
