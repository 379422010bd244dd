package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
)

// titles lists the titles of the groups a query finds, sorted.
func titles(t *testing.T, s *apitest.Server, token, path string) []string {
	t.Helper()
	var out []string
	for _, g := range items(t, s, token, path+"&limit=100") {
		out = append(out, g["title"].(string))
	}
	sort.Strings(out)
	return out
}

// longNote is an attribute value longer than the 200 characters the value
// counts keep, of two-byte characters.
var longNote = strings.Repeat("é", 230)

func TestSearchGroupsAndTickets(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		feed(t, s, w.Key, map[string]any{"service": "api", "environment": "production", "release": "1.0", "events": []any{
			ev("Payment TIMEOUT for order 7", "error", "attributes", map[string]any{"fingerprint": "pay", "region": "eu", "user.id": "u1", "amount": 120}),
			ev("Payment TIMEOUT for order 8", "error", "attributes", map[string]any{"fingerprint": "pay", "region": "eu west", "user": map[string]any{"id": "u2"}, "amount": "80"}),
			ev("disk full", "warn", "attributes", map[string]any{"fingerprint": "disk"}, "trace_id", "4bf92f3577b34da6a3ce929d0e0e4736"),
		}})
		feed(t, s, w.Key, map[string]any{"service": "web", "environment": "staging", "release": "2.0", "events": []any{
			ev("template missing", "fatal", "attributes", map[string]any{"fingerprint": "tpl", "region": "us", "note": longNote, "amount": "n/a"}),
		}})
		disk := groupByTitle(t, s, w.Viewer.Token, w.ProjectID, "disk")["id"].(string)
		patchJSON(s, w.Member.Token, "/v1/groups/"+disk, map[string]any{"status": "resolved"}).Expect(t, http.StatusOK, "")

		base := "/v1/projects/" + w.ProjectID + "/groups?query="
		pay, tpl, dsk := "Payment TIMEOUT for order <int>", "template missing", "disk full"
		for _, c := range []struct {
			query string
			want  []string
		}{
			{"", []string{pay, dsk, tpl}},
			{"timeout", []string{pay}},
			{"PAYMENT time", []string{pay}}, // every word, any case, prefixes
			{"ayment IMEO", []string{pay}},  // and the middle of a word (the trigram indexes)
			{"sk fu", []string{dsk}},        // words under three characters
			{"payment !timeout", nil},
			{"!timeout", []string{dsk, tpl}},
			{`"for order"`, []string{pay}},
			{`"order 7"`, []string{pay}}, // the first sample's message
			{`"order 8"`, []string{pay}}, // and the latest's
			{`"order 7 order 8"`, nil},   // but no phrase across the two
			{"is:unresolved", []string{pay, tpl}},
			{"!is:unresolved", []string{dsk}},
			{"is:resolved", []string{dsk}},
			{"is:unassigned", []string{pay, dsk, tpl}},
			{"is:assigned", nil},
			{"assigned:none", []string{pay, dsk, tpl}},
			{"assigned:me", nil},
			{"level:fatal", []string{tpl}},
			{"level:>=error", []string{pay, tpl}},
			{"level:<error", []string{dsk}},
			{"service:api", []string{pay, dsk}},
			{"service:web environment:staging", []string{tpl}},
			{"environment:production", []string{pay, dsk}},
			{"release:2.0", []string{tpl}},
			{"!release:2.0", []string{pay, dsk}},
			{"events:2", []string{pay}},
			{"events:>1", []string{pay}},
			{"events:<=1", []string{dsk, tpl}},
			{"first_seen:-1h", []string{pay, dsk, tpl}},
			{"last_seen:<-1h", nil},
			{"last_seen:>2000-01-01", []string{pay, dsk, tpl}},
			{"first_seen:<2000-01-01T00:00:00Z", nil},
			{"trace_id:4bf92f3577b34da6a3ce929d0e0e4736", []string{dsk}},
			{"has:release", []string{pay, dsk, tpl}},
			{"users:0", []string{dsk, tpl}},
			{"users:>=2", []string{pay}},
			{"region:eu", []string{pay}},
			{`region:"eu west"`, []string{pay}},
			{"tags.region:us", []string{tpl}},
			{"!region:eu", []string{dsk, tpl}},
			{"user.id:u2 user.id:u1", []string{pay}},
			{"has:region", []string{pay, tpl}},
			{"!has:region", []string{dsk}},
			{"region:EU", nil},
			{"nothing-like-it", nil},
			{"note:" + longNote, []string{tpl}}, // counted cut to 200 characters, searched the same way
			// An attribute compares as a number where its values are numbers.
			{"amount:>100", []string{pay}},
			{"amount:<1e2", []string{pay}}, // its "80"
			{"amount:>1000", nil},
			{"!amount:>100", []string{dsk, tpl}},
			{"amount:>=-5 service:web", nil}, // "n/a" is no number
		} {
			if got := titles(t, s, w.Viewer.Token, base+url.QueryEscape(c.query)); !slices.Equal(got, c.want) {
				t.Errorf("groups?query=%s = %q, want %q", c.query, got, c.want)
			}
		}
		// A date is its whole day, whatever the operator.
		day := groupByTitle(t, s, w.Viewer.Token, w.ProjectID, "Payment")["first_seen"].(string)[:len("2006-01-02")]
		for op, want := range map[string][]string{"": {pay, dsk, tpl}, "<=": {pay, dsk, tpl}, ">=": {pay, dsk, tpl}, ">": nil, "<": nil} {
			q := "first_seen:" + op + day + " last_seen:" + op + day
			if got := titles(t, s, w.Viewer.Token, base+url.QueryEscape(q)); !slices.Equal(got, want) {
				t.Errorf("groups?query=%s = %q, want %q", q, got, want)
			}
		}
		// Assignment: is:assigned, assigned:me (the caller) and assigned:<email>.
		payID := groupByTitle(t, s, w.Viewer.Token, w.ProjectID, "Payment")["id"].(string)
		patchJSON(s, w.Member.Token, "/v1/groups/"+payID, map[string]any{"assignee_id": w.Member.MemberID}).Expect(t, http.StatusOK, "")
		for _, c := range []struct {
			token, query string
			want         []string
		}{
			{w.Viewer.Token, "is:assigned", []string{pay}},
			{w.Viewer.Token, "is:unassigned", []string{dsk, tpl}},
			{w.Viewer.Token, "assigned:none", []string{dsk, tpl}},
			{w.Member.Token, "assigned:me", []string{pay}},
			{w.Viewer.Token, "assigned:me", nil},
			{w.Viewer.Token, "assigned:Member@Example.com", []string{pay}},
			{w.Viewer.Token, "assigned:viewer@example.com", nil},
			{w.Member.Token, "!assigned:me", []string{dsk, tpl}},
		} {
			if got := titles(t, s, c.token, base+url.QueryEscape(c.query)); !slices.Equal(got, c.want) {
				t.Errorf("groups?query=%s = %q, want %q", c.query, got, c.want)
			}
		}
		if got := items(t, s, w.Member.Token, "/v1/projects/"+w.ProjectID+"/tickets?query=assigned:me"); len(got) != 1 {
			t.Errorf("tickets?query=assigned:me = %d tickets, want 1", len(got))
		}
		patchJSON(s, w.Member.Token, "/v1/groups/"+payID, map[string]any{"assignee_id": nil}).Expect(t, http.StatusOK, "")

		// With the other filters and sorts.
		if got := titles(t, s, w.Viewer.Token, base+"timeout&service=web"); got != nil {
			t.Errorf("timeout&service=web = %q", got)
		}
		if got := items(t, s, w.Viewer.Token, base+"service:api&sort=event_count&limit=100"); len(got) != 2 || got[0]["title"] != pay {
			t.Errorf("service:api sorted by events = %v", got)
		}
		for _, q := range []string{"is:", "level:loud", "events:>many", `region:"eu`, "severity:>high", "region:>eu", "a\x01"} { // severity: is an attribute on groups
			r := s.Do(apitest.Request{Method: "GET", Path: base + url.QueryEscape(q), Token: w.Viewer.Token})
			r.Expect(t, http.StatusUnprocessableEntity, "validation-failed")
			if d := r.Str(t, "detail"); !strings.Contains(d, "query") {
				t.Errorf("query=%q: detail %q does not name query", q, d)
			}
		}
		r := s.Do(apitest.Request{Method: "GET", Path: base + "is:unresolved&sort=sideways", Token: w.Viewer.Token})
		r.Expect(t, http.StatusUnprocessableEntity, "validation-failed")

		// Cursors page within their query and sort, and only there.
		pages := pageAll(t, s, w.Viewer.Token, base+"is:unresolved&limit=1&sort=last_seen", "")
		if len(pages) != 2 {
			t.Fatalf("is:unresolved pages of 1 = %v", pages)
		}
		first := getJSON(t, s, w.Viewer.Token, base+"is:unresolved&limit=1")
		cursor := url.QueryEscape(first["next_cursor"].(string))
		s.Do(apitest.Request{Method: "GET", Path: base + "is:resolved&limit=1&cursor=" + cursor, Token: w.Viewer.Token}).
			Expect(t, http.StatusUnprocessableEntity, "validation-failed")
		s.Do(apitest.Request{Method: "GET", Path: base + "is:unresolved&limit=1&sort=users&cursor=" + cursor, Token: w.Viewer.Token}).
			Expect(t, http.StatusUnprocessableEntity, "validation-failed")

		// Tickets take the same language, and severity: and reason:.
		tb := "/v1/projects/" + w.ProjectID + "/tickets?limit=100&query="
		for _, c := range []struct {
			query string
			want  []string
		}{
			{"timeout", []string{pay}},
			{"is:resolved", []string{dsk}},
			{"is:open service:web", []string{tpl}},
			{"reason:new !severity:medium level:fatal", []string{tpl}},
			{"is:unresolved", []string{pay, tpl}},
		} {
			var got []string
			for _, tk := range items(t, s, w.Viewer.Token, tb+url.QueryEscape(c.query)) {
				got = append(got, tk["title"].(string))
			}
			sort.Strings(got)
			if !slices.Equal(got, c.want) {
				t.Errorf("tickets?query=%s = %q, want %q", c.query, got, c.want)
			}
		}
		s.Do(apitest.Request{Method: "GET", Path: tb + "severity:low", Token: w.Viewer.Token}).Expect(t, http.StatusUnprocessableEntity, "validation-failed")
		if got := items(t, s, w.Viewer.Token, tb+"&sort=users"); len(got) != 3 || got[0]["title"] != pay || got[0]["user_count"] != float64(2) {
			t.Errorf("tickets sorted by users = %v", got)
		}
	})
}

func TestSearchGroupEvents(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		for _, e := range []map[string]any{
			ev("card declined for u1", "error", "environment", "production", "release", "1.0", "attributes", map[string]any{"fingerprint": "card", "user.id": "u1", "plan": 3, "amount": 7.5,
				"user_agent": "Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0"}),
			ev("card declined for u2", "fatal", "environment", "staging", "trace_id", "abc123", "attributes", map[string]any{"fingerprint": "card", "user": map[string]any{"id": "u2"}, "amount": "12", "exp": json.Number("1e3")}),
			ev("Überweisung abgelehnt", "error", "trace_id", "DEADBEEF01", "span_id", "AB12", "attributes", map[string]any{"fingerprint": "transfer", "region": "us",
				"retried": true, "big": json.Number("12345678901234567890"), "ratio": json.Number("1.50"), "city": "Zürich", "région": "eu"}),
		} {
			feed(t, s, w.Key, batchOf("api", e))
		}
		gid := groupByTitle(t, s, w.Viewer.Token, w.ProjectID, "card")["id"].(string)
		base := "/v1/groups/" + gid + "/events?query="
		for _, c := range []struct {
			query string
			want  []string
		}{
			{"", []string{"card declined for u1", "card declined for u2"}},
			{"U2", []string{"card declined for u2"}},
			// A negated attribute holds for events without the attribute.
			{"!region:eu", []string{"card declined for u1", "card declined for u2"}},
			{"!user.id:u1 !region:us", []string{"card declined for u2"}},
			{"level:fatal", []string{"card declined for u2"}},
			{"environment:production release:1.0", []string{"card declined for u1"}},
			{"trace_id:abc123", []string{"card declined for u2"}},
			{"trace_id:ABC123", []string{"card declined for u2"}},
			{"user.id:u1", []string{"card declined for u1"}},
			{"user.id:u2", []string{"card declined for u2"}},
			{"plan:3", []string{"card declined for u1"}},
			{"plan:>=3", []string{"card declined for u1"}},
			{"amount:>10", []string{"card declined for u2"}},
			{"amount:<=7.5", []string{"card declined for u1"}},
			{"amount:>=7.5", []string{"card declined for u1", "card declined for u2"}},
			{"!amount:>10", []string{"card declined for u1"}},
			{"exp:1e3", []string{"card declined for u2"}}, // as written, on both databases
			{"exp:1000", nil},
			{"exp:>999", []string{"card declined for u2"}},
			{"has:plan", []string{"card declined for u1"}},
			{"!has:trace_id", []string{"card declined for u1"}},
			{"browser:Firefox", []string{"card declined for u1"}}, // derived from the user agent
			{"os:Linux has:browser", []string{"card declined for u1"}},
			{"!has:os", []string{"card declined for u2"}},
			{"service:api timestamp:-1h", []string{"card declined for u1", "card declined for u2"}},
			{"service:web", nil},
		} {
			var got []string
			for _, e := range items(t, s, w.Viewer.Token, base+url.QueryEscape(c.query)) {
				got = append(got, e["message"].(string))
			}
			sort.Strings(got)
			if !slices.Equal(got, c.want) {
				t.Errorf("events?query=%s = %q, want %q", c.query, got, c.want)
			}
		}
		transfer := "/v1/groups/" + groupByTitle(t, s, w.Viewer.Token, w.ProjectID, "Überweisung")["id"].(string) + "/events?query="
		for _, c := range []struct {
			query string
			n     int
		}{
			// Case is ignored beyond ASCII, on both databases.
			{"überweisung", 1}, {"ÜBERWEISUNG", 1}, {"ABGELEHNT", 1},
			{"!region:eu", 1}, {"!region:us", 0}, {"region:us", 1},
			// Hexadecimal ids sent in upper case are found in either case.
			{"trace_id:deadbeef01", 1}, {"trace_id:DEADBEEF01 span_id:ab12", 1}, {"span_id:AB12", 1},
			// Booleans and numbers as written, on both databases.
			// Keys of any script.
			{"région:eu", 1}, {"has:région", 1}, {"!région:eu", 0},
			{"retried:true", 1}, {"retried:1", 0}, {"big:12345678901234567890", 1}, {"ratio:1.50", 1}, {"city:Zürich", 1}, {"has:retried", 1},
		} {
			if got := items(t, s, w.Viewer.Token, transfer+url.QueryEscape(c.query)); len(got) != c.n {
				t.Errorf("transfer events?query=%s: %d events, want %d", c.query, len(got), c.n)
			}
		}
		if got := items(t, s, w.Viewer.Token, "/v1/projects/"+w.ProjectID+"/groups?query="+url.QueryEscape("région:eu")); len(got) != 1 {
			t.Errorf("groups?query=région:eu: %d groups, want 1", len(got))
		}
		s.Do(apitest.Request{Method: "GET", Path: base + "is:resolved", Token: w.Viewer.Token}).Expect(t, http.StatusUnprocessableEntity, "validation-failed")
		first := getJSON(t, s, w.Viewer.Token, base+"card&limit=1")
		s.Do(apitest.Request{Method: "GET", Path: base + "declined&limit=1&cursor=" + url.QueryEscape(first["next_cursor"].(string)), Token: w.Viewer.Token}).
			Expect(t, http.StatusUnprocessableEntity, "validation-failed")
	})
}

func TestGroupFacets(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		const firefox = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:120.0) Gecko/20100101 Firefox/120.0"
		const chrome = "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36"
		attrs := func(user, region, agent string) map[string]any {
			return map[string]any{"fingerprint": "f", "user.id": user, "tags.region": region, "http.user_agent": agent, "server_name": "web-1"}
		}
		feed(t, s, w.Key, map[string]any{"service": "api", "environment": "production", "release": "1.0", "events": []any{
			ev("boom", "error", "attributes", attrs("u1", "eu", firefox)),
			ev("boom", "error", "attributes", attrs("u1", "eu", chrome)),
			ev("boom", "error", "attributes", attrs("u2", "us", firefox), "environment", "staging"),
			ev("boom", "error", "attributes", map[string]any{"fingerprint": "f", "browser": "Safari", "user_agent": firefox}),
		}})
		g := groupByTitle(t, s, w.Viewer.Token, w.ProjectID, "boom")
		if g["user_count"] != float64(2) {
			t.Errorf("user_count = %v, want 2", g["user_count"])
		}
		gid := g["id"].(string)
		type value struct {
			Value string
			Count float64
			Share float64
		}
		facets := func(q string) map[string][]value {
			out := map[string][]value{}
			for _, f := range getJSON(t, s, w.Viewer.Token, "/v1/groups/"+gid+"/facets"+q)["data"].([]any) {
				f := f.(map[string]any)
				var vs []value
				for _, v := range f["values"].([]any) {
					v := v.(map[string]any)
					vs = append(vs, value{v["value"].(string), v["count"].(float64), v["share"].(float64)})
				}
				out[f["key"].(string)] = vs
			}
			return out
		}
		got := facets("")
		if body := getJSON(t, s, w.Viewer.Token, "/v1/groups/"+gid+"/facets"); body["next_cursor"] != nil || !hasKey(body, "next_cursor") {
			t.Errorf("facets' next_cursor = %v (present %v), want null as every list's", body["next_cursor"], hasKey(body, "next_cursor"))
		}
		if len(got) != 8 {
			t.Errorf("default keys = %v, want 8", got)
		}
		want := map[string][]value{
			"environment": {{"production", 3, 0.75}, {"staging", 1, 0.25}},
			"user.id":     {{"u1", 2, 2.0 / 3}, {"u2", 1, 1.0 / 3}},
			"browser":     {{"Firefox", 2, 0.5}, {"Chrome", 1, 0.25}, {"Safari", 1, 0.25}},
			"os":          {{"Windows", 3, 0.75}, {"macOS", 1, 0.25}},
			"server_name": {{"web-1", 3, 1}},
			"request.url": nil,
		}
		for k, w := range want {
			if fmt.Sprint(got[k]) != fmt.Sprint(w) {
				t.Errorf("facet %s = %v, want %v", k, got[k], w)
			}
		}
		if got := facets("?keys=region,+environment"); len(got) != 2 || fmt.Sprint(got["region"]) != fmt.Sprint([]value{{"eu", 2, 2.0 / 3}, {"us", 1, 1.0 / 3}}) {
			t.Errorf("keys=region,environment = %v", got)
		}
		// A Sentry tag's key is the attribute it is counted under, answered as asked.
		if got := facets("?keys=tags.region"); fmt.Sprint(got["tags.region"]) != fmt.Sprint([]value{{"eu", 2, 2.0 / 3}, {"us", 1, 1.0 / 3}}) {
			t.Errorf("keys=tags.region = %v, want the counts of region", got)
		}
		// A key named twice is answered once.
		twice := s.Do(apitest.Request{Method: "GET", Path: "/v1/groups/" + gid + "/facets?keys=region,environment,region", Token: w.Viewer.Token}).Expect(t, http.StatusOK, "")
		if data, _ := twice.JSON(t)["data"].([]any); len(data) != 2 {
			t.Errorf("keys=region,environment,region answered %d keys, want 2: %s", len(data), twice.Body)
		}
		s.Do(apitest.Request{Method: "GET", Path: "/v1/groups/" + gid + "/facets?keys=a%20b", Token: w.Viewer.Token}).Expect(t, http.StatusUnprocessableEntity, "validation-failed")
		s.Do(apitest.Request{Method: "GET", Path: "/v1/groups/grp_nothing/facets", Token: w.Viewer.Token}).Expect(t, http.StatusNotFound, "not-found")
		s.Do(apitest.Request{Method: "GET", Path: "/v1/groups/" + gid + "/facets", Token: w.Outsider.Token}).Expect(t, http.StatusNotFound, "not-found")

		// A merge adds the merged group's counts and users to the target's.
		feed(t, s, w.Key, map[string]any{"service": "api", "environment": "production", "events": []any{
			ev("other boom", "error", "attributes", map[string]any{"fingerprint": "g", "user.id": "u3", "region": "eu"}, "trace_id", "t-merged"),
			ev("other boom", "error", "attributes", map[string]any{"fingerprint": "g", "user.id": "u1"}),
		}})
		other := groupByTitle(t, s, w.Viewer.Token, w.ProjectID, "other boom")["id"].(string)
		s.Do(apitest.Request{Method: "POST", Path: "/v1/groups/" + gid + "/merge", Token: w.Member.Token, Body: map[string]any{"group_ids": []string{other}}}).
			Expect(t, http.StatusOK, "")
		if g := getJSON(t, s, w.Viewer.Token, "/v1/groups/"+gid); g["user_count"] != float64(3) {
			t.Errorf("user_count after the merge = %v, want 3", g["user_count"])
		}
		// The merged group keeps neither events nor users: they are the target's.
		if g := getJSON(t, s, w.Viewer.Token, "/v1/groups/"+other); g["event_count"] != float64(0) || g["user_count"] != float64(0) {
			t.Errorf("merged group: event_count %v, user_count %v, want 0 and 0", g["event_count"], g["user_count"])
		}
		got = facets("?keys=region,user.id")
		if fmt.Sprint(got["region"]) != fmt.Sprint([]value{{"eu", 3, 0.75}, {"us", 1, 0.25}}) || len(got["user.id"]) != 3 {
			t.Errorf("facets after the merge = %v", got)
		}
		look := getJSON(t, s, w.Viewer.Token, "/v1/orgs/"+w.OrgID+"/lookup?trace_id=t-merged")["groups"].([]any)
		if len(look) != 1 || look[0].(map[string]any)["id"] != gid {
			t.Errorf("lookup after the merge = %v", look)
		}
	})
}

func hasKey(m map[string]any, k string) bool { _, ok := m[k]; return ok }
