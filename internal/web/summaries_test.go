package web_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/notify/digest"
	"github.com/errata-dev/errata/internal/store"
)

// insightPath is the path and query of a dashboard URL on s.
func insightPath(s *apitest.Server, u string) string { return strings.TrimPrefix(u, s.URL) }

func TestSummariesFromADigestLink(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		insightIngest(t, s, w.Owner.Token, w.ProjectID, "checkout",
			insightEvent("info", "order 1 shipped"), insightEvent("info", "order 2 shipped"), insightEvent("debug", "cache hit"))
		insightIngest(t, s, w.Owner.Token, w.ProjectID, "billing", insightEvent("info", "invoice 7 sent"), insightEvent("error", "card declined"))
		hour := time.Now().UTC().Truncate(time.Hour) // the window the events landed in
		b := newBrowser(t, s)
		b.signIn(w.Viewer.Email)

		// The link a digest whose period holds the window's end carries.
		link := insightPath(s, digest.SummariesURL(s.URL, w.ProjectID, hour.Add(-2*time.Hour), hour.Add(time.Hour)))
		page := b.get(link).expect(t, http.StatusOK, "<h1>INFO summaries</h1>",
			`<strong>1</strong> window,`, `<strong>3</strong> info events`, "had 3 info and 1 debug event.",
			`<span class="service">checkout</span> 3`, `<span class="service">billing</span> 1`,
			"order &lt;int&gt; shipped", `<td class="num">2</td>`, "invoice &lt;int&gt; sent",
			`<svg class="chart"`, ">1 error or warning</span>", ">3 INFO events</span>", `<label for="s-from">`,
			`value="`+hour.Add(-2*time.Hour).Format("2006-01-02T15:04:05")+`"`, `aria-current="page">INFO summaries`)
		if n := strings.Count(insightFigure(t, page.Body, "chart-range"), `<tr><th scope="row">`); n != 3 {
			t.Errorf("the chart of a 3-hour range has %d rows", n)
		}
		i := strings.Index(page.Body, `href="/summaries/`) + len(`href="/summaries/`)
		summaryID := page.Body[i : i+strings.IndexByte(page.Body[i:], '"')]

		// The default range (the last 24 hours, to the end of this hour)
		// shows the window still open.
		b.get("/projects/"+w.ProjectID+"/summaries").expect(t, http.StatusOK, `<strong>3</strong> info events and 1 debug event `, "order &lt;int&gt; shipped")
		// A period that ended when the window opened reports nothing.
		before := insightPath(s, digest.SummariesURL(s.URL, w.ProjectID, hour.Add(-24*time.Hour), hour))
		if p := b.get(before).expect(t, http.StatusOK, "No INFO window closed in this range"); strings.Contains(p.Body, "order &lt;int&gt;") {
			t.Errorf("a range that closed before the window lists it")
		}

		b.get("/summaries/"+summaryID).expect(t, http.StatusOK, "INFO window", "order &lt;int&gt; shipped", "order 1 shipped",
			`<th scope="row">checkout</th><td class="num">3</td>`, `href="/projects/`+w.ProjectID+`/summaries?from=`)

		bad := b.get("/projects/"+w.ProjectID+"/summaries?from=garbage&to=2026-11-22T11:00:00Z").expect(t, http.StatusUnprocessableEntity,
			`role="alert"`, "from must be a date and time", `value="garbage"`, `id="s-from" name="from" type="datetime-local" step="1" value="garbage" aria-invalid="true"`)
		if strings.Contains(bad.Body, "<svg") {
			t.Errorf("a refused range still draws a chart")
		}
		b.get("/projects/"+w.ProjectID+"/summaries?from=2026-11-22T11:00:00Z&to=2026-11-22T10:00:00Z").expect(t, http.StatusUnprocessableEntity, "to must be after from")
		// A digest after a long quiet spell links a range longer than a
		// chart shows: the page lists it whole and charts its last 90 days.
		b.get("/projects/"+w.ProjectID+"/summaries?from=2026-01-01T00:00:00.000Z&to=2026-11-22T11:00:00.000Z").expect(t, http.StatusOK,
			"The chart shows the range's last 90 days", `class="chart"`)

		// Another organization's project and summary are not found.
		b.get("/projects/"+w.OtherProjectID+"/summaries").expect(t, http.StatusNotFound)
		o := newBrowser(t, s)
		o.signIn(w.Outsider.Email)
		o.get("/summaries/"+summaryID).expect(t, http.StatusNotFound)
		o.get(link).expect(t, http.StatusNotFound)
	})
}

func TestSummariesPaging(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		ctx := context.Background()
		start := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
		for i := range 30 { // 30 closed hour windows, i+1 events each
			ws := start.Add(time.Duration(i) * time.Hour)
			d := store.InfoDelta{ProjectID: w.ProjectID, WindowStart: ws, WindowEnd: ws.Add(time.Hour), Events: int64(i + 1),
				Services: map[string]int64{"api": int64(i + 1)}, Templates: []store.TemplateCount{{Hash: "h", Template: "window <int>", Sample: "window 1", Count: int64(i + 1)}}}
			if _, err := s.App.DB.Write().AddInfo(ctx, d, id.NewAt(id.InfoSummary, ws), ws); err != nil {
				t.Fatal(err)
			}
		}
		b := newBrowser(t, s)
		b.signIn(w.Viewer.Email)
		// A range over 48 hours: the chart has a bar a day.
		first := b.get("/projects/"+w.ProjectID+"/summaries?from=2026-11-19T00:00:00Z&to=2026-11-21T12:00:00Z").
			expect(t, http.StatusOK, `<strong>30</strong> windows`, `<strong>465</strong> info events`, `rel="next"`,
				"The busiest window", ">465 INFO events</span>", "Per day (UTC)", `<th scope="row">Fri 20 Nov 2026 (UTC)</th><td>0</td><td>300</td>`)
		if n := strings.Count(first.Body, `<section class="card window"`); n != 24 {
			t.Fatalf("first page lists %d windows, want 24", n)
		}
		if got := insightWindows(first.Body); got[0] != "2026-11-21T05:00:00.000Z" || got[23] != "2026-11-20T06:00:00.000Z" {
			t.Errorf("first page runs from %s to %s", got[0], got[23])
		}
		i := strings.Index(first.Body, `rel="next" href="`) + len(`rel="next" href="`)
		next := strings.ReplaceAll(first.Body[i:i+strings.IndexByte(first.Body[i:], '"')], "&amp;", "&")
		second := b.get(next).expect(t, http.StatusOK, `<strong>30</strong> windows`)
		if n := strings.Count(second.Body, `<section class="card window"`); n != 6 || strings.Contains(second.Body, `rel="next"`) {
			t.Fatalf("second page lists %d windows (want 6) or links further", n)
		}
		if got := insightWindows(second.Body); got[0] != "2026-11-20T05:00:00.000Z" || got[5] != "2026-11-20T00:00:00.000Z" {
			t.Errorf("second page runs from %s to %s", got[0], got[5])
		}
		b.get("/projects/"+w.ProjectID+"/summaries?before=soon").expect(t, http.StatusUnprocessableEntity, "before must be")
	})
}

// insightWindows lists the start times of the windows a summaries page
// lists, in order.
func insightWindows(body string) []string {
	var out []string
	for _, part := range strings.Split(body, `<h3 id="w-`)[1:] {
		i := strings.Index(part, `datetime="`) + len(`datetime="`)
		out = append(out, part[i:i+strings.IndexByte(part[i:], '"')])
	}
	return out
}
