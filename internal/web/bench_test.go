package web_test

import (
	"context"
	"html"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// benchPage is one dashboard page the benchmark reads: its name in the
// benchmark's name, its address in a seeded project, or the name of the
// page whose rel="next" link leads to it, and a string it must contain,
// checked once before timing.
type benchPage struct {
	name string
	path func(p benchProject) string
	next string
	want func(p benchProject) string
}

// benchLit is a constant path or wanted string.
func benchLit(s string) func(benchProject) string { return func(benchProject) string { return s } }

// benchPrj is a path under the seeded project.
func benchPrj(sub string) func(benchProject) string {
	return func(p benchProject) string { return "/projects/" + p.ProjectID + sub }
}

// benchPages are the pages measured, one line each, in the order they run.
var benchPages = []benchPage{
	{name: "home", path: benchLit("/"), want: benchLit("Acme")},
	{name: "org", path: func(p benchProject) string { return "/orgs/" + p.OrgID }, want: benchPrj("")},
	{name: "members", path: func(p benchProject) string { return "/orgs/" + p.OrgID + "/members" }, want: benchLit("person24@example.com")},
	{name: "keys", path: benchPrj("/keys"), want: benchLit("deploy-7")},
	{name: "overview", path: benchPrj(""), want: func(p benchProject) string { return `<tr data-group="grp_` }}, // a row of the triage list of error groups (issue 25)
	{name: "tickets", path: benchPrj("/tickets"), want: func(p benchProject) string { return p.Tickets[0] }},
	{name: "tickets-page2", next: "tickets", want: func(p benchProject) string { return p.Tickets[50] }},
	{name: "tickets-filtered", path: benchPrj("/tickets?status=open&severity=high"), want: benchLit("/tickets/")},
	{name: "tickets-group-filter", path: benchPrj("/tickets?severity=critical&service=search&environment=staging"), want: benchLit(`for="f-severity"`)},
	{name: "tickets-last-seen", path: benchPrj("/tickets?sort=last_seen"), want: benchLit(`aria-sort="descending"`)},
	{name: "tickets-events", path: benchPrj("/tickets?sort=event_count"), want: benchLit(`aria-sort="descending"`)},
	{name: "tickets-events-page2", next: "tickets-events", want: benchLit("/tickets/")},
	{name: "tickets-open-events", path: benchPrj("/tickets?status=open&sort=event_count"), want: benchLit("/tickets/")},
	{name: "ticket", path: func(p benchProject) string { return "/tickets/" + p.BusyTicket }, want: benchLit("<h1")},
	{name: "groups", path: benchPrj("/groups"), want: func(p benchProject) string { return p.Groups[0] }},
	{name: "groups-page2", next: "groups", want: func(p benchProject) string { return p.Groups[50] }},
	{name: "groups-last-seen", path: benchPrj("/groups?sort=last_seen"), want: benchLit(`aria-sort="descending"`)},
	{name: "groups-events", path: benchPrj("/groups?sort=event_count"), want: benchLit(`aria-sort="descending"`)},
	{name: "groups-events-page2", next: "groups-events", want: benchLit("/groups/")},
	{name: "group", path: func(p benchProject) string { return "/groups/" + p.BusyGroup }, want: benchLit("<h1")},
	{name: "summaries", path: benchPrj("/summaries"), want: func(p benchProject) string { return p.Summaries[0] }},
	{name: "summary", path: func(p benchProject) string { return "/summaries/" + p.Summaries[0] }, want: benchLit("<h1")},
	{name: "channels", path: benchPrj("/channels"), want: func(p benchProject) string { return p.Channels[0] }},
	{name: "channel", path: func(p benchProject) string { return "/channels/" + p.FailingChannel }, want: benchLit("HTTP 502")},
	{name: "notifications", path: benchPrj("/notifications"), want: benchLit("Europe/Paris")},
}

// benchPaths resolves every page's address, following rel="next" links
// for the pages that have no path of their own.
func benchPaths(tb testing.TB, client *http.Client, s *apitest.Server, cookie *http.Cookie, p benchProject) map[string]string {
	tb.Helper()
	paths := map[string]string{}
	for _, pg := range benchPages {
		if pg.path != nil {
			paths[pg.name] = pg.path(p)
			continue
		}
		_, body := benchGet(tb, client, s.URL+paths[pg.next], cookie)
		const mark = `rel="next" href="`
		i := strings.Index(body, mark)
		if i < 0 {
			tb.Fatalf("%s: page %s has no next link", pg.name, paths[pg.next])
		}
		body = body[i+len(mark):]
		paths[pg.name] = html.UnescapeString(body[:strings.IndexByte(body, '"')])
	}
	return paths
}

// BenchmarkPages reads every dashboard page, server-side rendering
// included, over loopback HTTP with a signed-in owner's cookie, in a
// project of 10,000 tickets, 1,000 groups and 100 channels (benchFull), on
// each database. The target is under 50 ms a page.
//
//	go test -run '^$' -bench BenchmarkPages -benchtime 50x -count 3 ./internal/web/
func BenchmarkPages(b *testing.B) {
	for _, d := range storetest.Dialects {
		b.Run(string(d), func(b *testing.B) {
			s := apitest.Start(b, d)
			start := time.Now()
			p := benchSeed(b, s, benchFull)
			b.Logf("%s: seeded %d tickets, %d groups, %d channels, %d INFO summaries in %v", d, len(p.Tickets), len(p.Groups),
				len(p.Channels), len(p.Summaries), time.Since(start).Round(time.Millisecond))
			cookie := benchSignIn(b, s, p.Owner.Email)
			client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			paths := benchPaths(b, client, s, cookie, p)
			for _, pg := range benchPages {
				path := paths[pg.name]
				b.Run(pg.name, func(b *testing.B) {
					status, body := benchGet(b, client, s.URL+path, cookie)
					if want := pg.want(p); status != http.StatusOK || !strings.Contains(body, want) {
						b.Fatalf("GET %s: status %d, want 200 and %q; body: %.2000s", path, status, want, body)
					}
					b.ReportAllocs()
					b.ResetTimer()
					for range b.N {
						if status, _ := benchGet(b, client, s.URL+path, cookie); status != http.StatusOK {
							b.Fatalf("GET %s: status %d", path, status)
						}
					}
				})
			}
		})
	}
}

// benchGet reads one page with the session cookie.
func benchGet(tb testing.TB, client *http.Client, u string, cookie *http.Cookie) (int, string) {
	req, err := http.NewRequest("GET", u, nil)
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Accept", "text/html")
	req.AddCookie(cookie)
	res, err := client.Do(req)
	if err != nil {
		tb.Fatalf("GET %s: %v", u, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		tb.Fatalf("GET %s: %v", u, err)
	}
	return res.StatusCode, string(body)
}

// benchSignIn signs in through the form and returns the session cookie.
func benchSignIn(tb testing.TB, s *apitest.Server, email string) *http.Cookie {
	tb.Helper()
	form := url.Values{"email": {email}, "password": {apitest.Password}, "next": {"/"}}
	req, err := http.NewRequest("POST", s.URL+"/sign-in", strings.NewReader(form.Encode()))
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", s.URL)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := client.Do(req)
	if err != nil {
		tb.Fatalf("sign in: %v", err)
	}
	defer res.Body.Close()
	for _, c := range res.Cookies() {
		if c.Name == "errata_session" && c.Value != "" {
			return c
		}
	}
	tb.Fatalf("sign in as %s: status %d and no session cookie", email, res.StatusCode)
	return nil
}

// TestBenchSeed runs the benchmark's seeder at a tiny size on both
// databases, checks that what it wrote is consistent, and reads every
// benchmarked page once, so neither the seeder nor the page table rots
// while the benchmark itself runs only with -bench.
func TestBenchSeed(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		ctx, c := context.Background(), s.App.DB.Read()
		p := benchSeed(t, s, benchTiny)
		if len(p.Tickets) != benchTiny.Tickets || len(p.Groups) != benchTiny.Groups || len(p.Channels) != benchTiny.Channels {
			t.Fatalf("seeded %d tickets, %d groups, %d channels", len(p.Tickets), len(p.Groups), len(p.Channels))
		}
		list := s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + p.ProjectID + "/tickets?limit=100", Token: p.Owner.Token}).
			Expect(t, http.StatusOK, "").JSON(t)["data"].([]any)
		if len(list) != benchTiny.Tickets || list[0].(map[string]any)["id"] != p.Tickets[0] {
			t.Fatalf("the API lists %d tickets, want %d, newest %s first", len(list), benchTiny.Tickets, p.Tickets[0])
		}
		counts, err := c.OpenTicketCounts(ctx, p.ProjectID)
		if err != nil {
			t.Fatal(err)
		}
		if n := counts["critical"] + counts["high"] + counts["medium"]; n != int64(p.OpenTickets) || n == 0 {
			t.Errorf("open tickets by severity %v, want %d in all", counts, p.OpenTickets)
		}
		for _, gid := range p.Groups {
			g, err := c.GroupByID(ctx, gid)
			if err != nil {
				t.Fatal(err)
			}
			tk, err := c.TicketByID(ctx, g.TicketID)
			if err != nil || tk.GroupID != g.ID || (tk.Status == store.TicketOpen) != (g.Status == store.GroupUnresolved) {
				t.Errorf("group %s (%s): latest ticket %+v, %v", g.ID, g.Status, tk, err)
			}
			evs, err := c.ListGroupEvents(ctx, gid, 0, 10)
			if err != nil || len(evs) == 0 || evs[len(evs)-1].StackTrace == "" || !evs[len(evs)-1].First {
				t.Errorf("group %s: sample events %d, %v", gid, len(evs), err)
			}
		}
		if n, err := c.GroupCountBetween(ctx, p.BusyGroup, time.Now().Add(-48*time.Hour), time.Now().Add(time.Hour)); err != nil || n == 0 {
			t.Errorf("busiest group: %d events in the last two days, %v", n, err)
		}
		sum, err := c.InfoSummaryDetail(ctx, p.Summaries[0], 10)
		if err != nil || len(p.Summaries) != benchTiny.Days*24 || len(sum.Top) != benchTiny.Templates || len(sum.Services) == 0 {
			t.Errorf("%d summaries, the latest %+v, %v", len(p.Summaries), sum, err)
		}
		ch, err := c.ChannelByID(ctx, p.FailingChannel)
		if err != nil || ch.Health != store.HealthFailing {
			t.Errorf("failing channel %+v, %v", ch, err)
		}
		dl, err := c.ListDeliveries(ctx, p.FailingChannel, "", 10)
		if err != nil || len(dl) != benchTiny.Deliveries || dl[0].Status != store.DeliveryFailed {
			t.Errorf("failing channel's deliveries %+v, %v", dl, err)
		}
		cookie := benchSignIn(t, s, p.Owner.Email)
		client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		paths := benchPaths(t, client, s, cookie, p)
		for _, pg := range benchPages {
			status, body := benchGet(t, client, s.URL+paths[pg.name], cookie)
			if want := pg.want(p); status != http.StatusOK || !strings.Contains(body, want) {
				t.Errorf("%s: GET %s: status %d, want 200 and %q; body: %.3000s", pg.name, paths[pg.name], status, want, body)
			}
		}
	})
}
