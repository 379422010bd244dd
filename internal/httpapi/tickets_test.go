package httpapi_test

import (
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
)

func TestNewErrorOpensATicket(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		const trace = "4bf92f3577b34da6a3ce929d0e0e4736"
		feed(t, s, w.Key, map[string]any{"service": "checkout", "environment": "prod", "release": "2.0.1", "events": []any{
			ev("card declined for order 1", "fatal", "trace_id", trace),
			ev("card declined for order 2", "CRITICAL"), // the trace id stays known
			ev("database timeout", "error"),
			ev("slow query", "warning"),
			ev("user signed in", "info"),
		}})
		list := items(t, s, w.Viewer.Token, "/v1/projects/"+w.ProjectID+"/tickets")
		if len(list) != 3 {
			t.Fatalf("tickets = %d, want 3 (info opens none): %v", len(list), list)
		}
		for _, it := range list {
			keys := make([]string, 0, len(it))
			for k := range it {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			if want := []string{"assignee", "created_at", "id", "severity", "status", "title", "url", "user_count"}; !slices.Equal(keys, want) { // user_count: CONTRACT 8
				t.Errorf("list item fields = %v, want %v", keys, want)
			}
			if it["url"] != testAppURL+"/tickets/"+it["id"].(string) || !apiTimeRe.MatchString(it["created_at"].(string)) {
				t.Errorf("list item = %v", it)
			}
		}
		for _, tc := range []struct{ title, level, severity string }{
			{"card declined", "fatal", "critical"}, {"database timeout", "error", "high"}, {"slow query", "warn", "medium"},
		} {
			g := groupByTitle(t, s, w.Viewer.Token, w.ProjectID, tc.title)
			tk := ticketOf(t, s, w.Viewer.Token, g["id"].(string))
			id := tk["id"].(string)
			if !strings.HasPrefix(id, "tkt_") || tk["severity"] != tc.severity || tk["status"] != "open" || tk["resolved_at"] != nil ||
				tk["project_id"] != w.ProjectID || tk["group_id"] != g["id"] || tk["url"] != testAppURL+"/tickets/"+id || tk["title"] == "" {
				t.Errorf("%s: ticket = %v, want an open %s ticket of group %s", tc.title, tk, tc.severity, g["id"])
			}
			f := tk["facts"].(map[string]any)
			for _, k := range []string{"service", "environment", "release", "level", "first_seen", "last_seen", "event_count", "group_id", "reason", "sample_message"} {
				if _, ok := f[k]; !ok {
					t.Errorf("%s: facts lack %s: %v", tc.title, k, f)
				}
			}
			if f["service"] != "checkout" || f["environment"] != "prod" || f["release"] != "2.0.1" || f["level"] != tc.level ||
				f["group_id"] != g["id"] || f["reason"] != "new" {
				t.Errorf("%s: facts = %v", tc.title, f)
			}
			for _, k := range []string{"first_seen", "last_seen"} {
				if s, _ := f[k].(string); !apiTimeRe.MatchString(s) {
					t.Errorf("%s: facts.%s = %v, want a timestamp", tc.title, k, f[k])
				}
			}
			if !strings.Contains(tk["summary"].(string), "checkout") {
				t.Errorf("%s: summary %q does not name the service", tc.title, tk["summary"])
			}
			_, hasTrace := f["trace_id"]
			if tc.level == "fatal" {
				if f["trace_id"] != trace || f["event_count"] != float64(2) || f["sample_message"] != "card declined for order 2" {
					t.Errorf("fatal facts = %v, want trace_id, 2 events and the latest message", f)
				}
				if !strings.Contains(tk["summary"].(string), "2 events") {
					t.Errorf("summary %q does not count 2 events", tk["summary"])
				}
			} else if hasTrace || f["event_count"] != float64(1) {
				t.Errorf("%s: facts = %v, want 1 event and no trace_id", tc.title, f)
			}
		}
	}, withAppURL)
}

func TestTicketListFilters(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		feed(t, s, w.Key, map[string]any{"service": "api", "environment": "prod", "events": []any{fpEv("a", "fatal"), fpEv("b", "error")}})
		feed(t, s, w.Key, map[string]any{"service": "web", "environment": "staging", "events": []any{fpEv("c", "warn"), fpEv("d", "error")}})
		byTitle := map[string]string{}
		for _, it := range items(t, s, w.Owner.Token, "/v1/projects/"+w.ProjectID+"/tickets") {
			byTitle[strings.TrimPrefix(it["title"].(string), "failure ")] = it["id"].(string)
		}
		if len(byTitle) != 4 {
			t.Fatalf("tickets = %v, want 4", byTitle)
		}
		patchJSON(s, w.Member.Token, "/v1/tickets/"+byTitle["d"], map[string]any{"status": "resolved"}).Expect(t, http.StatusOK, "")
		base := "/v1/projects/" + w.ProjectID + "/tickets?"
		for _, tc := range []struct{ query, want string }{
			{"", "abcd"},
			{"status=open", "abc"}, {"status=resolved", "d"},
			{"severity=critical", "a"}, {"severity=high", "bd"}, {"severity=medium", "c"},
			{"service=api", "ab"}, {"service=web", "cd"}, {"service=nope", ""},
			{"environment=prod", "ab"}, {"environment=staging", "cd"}, {"environment=pro", ""},
			{"service=web&status=open&severity=medium&environment=staging", "c"},
		} {
			var got []string
			for _, it := range items(t, s, w.Viewer.Token, base+tc.query) {
				got = append(got, strings.TrimPrefix(it["title"].(string), "failure "))
			}
			sort.Strings(got)
			if strings.Join(got, "") != tc.want {
				t.Errorf("?%s = %v, want %q", tc.query, got, tc.want)
			}
		}
		for _, q := range []string{"status=closed", "severity=low", "severity=CRITICAL"} {
			r := s.Do(apitest.Request{Method: "GET", Path: base + q, Token: w.Viewer.Token}).Expect(t, http.StatusUnprocessableEntity, "validation-failed")
			if name, _, _ := strings.Cut(q, "="); !strings.Contains(r.Str(t, "detail"), name) {
				t.Errorf("?%s: detail %q does not name %s", q, r.Str(t, "detail"), name)
			}
		}
	})
}

func TestTicketPaging(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		feed(t, s, w.Key, batchOf("api", fpEv("a", "error"), fpEv("b", "error"), fpEv("c", "fatal"), fpEv("d", "error"), fpEv("e", "warn")))
		base := "/v1/projects/" + w.ProjectID + "/tickets"
		all := ids(items(t, s, w.Viewer.Token, base))
		pages := pageAll(t, s, w.Viewer.Token, base+"?limit=2", "")
		if len(pages) != 3 || len(pages[0]) != 2 || len(pages[2]) != 1 || !slices.Equal(slices.Concat(pages...), all) {
			t.Fatalf("pages of 2 = %v, want %v in pages 2, 2, 1", pages, all)
		}
		if !slices.IsSortedFunc(all, func(a, b string) int { return strings.Compare(b, a) }) {
			t.Errorf("tickets %v are not newest first", all)
		}
		if got := pageAll(t, s, w.Viewer.Token, base+"?limit=100", ""); len(got) != 1 || len(got[0]) != 5 {
			t.Errorf("limit 100 = %v, want one page of 5", got)
		}
		for _, l := range []string{"0", "101", "-1", "x", ""} {
			r := s.Do(apitest.Request{Method: "GET", Path: base + "?limit=" + l, Token: w.Viewer.Token}).Expect(t, http.StatusUnprocessableEntity, "validation-failed")
			if !strings.Contains(r.Str(t, "detail"), "limit") {
				t.Errorf("limit=%s: detail %q does not name limit", l, r.Str(t, "detail"))
			}
		}
		cursor := getJSON(t, s, w.Viewer.Token, base+"?limit=2")["next_cursor"].(string)
		open := getJSON(t, s, w.Viewer.Token, base+"?limit=2&status=open")["next_cursor"].(string)
		groups := getJSON(t, s, w.Viewer.Token, "/v1/projects/"+w.ProjectID+"/groups?limit=2")["next_cursor"].(string)
		otherKey := func() string { _, k := s.CreateKey(t, w.Outsider.Token, w.OtherProjectID); return k }()
		feed(t, s, otherKey, batchOf("api", fpEv("x", "error"), fpEv("y", "error")))
		theirs := getJSON(t, s, w.Outsider.Token, "/v1/projects/"+w.OtherProjectID+"/tickets?limit=1")["next_cursor"].(string)
		tampered := []byte(cursor)
		tampered[2] ^= 1
		for _, tc := range []struct{ name, query string }{
			{"tampered", "?cursor=" + url.QueryEscape(string(tampered))},
			{"garbage", "?cursor=bogus"},
			{"other filter", "?cursor=" + url.QueryEscape(open)},
			{"filter added", "?status=resolved&cursor=" + url.QueryEscape(cursor)},
			{"groups list", "?cursor=" + url.QueryEscape(groups)},
			{"other project", "?cursor=" + url.QueryEscape(theirs)},
		} {
			r := s.Do(apitest.Request{Method: "GET", Path: base + tc.query, Token: w.Viewer.Token}).Expect(t, http.StatusUnprocessableEntity, "validation-failed")
			if !strings.Contains(r.Str(t, "detail"), "cursor") {
				t.Errorf("%s: detail %q does not name cursor", tc.name, r.Str(t, "detail"))
			}
		}
		s.Do(apitest.Request{Method: "GET", Path: base + "?status=open&limit=2&cursor=" + url.QueryEscape(open), Token: w.Viewer.Token}).Expect(t, http.StatusOK, "")
	})
}

// TestTicketPagingWhileIngesting: tickets opened while a client pages
// neither repeat nor hide the tickets that existed when paging started.
func TestTicketPagingWhileIngesting(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		for _, fp := range []string{"a", "b", "c", "d", "e", "f", "g"} {
			feed(t, s, w.Key, batchOf("api", fpEv(fp, "error")))
		}
		base := "/v1/projects/" + w.ProjectID + "/tickets"
		before := ids(items(t, s, w.Viewer.Token, base))
		first := getJSON(t, s, w.Viewer.Token, base+"?limit=3")
		seen := ids(func() (out []map[string]any) {
			for _, d := range first["data"].([]any) {
				out = append(out, d.(map[string]any))
			}
			return out
		}())
		// New tickets, and a regression of an old group, while paging.
		feed(t, s, w.Key, batchOf("api", fpEv("h", "error"), fpEv("i", "fatal")))
		patchJSON(s, w.Member.Token, "/v1/tickets/"+before[5], map[string]any{"status": "resolved"}).Expect(t, http.StatusOK, "")
		feed(t, s, w.Key, batchOf("api", fpEv("b", "error"), fpEv("j", "warn")))
		for _, page := range pageAll(t, s, w.Viewer.Token, base+"?limit=3", first["next_cursor"].(string)) {
			seen = append(seen, page...)
		}
		if !slices.Equal(seen, before) {
			t.Fatalf("paged while ingesting = %v, want exactly the tickets that existed: %v", seen, before)
		}
		if now := ids(items(t, s, w.Viewer.Token, base)); len(now) != len(before)+4 {
			t.Errorf("tickets afterwards = %d, want %d", len(now), len(before)+4)
		}
	})
}

func TestResolveRegressAndReopen(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		boom := batchOf("api", ev("payment service unreachable", "error"))
		feed(t, s, w.Key, boom)
		g := groupByTitle(t, s, w.Viewer.Token, w.ProjectID, "unreachable")
		gid := g["id"].(string)
		old := ticketOf(t, s, w.Viewer.Token, gid)["id"].(string)

		r := patchJSON(s, w.Member.Token, "/v1/tickets/"+old, map[string]any{"status": "resolved"}).Expect(t, http.StatusOK, "").JSON(t)
		if r["status"] != "resolved" || r["resolved_at"] == nil || !apiTimeRe.MatchString(r["resolved_at"].(string)) {
			t.Fatalf("resolved ticket = %v", r)
		}
		if g := getJSON(t, s, w.Viewer.Token, "/v1/groups/"+gid); g["status"] != "resolved" || g["ticket_id"] != old {
			t.Fatalf("group after resolving its ticket = %v, want resolved", g)
		}

		feed(t, s, w.Key, boom)
		g = getJSON(t, s, w.Viewer.Token, "/v1/groups/"+gid)
		regression, _ := g["ticket_id"].(string)
		if g["status"] != "unresolved" || regression == "" || regression == old || g["event_count"] != float64(2) {
			t.Fatalf("group after a later event = %v, want unresolved with a new ticket", g)
		}
		reg := getJSON(t, s, w.Viewer.Token, "/v1/tickets/"+regression)
		if reg["status"] != "open" || reg["severity"] != "high" || reg["facts"].(map[string]any)["reason"] != "regression" {
			t.Errorf("regression ticket = %v", reg)
		}
		if !strings.Contains(reg["summary"].(string), "back") {
			t.Errorf("regression summary %q does not say the error is back", reg["summary"])
		}
		if o := getJSON(t, s, w.Viewer.Token, "/v1/tickets/"+old); o["status"] != "resolved" || o["facts"].(map[string]any)["reason"] != "new" {
			t.Errorf("old ticket after the regression = %v, want still resolved", o)
		}
		// A resolved ticket's facts are its episode's: the group's next
		// events belong to the regression's ticket.
		if o := getJSON(t, s, w.Viewer.Token, "/v1/tickets/"+old); o["facts"].(map[string]any)["event_count"] != float64(1) ||
			!strings.Contains(o["summary"].(string), ": 1 event since") {
			t.Errorf("old ticket after the regression = %v, want the 1 event it had when resolved", o)
		}
		if f := reg["facts"].(map[string]any); f["event_count"] != float64(2) {
			t.Errorf("regression ticket's facts = %v, want the group's 2 events", f)
		}
		if list := ids(items(t, s, w.Viewer.Token, "/v1/projects/"+w.ProjectID+"/tickets")); !slices.Equal(list, []string{regression, old}) {
			t.Errorf("tickets = %v, want the regression first, then the old one", list)
		}

		patchJSON(s, w.Member.Token, "/v1/tickets/"+old, map[string]any{"status": "open"}).Expect(t, http.StatusConflict, "conflict")
		if o := getJSON(t, s, w.Viewer.Token, "/v1/tickets/"+old); o["status"] != "resolved" {
			t.Errorf("refused reopen changed the ticket: %v", o)
		}
		// Once the regression is resolved, the old ticket may be reopened.
		patchJSON(s, w.Member.Token, "/v1/tickets/"+regression, map[string]any{"status": "resolved"}).Expect(t, http.StatusOK, "")
		o := patchJSON(s, w.Member.Token, "/v1/tickets/"+old, map[string]any{"status": "open"}).Expect(t, http.StatusOK, "").JSON(t)
		if o["status"] != "open" || o["resolved_at"] != nil || o["facts"].(map[string]any)["event_count"] != float64(2) {
			t.Errorf("reopened ticket = %v, want open with the group's 2 events", o)
		}
		if g := getJSON(t, s, w.Viewer.Token, "/v1/groups/"+gid); g["status"] != "unresolved" || g["ticket_id"] != old {
			t.Errorf("group after reopening = %v, want unresolved with the reopened ticket", g)
		}
		patchJSON(s, w.Member.Token, "/v1/tickets/"+old, map[string]any{"status": "closed"}).Expect(t, http.StatusUnprocessableEntity, "validation-failed")
	})
}

// TestUnresolvingAGroupReopensItsTicket: a group resolved or ignored by
// hand and then set unresolved has its ticket open again (its next events
// update it), as reopening the ticket unresolves the group.
func TestUnresolvingAGroupReopensItsTicket(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		boom := batchOf("api", ev("cache node evicted", "error"))
		feed(t, s, w.Key, boom)
		gid := groupByTitle(t, s, w.Viewer.Token, w.ProjectID, "cache node")["id"].(string)
		tid := ticketOf(t, s, w.Viewer.Token, gid)["id"].(string)
		for _, away := range []map[string]any{{"status": "resolved"}, {"status": "ignored"}} {
			patchJSON(s, w.Member.Token, "/v1/groups/"+gid, away).Expect(t, http.StatusOK, "")
			if tk := getJSON(t, s, w.Viewer.Token, "/v1/tickets/"+tid); tk["status"] != "resolved" {
				t.Fatalf("ticket after %v = %v, want resolved", away, tk)
			}
			patchJSON(s, w.Member.Token, "/v1/groups/"+gid, map[string]any{"status": "unresolved"}).Expect(t, http.StatusOK, "")
			if tk := getJSON(t, s, w.Viewer.Token, "/v1/tickets/"+tid); tk["status"] != "open" || tk["resolved_at"] != nil {
				t.Fatalf("ticket after %v then unresolved = %v, want open again", away, tk)
			}
			if k := kinds(activity(t, s, w.Viewer.Token, gid)); len(k) < 2 || k[0] != "unresolved" || k[1] != "ticket_opened" {
				t.Errorf("activity after %v then unresolved = %v, want unresolved and ticket_opened first", away, k)
			}
		}
		feed(t, s, w.Key, boom)
		if tk := ticketOf(t, s, w.Viewer.Token, gid); tk["id"] != tid || tk["facts"].(map[string]any)["event_count"] != float64(2) {
			t.Errorf("ticket after a later event = %v, want %s open with 2 events", tk, tid)
		}
	})
}

func TestDeleteTicket(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		boom := batchOf("api", ev("inventory sync failed", "error"))
		feed(t, s, w.Key, boom)
		gid := groupByTitle(t, s, w.Viewer.Token, w.ProjectID, "inventory")["id"].(string)
		tid := ticketOf(t, s, w.Viewer.Token, gid)["id"].(string)

		r := s.Do(apitest.Request{Method: "DELETE", Path: "/v1/tickets/" + tid, Token: w.Member.Token}).Expect(t, http.StatusNoContent, "")
		if len(r.Body) != 0 {
			t.Errorf("204 with a body: %s", r.Body)
		}
		s.Do(apitest.Request{Method: "GET", Path: "/v1/tickets/" + tid, Token: w.Viewer.Token}).Expect(t, http.StatusNotFound, "not-found")
		s.Do(apitest.Request{Method: "DELETE", Path: "/v1/tickets/" + tid, Token: w.Member.Token}).Expect(t, http.StatusNotFound, "not-found")
		if g := getJSON(t, s, w.Viewer.Token, "/v1/groups/"+gid); g["ticket_id"] != nil || g["status"] != "unresolved" {
			t.Fatalf("group after deleting its ticket = %v, want ticket_id null", g)
		}

		feed(t, s, w.Key, boom)
		feed(t, s, w.Key, boom)
		if list := items(t, s, w.Viewer.Token, "/v1/projects/"+w.ProjectID+"/tickets"); len(list) != 0 {
			t.Fatalf("tickets after later events = %v, want none until the group regresses", list)
		}
		if g := getJSON(t, s, w.Viewer.Token, "/v1/groups/"+gid); g["ticket_id"] != nil || g["event_count"] != float64(3) {
			t.Errorf("group = %v, want 3 events and still no ticket", g)
		}

		patchJSON(s, w.Member.Token, "/v1/groups/"+gid, map[string]any{"status": "resolved"}).Expect(t, http.StatusOK, "")
		feed(t, s, w.Key, boom)
		tk := ticketOf(t, s, w.Viewer.Token, gid)
		if tk["facts"].(map[string]any)["reason"] != "regression" || tk["status"] != "open" {
			t.Errorf("ticket after the regression = %v", tk)
		}
	})
}
