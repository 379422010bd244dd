package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
)

func TestEventDetail(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		const trace = "Traceback (most recent call last):\n  File \"app/pay.py\", line 12, in charge\n    raise ValueError(\"x\")\nValueError: card 7 declined"
		feed(t, s, w.Key, map[string]any{"service": "billing", "environment": "production", "release": "1.0", "events": []any{
			ev("card 7 declined", "error", "stack_trace", trace, "trace_id", "abc", "span_id", "def",
				"attributes", map[string]any{"user": map[string]any{"id": 42}, "request.url": "https://shop/pay", "request.method": "POST"}),
		}})
		feed(t, s, w.Key, batchOf("billing", ev("card 8 declined", "error", "stack_trace", trace)))
		gid := groupByTitle(t, s, w.Viewer.Token, w.ProjectID, "ValueError")["id"].(string)
		list := items(t, s, w.Viewer.Token, "/v1/groups/"+gid+"/events")
		if len(list) != 2 {
			t.Fatalf("samples = %d, want 2", len(list))
		}
		newer, older := list[0]["id"].(string), list[1]["id"].(string)
		if !strings.HasPrefix(newer, "evt_") || !strings.HasPrefix(older, "evt_") {
			t.Errorf("event ids %q, %q: want the type prefix evt_ (spec 1: ids are opaque strings with a type prefix)", newer, older)
		}
		// The bare number ids were before still names the event.
		if bare := getJSON(t, s, w.Viewer.Token, "/v1/events/"+strings.TrimPrefix(older, "evt_")); bare["id"] != older {
			t.Errorf("the event by its bare number = %v, want %s", bare["id"], older)
		}
		e := getJSON(t, s, w.Viewer.Token, "/v1/events/"+older)
		keys := []string{"id", "group_id", "project_id", "timestamp", "received_at", "level", "service", "environment", "release", "message",
			"stack_trace", "frames", "attributes", "breadcrumbs", "trace_id", "span_id", "user", "request", "previous_event_id", "next_event_id"}
		if len(e) != len(keys) {
			t.Errorf("event has %d fields, want %d: %v", len(e), len(keys), e)
		}
		for _, k := range keys {
			if _, ok := e[k]; !ok {
				t.Errorf("event lacks %s", k)
			}
		}
		if e["id"] != older || e["group_id"] != gid || e["project_id"] != w.ProjectID || e["service"] != "billing" || e["level"] != "error" ||
			e["environment"] != "production" || e["trace_id"] != "abc" || e["span_id"] != "def" || e["previous_event_id"] != nil || e["next_event_id"] != newer {
			t.Errorf("event = %v", e)
		}
		if u, _ := e["user"].(map[string]any); u["id"] != "42" {
			t.Errorf("user = %v", e["user"])
		}
		if r, _ := e["request"].(map[string]any); r["url"] != "https://shop/pay" || r["method"] != "POST" {
			t.Errorf("request = %v", e["request"])
		}
		frames, _ := e["frames"].([]any)
		if len(frames) != 1 {
			t.Fatalf("frames = %v", e["frames"])
		}
		if f := frames[0].(map[string]any); f["function"] != "charge" || f["line"] != float64(12) || f["in_app"] != true || f["context"] != nil {
			t.Errorf("frame = %v", f)
		}
		if b, _ := e["breadcrumbs"].([]any); b == nil || len(b) != 0 {
			t.Errorf("breadcrumbs = %v", e["breadcrumbs"])
		}
		n := getJSON(t, s, w.Viewer.Token, "/v1/events/"+newer)
		if n["previous_event_id"] != older || n["next_event_id"] != nil || n["user"] != nil || n["request"] != nil {
			t.Errorf("newer event = %v", n)
		}
		for _, bad := range []string{"0", "x", "99999999"} {
			s.Do(apitest.Request{Method: "GET", Path: "/v1/events/" + bad, Token: w.Viewer.Token}).Expect(t, http.StatusNotFound, "not-found")
		}
		s.Do(apitest.Request{Method: "GET", Path: "/v1/events/" + older, Token: w.Outsider.Token}).Expect(t, http.StatusNotFound, "not-found")
	})
}
