package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
)

// findTrace is the trace id the finding test's events carry.
const findTrace = "4bf92f3577b34da6a3ce929d0e0e4736"

// TestFindingPages: the triage list counts users, the group page shows its
// values as bars that search for them, the event page shows breadcrumbs as
// a timeline and frames with their source, the header's box looks up a
// trace id, and a query that does not parse is told beside the search box
// (CONTRACT 8, issue 24).
func TestFindingPages(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		trace := "Traceback (most recent call last):\n  File \"app/pay.py\", line 12, in charge\n    raise ValueError(\"x\")\nValueError: card declined"
		ev := func(user, region string) map[string]any {
			return map[string]any{"level": "error", "message": "card declined", "stack_trace": trace, "trace_id": findTrace,
				"attributes":  map[string]any{"user.id": user, "region": region, "sentry.in_app": "y", "spaced key": "v", "customer": map[string]any{"tier": "gold"}},
				"breadcrumbs": []any{map[string]any{"category": "http", "level": "info", "message": "POST /checkout", "data": map[string]any{"k": map[string]any{"nested": []int{1, 2}}}}}}
		}
		insightIngest(t, s, w.Owner.Token, w.ProjectID, "billing", ev("u1", "eu"), ev("u2", "eu"), ev("u3", "us west"))
		b := newBrowser(t, s)
		b.signIn(w.Viewer.Email)

		// Users on the triage list.
		b.get("/projects/"+w.ProjectID).expect(t, http.StatusOK, `<td class="num">3</td><td class="num">3</td>`,
			`action="/projects/`+w.ProjectID+`/groups" role="search"`, `list="query-keys"`, `<option value="user.id:">`,
			`<option value="customer.tier:">`, `<option value="region:">`)
		// The project's own keys are suggested where the language can name
		// them as attributes: not a key with a space, nor a grouping key.
		for _, path := range []string{"/projects/" + w.ProjectID, "/projects/" + w.ProjectID + "/groups", "/projects/" + w.ProjectID + "/tickets",
			"/projects/" + w.ProjectID + "/groups?query=" + url.QueryEscape("events:>many")} {
			p := b.get(path)
			if !strings.Contains(p.Body, `<option value="customer.tier:">`) || strings.Contains(p.Body, `<option value="spaced key:">`) ||
				strings.Contains(p.Body, `<option value="sentry.in_app:">`) {
				t.Errorf("%s: the search box does not suggest the project's own keys as the language names them", path)
			}
		}

		// Facet bars, each value a search.
		groups := b.get("/projects/"+w.ProjectID+"/groups").expect(t, http.StatusOK, "card declined")
		gid := regexp.MustCompile(`href="/groups/(grp_[a-z0-9]+)"`).FindStringSubmatch(groups.Body)[1]
		g := b.get("/groups/"+gid).expect(t, http.StatusOK, "What its events carried", `<caption>region`,
			`<meter min="0" max="1" value="0.6666666666666666"`, `href="/projects/`+w.ProjectID+`/groups?query=region%3A%22us&#43;west%22"`)
		// A key the query language cannot name is shown without links.
		if !strings.Contains(g.Body, "<caption>spaced key") || strings.Contains(g.Body, "query=spaced") {
			t.Errorf("the facet of a key with a space: want it shown, without a search link that would 422")
		}
		event := regexp.MustCompile(`href="/events/(evt_\d+)"`).FindStringSubmatch(g.Body)[1]

		// The event page.
		// Grouping's copy of the in-app flags is not an attribute to read.
		// Breadcrumb data that is not a string reads as JSON.
		if p := b.get("/events/"+event).expect(t, http.StatusOK, "Breadcrumbs", `<ol class="timeline">`, "POST /checkout", `<span class="badge">http</span>`,
			`<dd>{&#34;nested&#34;:[1,2]}</dd>`,
			"Frames", "<code>charge</code> in <code>app/pay.py</code>, line 12", findTrace, `href="/groups/`+gid+`"`, "region"); strings.Contains(p.Body, "sentry.in_app") {
			t.Errorf("the event page lists sentry.in_app among the attributes")
		}
		b.get("/events/999999").expect(t, http.StatusNotFound, "")

		// The header's lookup box.
		b.get("/projects/"+w.ProjectID).expect(t, http.StatusOK, `action="/orgs/`+w.OrgID+`/lookup"`)
		b.get("/orgs/"+w.OrgID+"/lookup?q="+findTrace).expect(t, http.StatusOK, `href="/groups/`+gid+`"`, `href="/events/`)
		b.get("/orgs/"+w.OrgID+"/lookup?q=nothing-like-it").expect(t, http.StatusOK, "No error event of this organization carried")
		b.get("/orgs/"+w.OtherOrgID+"/lookup?q="+findTrace).expect(t, http.StatusNotFound, "")

		// The tickets page has its box too, which keeps the query.
		b.get("/projects/"+w.ProjectID+"/tickets?query="+url.QueryEscape("region:eu")).expect(t, http.StatusOK, `id="tk-query"`, `value="region:eu"`, "card declined",
			`list="ticket-query-keys"`, `<option value="severity:critical">`, `<option value="reason:regression">`)

		// A query that does not parse: the box keeps it, the message beside it.
		g422 := b.get("/projects/"+w.ProjectID+"/groups?query="+url.QueryEscape("events:>many")).
			expect(t, http.StatusUnprocessableEntity, `id="g-query-error"`, `aria-invalid="true"`, `value="events:&gt;many"`, "query: term")
		if strings.Contains(g422.Body, "No error groups yet") {
			t.Error("a query that does not parse says the project has no groups")
		}
		b.get("/projects/"+w.ProjectID+"/tickets?query="+url.QueryEscape("events:>many")).
			expect(t, http.StatusUnprocessableEntity, `id="tk-query-error"`, `aria-invalid="true"`, `value="events:&gt;many"`, "query: term", `id="f-severity"`)

		// A refused form's error page leads back to the page it came from.
		back := b.do("POST", "/projects/"+w.ProjectID+"/groups/bulk", url.Values{"action": {"resolve"}},
			map[string]string{"Origin": s.URL, "Sec-Fetch-Site": "same-origin", "Referer": s.URL + "/projects/" + w.ProjectID + "?sort=last_seen"})
		if !strings.Contains(back.Body, `<a href="/projects/`+w.ProjectID+`?sort=last_seen">Back to the page you came from</a>`) {
			t.Errorf("refused form (%d) without the way back: %s", back.Status, back.Body)
		}
	})
}
