package web_test

import (
	"cmp"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/apitest"
)

// Triage: the ticket and group lists show counts and last-seen times and
// sort by newest, last seen and event count, paging correctly in each.

// The three errors triageSeed sends, by title, and their orders.
const (
	triageCache = "cache miss storm"                                 // sent first: 3 events, 10 minutes ago
	triageDB    = "database timeout"                                 // sent second: 1 fatal event, a minute ago
	triageOrder = "order &lt;int&gt;-&lt;int&gt;-&lt;int&gt; failed" // sent last: 5 events, an hour ago
	// triageSample is the order error's message, shown as its title's text
	// (the title, its template, on hover).
	triageSample = "order 1234-5678-90 failed"
)

var triageOrders = map[string][]string{
	"":            {triageSample, triageDB, triageCache}, // newest first
	"last_seen":   {triageDB, triageCache, triageSample},
	"event_count": {triageSample, triageCache, triageDB},
}

// triageSeed sends the three errors to projectID with a key of the owner's,
// one batch each (so their tickets are made in this order), and processes
// them.
func triageSeed(t *testing.T, s *apitest.Server, ownerToken, projectID string) {
	t.Helper()
	now := time.Now().UTC()
	at := func(ago time.Duration) string { return now.Add(-ago).Format(time.RFC3339Nano) }
	send := func(msg, level string, n int, ago time.Duration) {
		events := make([]map[string]any, n)
		for i := range events {
			events[i] = map[string]any{"level": level, "message": msg, "timestamp": at(ago + time.Duration(i)*time.Second)}
		}
		insightIngest(t, s, ownerToken, projectID, "checkout", events...)
	}
	send("cache miss storm", "error", 3, 10*time.Minute)
	send("database timeout", "fatal", 1, time.Minute)
	send(triageSample, "error", 5, time.Hour)
}

var listTitle = regexp.MustCompile(`<a href="/(?:tickets|groups)/(?:tkt|grp)_[a-z0-9]+"(?: title="[^"]*")?>([^<]+)</a>`)

// listTitles are the titles of a ticket or group list, top to bottom.
func listTitles(body string) []string {
	var out []string
	for _, m := range listTitle.FindAllStringSubmatch(body, -1) {
		out = append(out, m[1])
	}
	return out
}

func TestTriageListsSortAndCount(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		triageSeed(t, s, w.Owner.Token, w.ProjectID)
		b := newBrowser(t, s)
		b.signIn(w.Viewer.Email)
		for _, list := range []string{"tickets", "groups"} {
			base := "/projects/" + w.ProjectID + "/" + list
			for sort, want := range triageOrders {
				path := base
				if sort != "" {
					path += "?sort=" + sort
				}
				p := b.get(path).expect(t, http.StatusOK, `<td class="num">5</td>`, `<td class="num">3</td>`, `<td class="num">1</td>`,
					`title="`+triageOrder+`">`+triageSample+`</a>`, `<label for="f-sort">Sort by</label>`)
				if got := listTitles(p.Body); !slices.Equal(got, want) {
					t.Errorf("%s: rows %q, want %q", path, got, want)
				}
				// One header says how the list is sorted; every sortable
				// header links to its order, from the first page.
				if n := strings.Count(p.Body, `aria-sort="descending"`); n != 1 {
					t.Errorf("%s: %d headers with aria-sort, want 1", path, n)
				}
				sorted := map[string]string{"": "Opened", "last_seen": "Last seen", "event_count": "Events"}[sort]
				if list == "groups" && sort == "" {
					sorted = "First seen"
				}
				if !regexp.MustCompile(`aria-sort="descending"[^>]*><a href="[^"]*">` + sorted + `</a>`).MatchString(p.Body) {
					t.Errorf("%s: the %q header is not marked sorted", path, sorted)
				}
				for _, h := range []string{`<a href="` + base + `">`, `<a href="` + base + `?sort=last_seen">Last seen</a>`,
					`<a href="` + base + `?sort=event_count">Events</a>`, `selected>` + map[string]string{"": "Newest", "last_seen": "Last seen", "event_count": "Most events"}[sort]} {
					if !strings.Contains(p.Body, h) {
						t.Errorf("%s lacks %q", path, h)
					}
				}
				// Each row's last seen is a <time> in the table.
				if n := strings.Count(p.Body, `<time datetime="`); n < 6 {
					t.Errorf("%s: %d times, want first/opened and last seen for each of 3 rows", path, n)
				}
			}
			// Filters and sort travel together: the headers keep the filter,
			// the "newest" header drops the sort.
			filtered := b.get(base+"?service=checkout&sort=event_count").expect(t, http.StatusOK,
				`href="`+base+`?service=checkout&amp;sort=last_seen"`, `href="`+base+`?service=checkout"`)
			if got := listTitles(filtered.Body); !slices.Equal(got, triageOrders["event_count"]) {
				t.Errorf("%s filtered: rows %q", list, got)
			}
			b.get(base+"?sort=title").expect(t, http.StatusUnprocessableEntity, "validation-failed", "sort must be newest, last_seen, event_count or users")
			b.get(base+"?sort=newest").expect(t, http.StatusOK, `aria-sort="descending"`)
		}
		// The overview's triage list (CONTRACT 8) shows the unresolved
		// groups with their tickets, assignees, counts, last seen and
		// sparklines, most recently seen first, without sort links.
		ov := b.get("/projects/"+w.ProjectID).expect(t, http.StatusOK, `<th scope="col">Ticket</th><th scope="col">Assignee</th>`,
			`<th scope="col" class="num">Events</th><th scope="col" class="num">Users</th><th scope="col">Last seen</th><th scope="col">Last 24 hours</th>`,
			`<td class="num">5</td>`, triageSample, `<svg class="spark"`, `5 events in the last 24 hours`)
		if got := listTitles(ov.Body); !slices.Equal(got, triageOrders["last_seen"]) {
			t.Errorf("overview triage list %q, want the last seen order", got)
		}
		if strings.Contains(ov.Body, "aria-sort") {
			t.Error("the overview's table claims a sort")
		}
	})
}

// triagePages follows a list's rel="next" links from path and returns the
// ids of every row (their links are /<kind>/<id>), in order, and the
// cursors met.
func triagePages(t *testing.T, b *browser, path, kind string) (ids, cursors []string) {
	t.Helper()
	row := regexp.MustCompile(`href="/` + kind + `/((?:tkt|grp)_[a-z0-9]+)"`)
	next := regexp.MustCompile(`rel="next" href="([^"]+)"`)
	for range 5 {
		p := b.get(path).expect(t, http.StatusOK)
		for _, m := range row.FindAllStringSubmatch(p.Body, -1) {
			ids = append(ids, m[1])
		}
		m := next.FindStringSubmatch(p.Body)
		if m == nil {
			return ids, cursors
		}
		path = strings.ReplaceAll(m[1], "&amp;", "&")
		u, _ := url.Parse(path)
		cursors = append(cursors, u.Query().Get("cursor"))
	}
	t.Fatalf("%s: more than 5 pages", path)
	return nil, nil
}

func TestTriagePagingUnderEverySort(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		// 53 groups whose counts (1 to 4) and last-seen times (0 to 2
		// minutes ago) repeat, so most rows tie on their sort value.
		now := time.Now().UTC().Truncate(time.Second)
		var events []map[string]any
		for i := range 53 {
			for range i%4 + 1 {
				events = append(events, map[string]any{"level": "error", "message": "failure", "timestamp": now.Add(-time.Duration(i%3) * time.Minute).Format(time.RFC3339),
					"attributes": map[string]any{"fingerprint": "fp" + string(rune('A'+i/26)) + string(rune('a'+i%26))}})
			}
		}
		insightIngest(t, s, w.Owner.Token, w.ProjectID, "api", events...)
		// The truth, through the API: every group with its count, last seen
		// and ticket.
		api := s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.ProjectID + "/groups?limit=100", Token: w.Viewer.Token}).
			Expect(t, http.StatusOK, "").JSON(t)["data"].([]any)
		type row struct {
			group, ticket, lastSeen string
			count                   float64
		}
		var rows []row
		for _, v := range api {
			g := v.(map[string]any)
			rows = append(rows, row{g["id"].(string), g["ticket_id"].(string), g["last_seen"].(string), g["event_count"].(float64)})
		}
		if len(rows) != 53 {
			t.Fatalf("%d groups, want 53", len(rows))
		}
		b := newBrowser(t, s)
		b.signIn(w.Viewer.Email)
		for _, sort := range []string{"", "last_seen", "event_count"} {
			// Expected: by value, ties by id, all descending. Tickets were
			// made in their groups' order, so their ids tie-break alike.
			want := slices.Clone(rows)
			slices.SortFunc(want, func(a, b row) int {
				var c int
				switch sort {
				case "last_seen":
					c = cmp.Compare(b.lastSeen, a.lastSeen) // same-length RFC 3339 UTC strings sort as times
				case "event_count":
					c = cmp.Compare(b.count, a.count)
				}
				return cmp.Or(c, cmp.Compare(b.group, a.group))
			})
			var wantGroups, wantTickets []string
			for _, r := range want {
				wantGroups, wantTickets = append(wantGroups, r.group), append(wantTickets, r.ticket)
			}
			q := "?status=open"
			if sort != "" {
				q += "&sort=" + sort
			}
			tickets, tcur := triagePages(t, b, "/projects/"+w.ProjectID+"/tickets"+q, "tickets")
			if !slices.Equal(tickets, wantTickets) {
				t.Errorf("sort %q: tickets paged as %v, want %v", sort, tickets, wantTickets)
			}
			groups, gcur := triagePages(t, b, "/projects/"+w.ProjectID+"/groups?sort="+sort, "groups")
			if !slices.Equal(groups, wantGroups) {
				t.Errorf("sort %q: groups paged as %v, want %v", sort, groups, wantGroups)
			}
			if len(tcur) != 1 || len(gcur) != 1 {
				t.Fatalf("sort %q: %d and %d next links, want one each (50 + 3)", sort, len(tcur), len(gcur))
			}
			// A cursor of this order is refused under every other (the
			// API's 422), and so is the API's own cursor under a sort.
			for _, other := range []string{"", "last_seen", "event_count"} {
				if other == sort {
					continue
				}
				b.get("/projects/"+w.ProjectID+"/tickets?status=open&sort="+other+"&cursor="+url.QueryEscape(tcur[0])).
					expect(t, http.StatusUnprocessableEntity, "validation-failed", "cursor")
				b.get("/projects/"+w.ProjectID+"/groups?sort="+other+"&cursor="+url.QueryEscape(gcur[0])).
					expect(t, http.StatusUnprocessableEntity, "cursor")
			}
			if sort != "" {
				s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.ProjectID + "/tickets?status=open&cursor=" + url.QueryEscape(tcur[0]), Token: w.Viewer.Token}).
					Expect(t, http.StatusUnprocessableEntity, "validation-failed")
			}
		}
		apiCursor := s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.ProjectID + "/groups?limit=50", Token: w.Viewer.Token}).
			Expect(t, http.StatusOK, "").JSON(t)["next_cursor"].(string)
		b.get("/projects/"+w.ProjectID+"/groups?sort=event_count&cursor="+url.QueryEscape(apiCursor)).expect(t, http.StatusUnprocessableEntity, "cursor")
		if got, _ := triagePages(t, b, "/projects/"+w.ProjectID+"/groups?cursor="+url.QueryEscape(apiCursor), "groups"); len(got) != 3 {
			t.Errorf("the API's cursor on the default list gives %d groups, want 3", len(got))
		}
	})
}
