package httpapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
)

func TestLookupByTraceAndEventID(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		const trace = "4bf92f3577b34da6a3ce929d0e0e4736"
		// Twenty events of one group share a trace id: most are not stored
		// samples, the index still has them; another group shares it too.
		var evs []any
		for range 20 {
			evs = append(evs, ev("card declined", "error", "attributes", map[string]any{"fingerprint": "card"}, "trace_id", "other-trace"))
		}
		evs = append(evs, ev("card declined", "error", "attributes", map[string]any{"fingerprint": "card"}, "trace_id", trace))
		evs = append(evs, ev("stock low", "error", "attributes", map[string]any{"fingerprint": "stock"}, "trace_id", trace))
		feed(t, s, w.Key, map[string]any{"service": "api", "events": evs})

		_, key, dsn := s.CreateKeyDSN(t, w.Owner.Token, w.ProjectID)
		number := dsn[strings.LastIndex(dsn, "/")+1:]
		s.Do(apitest.Request{Method: "POST", Path: "/api/" + number + "/store/?sentry_key=" + key,
			Headers: map[string]string{"User-Agent": "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:120.0) Gecko/20100101 Firefox/120.0"},
			Body:    map[string]any{"event_id": "9ec79c33ec9942838353589fcb2e04dc", "message": "checkout failed", "level": "error"}}).Expect(t, http.StatusOK, "")
		drain(t, s)
		// The browser that sent it is the event's (CONTRACT 8: the Sentry
		// request's User-Agent header).
		checkout := groupByTitle(t, s, w.Viewer.Token, w.ProjectID, "checkout failed")["id"].(string)
		facets := getJSON(t, s, w.Viewer.Token, "/v1/groups/"+checkout+"/facets?keys=browser,os")
		if got := fmt.Sprint(facets); !strings.Contains(got, "Firefox") || !strings.Contains(got, "Windows") {
			t.Errorf("facets of the Sentry event sent by Firefox on Windows = %s", got)
		}

		look := func(token, q string) (groups []string, events []map[string]any) {
			t.Helper()
			body := getJSON(t, s, token, "/v1/orgs/"+w.OrgID+"/lookup?"+q)
			for _, g := range body["groups"].([]any) {
				groups = append(groups, g.(map[string]any)["title"].(string))
			}
			for _, e := range body["events"].([]any) {
				events = append(events, e.(map[string]any))
			}
			return groups, events
		}
		groups, events := look(w.Viewer.Token, "trace_id="+trace)
		if len(groups) != 2 || !strings.Contains(strings.Join(groups, ","), "card declined") || !strings.Contains(strings.Join(groups, ","), "stock low") {
			t.Errorf("trace groups = %q", groups)
		}
		for _, e := range events {
			if e["trace_id"] != trace || e["group_id"] == "" {
				t.Errorf("trace event = %v", e)
			}
		}
		if groups, _ := look(w.Viewer.Token, "trace_id=other-trace"); len(groups) != 1 {
			t.Errorf("other-trace groups = %q", groups)
		}
		groups, events = look(w.Viewer.Token, "event_id=9EC79C33-EC99-4283-8353-589FCB2E04DC")
		if len(groups) != 1 || groups[0] != "checkout failed" || len(events) != 1 || events[0]["message"] != "checkout failed" {
			t.Errorf("event id lookup = %q %v", groups, events)
		}
		sample := events[0]["id"].(string)
		if groups, events := look(w.Viewer.Token, "event_id="+sample); len(groups) != 1 || len(events) != 1 || events[0]["id"] != sample {
			t.Errorf("stored event lookup = %q %v", groups, events)
		}
		// The trace_id: term of the group list finds a trace that only an
		// event that was not kept as a sample carried (the first and the
		// last of a batch are kept), as the lookup does.
		mid := []any{}
		for _, tr := range []string{"t-first", "t-middle", "t-last"} {
			mid = append(mid, ev("quota exceeded", "error", "attributes", map[string]any{"fingerprint": "quota"}, "trace_id", tr))
		}
		feed(t, s, w.Key, map[string]any{"service": "api", "events": mid})
		drain(t, s)
		quota := groupByTitle(t, s, w.Viewer.Token, w.ProjectID, "quota exceeded")["id"].(string)
		if kept := items(t, s, w.Viewer.Token, "/v1/groups/"+quota+"/events?query=trace_id:t-middle"); len(kept) != 0 {
			t.Fatalf("the middle event was kept as a sample (%v): the check below would prove nothing", kept)
		}
		if got := titles(t, s, w.Viewer.Token, "/v1/projects/"+w.ProjectID+"/groups?query=trace_id:t-middle"); len(got) != 1 || got[0] != "quota exceeded" {
			t.Errorf("groups?query=trace_id:t-middle = %q, want the quota group", got)
		}
		if got := titles(t, s, w.Viewer.Token, "/v1/projects/"+w.ProjectID+"/groups?query=trace_id:"+strings.ToUpper(trace)); len(got) != 2 {
			t.Errorf("groups?query=trace_id:<upper case> = %q, want the 2 groups of the trace", got)
		}
		// A trace id in upper case finds the lower-case one events carry.
		if groups, _ := look(w.Viewer.Token, "trace_id="+strings.ToUpper(trace)); len(groups) != 2 {
			t.Errorf("upper-case trace groups = %q, want 2", groups)
		}
		if groups, events := look(w.Viewer.Token, "trace_id=nothing"); len(groups) != 0 || len(events) != 0 {
			t.Errorf("unknown trace = %q %v", groups, events)
		}
		// Another organization's ids are not found, its lookup not reached.
		if groups, _ := look(w.Viewer.Token, "event_id=9ec79c33ec9942838353589fcb2e04dd"); len(groups) != 0 {
			t.Errorf("unknown event = %q", groups)
		}
		body := getJSON(t, s, w.Outsider.Token, "/v1/orgs/"+w.OtherOrgID+"/lookup?trace_id="+trace)
		if len(body["groups"].([]any)) != 0 {
			t.Errorf("other organization's lookup = %v", body)
		}
		if len(getJSON(t, s, w.Outsider.Token, "/v1/orgs/"+w.OtherOrgID+"/lookup?event_id="+sample)["groups"].([]any)) != 0 {
			t.Errorf("another organization's stored event was found")
		}
		s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs/" + w.OrgID + "/lookup?trace_id=" + trace, Token: w.Outsider.Token}).Expect(t, http.StatusNotFound, "not-found")
		for _, q := range []string{"", "trace_id=a&event_id=b", "event_id=xyz"} {
			s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs/" + w.OrgID + "/lookup?" + q, Token: w.Viewer.Token}).Expect(t, http.StatusUnprocessableEntity, "validation-failed")
		}
	})
}
