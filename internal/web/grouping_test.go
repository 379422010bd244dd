package web_test

import (
	"html"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/grouping"
)

// TestGroupPageSaysWhyEventsAreGrouped: the group page lists what made the
// fingerprint, used or not.
func TestGroupPageSaysWhyEventsAreGrouped(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		g := groupsSeed(t, s, w)
		b := newBrowser(t, s)
		b.signIn(w.Viewer.Email)
		b.get("/groups/"+g["id"].(string)).expect(t, http.StatusOK, `<h2 id="why-h">Why these events are grouped</h2>`,
			"Grouping version "+strconv.Itoa(grouping.Version), `<td>Frame</td><td class="code">github.com/acme/shop/pay:Charge</td><td>used</td>`,
			`<tr class="muted"><td>Frame</td><td class="code">github.com/lib/pq:(*conn).Exec</td><td>not used</td>`,
			`href="/projects/`+w.ProjectID+`/grouping-rules"`)
	})
}

// TestGroupingRulesPage: viewers read the rules, admins change them, and a
// rule that does not parse is shown at its line.
func TestGroupingRulesPage(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		page := "/projects/" + w.ProjectID + "/grouping-rules"
		viewer := newBrowser(t, s)
		viewer.signIn(w.Viewer.Email)
		v := viewer.get(page).expect(t, http.StatusOK, "<h1>Grouping rules</h1>", `name="fingerprint"`, " readonly", "Admins and owners change the rules.")
		if strings.Contains(v.Body, "Save rules") {
			t.Errorf("a viewer is offered to save rules")
		}
		viewer.post(page, url.Values{"fingerprint": {"error.type:A -> a"}}).expect(t, http.StatusForbidden, "forbidden")

		admin := newBrowser(t, s)
		admin.signIn(w.Admin.Email)
		admin.get(page).expect(t, http.StatusOK, "Save rules")
		// Browsers send a textarea's lines with CRLF.
		bad := admin.post(page, url.Values{"fingerprint": {"error.type:A -> a"}, "stack_trace": {"# vendored\r\nstack.abs_path:**/vendor/** -app\r\nstack.function:f +fly"}}).
			expect(t, http.StatusUnprocessableEntity, "Stack trace rules, line 3: unknown action &#34;&#43;fly&#34;",
				`<mark id="bad-line">  3  stack.function:f &#43;fly</mark>`, `aria-invalid="true"`, html.EscapeString("**/vendor/** -app"))
		if strings.Contains(bad.Body, "Grouping rules saved") {
			t.Errorf("a refused save says saved")
		}
		r := s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.ProjectID + "/grouping-rules", Token: w.Viewer.Token}).Expect(t, http.StatusOK, "").JSON(t)
		if r["fingerprint"] != "" || r["stack_trace"] != "" {
			t.Fatalf("rules after a refused save = %v", r)
		}
		ok := admin.post(page, url.Values{"fingerprint": {"error.type:A -> a"}, "stack_trace": {"# vendored\r\nstack.abs_path:**/vendor/** -app"}}).expect(t, http.StatusSeeOther)
		if loc := ok.Header.Get("Location"); loc != page+"?saved=1" {
			t.Fatalf("Location = %q", loc)
		}
		r = s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.ProjectID + "/grouping-rules", Token: w.Viewer.Token}).Expect(t, http.StatusOK, "").JSON(t)
		if r["fingerprint"] != "error.type:A -> a" || r["stack_trace"] != "# vendored\nstack.abs_path:**/vendor/** -app" {
			t.Fatalf("rules saved = %v", r)
		}
		viewer.get(page).expect(t, http.StatusOK, "error.type:A -&gt; a", "Last changed")
		admin.get(page+"?saved=1").expect(t, http.StatusOK, "Grouping rules saved")
	})
}
