package web_test

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/store"
)

// triageBigCount gives the project's group with title a count of n events,
// as if that many had been received now: its event_count, and its hour in
// the charts. Ingesting a million events would only slow the test down.
func triageBigCount(t *testing.T, s *apitest.Server, projectID, title string, n int) string {
	t.Helper()
	ctx := context.Background()
	c := s.App.DB.Write()
	gs, err := s.App.DB.Read().ListGroups(ctx, projectID, store.GroupFilter{}, "", 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range gs {
		if g.Title != title {
			continue
		}
		add := int64(n) - g.EventCount
		g.EventCount = int64(n)
		if err := c.UpdateGroup(ctx, g); err != nil {
			t.Fatal(err)
		}
		if err := c.AddGroupCount(ctx, g.ID, time.Now(), int(add)); err != nil {
			t.Fatal(err)
		}
		return g.ID
	}
	t.Fatalf("no group titled %q", title)
	return ""
}

func TestTriagePagesReadable(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		triageSeed(t, s, w.Owner.Token, w.ProjectID)
		groupID := triageBigCount(t, s, w.ProjectID, "order <int>-<int>-<int> failed", 1234567)
		b := newBrowser(t, s)
		b.signIn(w.Viewer.Email)

		// Counts with separators in the lists, the group page and the chart.
		b.get("/projects/"+w.ProjectID+"/tickets").expect(t, http.StatusOK, `<td class="num">1,234,567</td>`)
		b.get("/projects/"+w.ProjectID+"/groups").expect(t, http.StatusOK, `<td class="num">1,234,567</td>`)
		b.get("/groups/"+groupID).expect(t, http.StatusOK, "1,234,567 events", `<th scope="row">Event count</th><td>1,234,567</td>`,
			`<h1 title="`+triageOrder+`">`+triageSample+`</h1>`+"\n"+`<p class="template">The latest event's message; the group's template is <code>`+triageOrder+`</code></p>`)
		ov := b.get("/projects/"+w.ProjectID).expect(t, http.StatusOK, "max 1,234,57", ">1,234,57", "errors and warnings</span>")
		if !strings.Contains(ov.Body, "max 1,234,571") && !strings.Contains(ov.Body, "max 1,234,570") {
			t.Errorf("the chart's maximum hour is not 1,234,567 plus the hour's other events: %s", insightFigure(t, ov.Body, "chart-24h"))
		}

		// The ticket's facts: labels, local times, the group linked, no raw
		// keys or ISO strings.
		tickets := s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.ProjectID + "/tickets?limit=1", Token: w.Viewer.Token}).
			Expect(t, http.StatusOK, "").JSON(t)["data"].([]any)
		ticketID := tickets[0].(map[string]any)["id"].(string)
		tp := b.get("/tickets/"+ticketID).expect(t, http.StatusOK,
			`<h1 title="`+triageOrder+`">`+triageSample+`</h1>`,
			`<th scope="row">First seen</th><td><time datetime="`, `<th scope="row">Last seen</th><td><time datetime="`,
			`<th scope="row">Event count</th><td>1,234,567</td>`, `<th scope="row">Sample message</th><td class="code">`+triageSample+`</td>`,
			`<th scope="row">Error group</th><td class="code"><a href="/groups/`+groupID+`">`+groupID+`</a></td>`, `<th scope="row">Reason</th><td>new</td>`)
		facts := tp.Body[strings.Index(tp.Body, `<table class="facts">`):]
		facts = facts[:strings.Index(facts, "</table>")]
		for _, raw := range []string{"first_seen", "event_count", "sample_message", "group_id"} {
			if strings.Contains(facts, raw) {
				t.Errorf("the facts show the raw key %q: %s", raw, facts)
			}
		}
		if iso := regexp.MustCompile(`>\d{4}-\d\d-\d\dT[^<]*Z<`); iso.MatchString(facts) {
			t.Errorf("the facts show a raw ISO time: %s", iso.FindString(facts))
		}
		// The API's facts are unchanged.
		api := s.Do(apitest.Request{Method: "GET", Path: "/v1/tickets/" + ticketID, Token: w.Viewer.Token}).Expect(t, http.StatusOK, "").JSON(t)
		if f := api["facts"].(map[string]any); f["event_count"] != float64(1234567) || !strings.HasSuffix(f["first_seen"].(string), "Z") {
			t.Errorf("the API's facts changed: %v", f)
		}
		// A title without placeholders reads as it is, with no template
		// on hover.
		if p := b.get("/projects/" + w.ProjectID + "/tickets?sort=last_seen"); strings.Count(p.Body, `title="`+triageOrder+`"`) != 1 ||
			!strings.Contains(p.Body, `">`+triageCache+`</a>`) || strings.Contains(p.Body, `title="`+triageCache) {
			t.Errorf("the list's titles: want only the templated one with its template on hover: %s", p.Body)
		}
	})
}

func TestHomeShowsEachProjectsOpenTicketsAndLastEvent(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		triageSeed(t, s, w.Owner.Token, w.ProjectID) // 1 critical, 2 high
		quiet := s.CreateProject(t, w.Owner.Token, w.OrgID, "quiet")
		b := newBrowser(t, s)
		b.signIn(w.Viewer.Email)
		home := b.get("/").expect(t, http.StatusOK, `<table class="projects">`, `<th scope="col" class="num">Critical</th>`,
			`href="/projects/`+w.ProjectID+`/tickets?status=open&amp;severity=critical" aria-label="1 open critical ticket">1</a>`,
			`href="/projects/`+w.ProjectID+`/tickets?status=open&amp;severity=high" aria-label="2 open high tickets">2</a>`,
			`<td class="num sev-medium zero"><a href="/projects/`+w.ProjectID+`/tickets?status=open&amp;severity=medium"`)
		row := func(id string) string {
			i := strings.Index(home.Body, `<a href="/projects/`+id+`">`)
			if i < 0 {
				t.Fatalf("home lacks project %s", id)
			}
			return home.Body[i : i+strings.Index(home.Body[i:], "</tr>")]
		}
		// The last event is the database timeout's, a minute ago.
		m := regexp.MustCompile(`<time datetime="([^"]+)">`).FindStringSubmatch(row(w.ProjectID))
		if m == nil {
			t.Fatalf("the busy project's row has no last event: %s", row(w.ProjectID))
		}
		if at, err := time.Parse(time.RFC3339, m[1]); err != nil || time.Since(at) < 50*time.Second || time.Since(at) > 5*time.Minute {
			t.Errorf("last event %s, want about a minute ago (%v)", m[1], err)
		}
		if r := row(quiet); !strings.Contains(r, "nothing yet") || !strings.Contains(r, `aria-label="0 open critical tickets"`) {
			t.Errorf("the quiet project's row: %s", r)
		}
	})
}

func TestNotFoundLeadsBack(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		// Signed out: the way back is the sign-in form.
		out := newBrowser(t, s).get("/no-such-page").expect(t, http.StatusNotFound, "There is no page at this address", `<a href="/sign-in">Sign in</a>`)
		if strings.Contains(out.Body, "Back to your organizations") {
			t.Error("a signed-out visitor is offered the organizations")
		}
		b := newBrowser(t, s)
		b.signIn(w.Viewer.Email)
		// Signed in: home, and the project the address was under.
		b.get("/no-such-page").expect(t, http.StatusNotFound, `<a href="/">Back to your organizations</a>`, `action="/sign-out"`)
		b.get("/projects/"+w.ProjectID+"/no-such-tab").expect(t, http.StatusNotFound,
			`<a href="/projects/`+w.ProjectID+`">Back to the project web</a>`, `<a href="/">Back to your organizations</a>`)
		// Another organization's project is not named, nor linked.
		if p := b.get("/projects/"+w.OtherProjectID+"/no-such-tab").expect(t, http.StatusNotFound, "Back to your organizations"); strings.Contains(p.Body, w.OtherProjectID) {
			t.Errorf("a 404 under another organization's project links to it")
		}
		// A page of a thing that does not exist leads home too.
		b.get("/tickets/tkt_01jd00000000000000000000zz").expect(t, http.StatusNotFound, `<a href="/">Back to your organizations</a>`)
	})
}
