package httpapi_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/apitest"
)

const javaTrace = "java.lang.IllegalStateException: boom 42\n\tat com.acme.Foo.bar(Foo.java:10)\n\tat java.lang.Thread.run(Thread.java:1)\n"

func TestGroupFieldsAndFilters(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		feed(t, s, w.Key, map[string]any{"service": "api", "environment": "staging", "release": "1.0", "events": []any{
			ev("boom 42", "error", "stack_trace", javaTrace),
			ev("boom 43", "fatal", "stack_trace", javaTrace, "environment", "prod", "release", "1.1"),
			ev("disk full on /dev/sda1", "warn", "attributes", map[string]any{"fingerprint": "disk"}),
		}})
		feed(t, s, w.Key, map[string]any{"service": "web", "environment": "prod", "events": []any{ev("template 7 missing", "error")}})
		g := groupByTitle(t, s, w.Viewer.Token, w.ProjectID, "IllegalStateException")
		if !strings.HasPrefix(g["id"].(string), "grp_") || g["project_id"] != w.ProjectID || g["service"] != "api" || g["level"] != "fatal" ||
			g["status"] != "unresolved" || g["fingerprint_rule"] != "stacktrace" || g["exception_type"] != "java.lang.IllegalStateException" ||
			g["culprit"] != "com.acme.Foo.bar" || g["event_count"] != float64(2) || g["fingerprint"] == "" ||
			!slices.Equal(toStrings(g["environments"]), []string{"staging", "prod"}) || !slices.Equal(toStrings(g["releases"]), []string{"1.0", "1.1"}) {
			t.Errorf("stack trace group = %v", g)
		}
		if g := groupByTitle(t, s, w.Viewer.Token, w.ProjectID, "disk"); g["fingerprint_rule"] != "custom" || g["level"] != "warn" {
			t.Errorf("custom fingerprint group = %v", g)
		}
		if g := groupByTitle(t, s, w.Viewer.Token, w.ProjectID, "template"); g["fingerprint_rule"] != "message" || g["level"] != "error" ||
			g["culprit"] != "" || g["exception_type"] != "" {
			t.Errorf("message group = %v", g)
		}
		base := "/v1/projects/" + w.ProjectID + "/groups?"
		for _, tc := range []struct {
			query string
			want  int
		}{
			{"", 3}, {"service=api", 2}, {"service=web", 1}, {"environment=prod", 2}, {"environment=staging", 2},
			{"status=unresolved", 3}, {"status=ignored", 0}, {"service=api&environment=prod", 1},
		} {
			if got := items(t, s, w.Viewer.Token, base+tc.query); len(got) != tc.want {
				t.Errorf("groups?%s = %d, want %d", tc.query, len(got), tc.want)
			}
		}
		s.Do(apitest.Request{Method: "GET", Path: base + "status=open", Token: w.Viewer.Token}).Expect(t, http.StatusUnprocessableEntity, "validation-failed")
		s.Do(apitest.Request{Method: "GET", Path: base + "limit=101", Token: w.Viewer.Token}).Expect(t, http.StatusUnprocessableEntity, "validation-failed")
		pages := pageAll(t, s, w.Viewer.Token, base+"limit=2", "")
		if len(pages) != 2 || len(slices.Concat(pages...)) != 3 {
			t.Errorf("group pages of 2 = %v", pages)
		}
		patchJSON(s, w.Member.Token, "/v1/groups/"+g["id"].(string), map[string]any{"status": "muted"}).Expect(t, http.StatusUnprocessableEntity, "validation-failed")
	})
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}

func TestIgnoreAndResolveGroup(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		noisy := batchOf("api", ev("noisy retry", "error"))
		feed(t, s, w.Key, noisy)
		gid := groupByTitle(t, s, w.Viewer.Token, w.ProjectID, "noisy")["id"].(string)
		tid := ticketOf(t, s, w.Viewer.Token, gid)["id"].(string)

		g := patchJSON(s, w.Member.Token, "/v1/groups/"+gid, map[string]any{"status": "ignored"}).Expect(t, http.StatusOK, "").JSON(t)
		if g["status"] != "ignored" || g["id"] != gid {
			t.Fatalf("ignored group = %v", g)
		}
		if tk := getJSON(t, s, w.Viewer.Token, "/v1/tickets/"+tid); tk["status"] != "resolved" || tk["resolved_at"] == nil {
			t.Errorf("ticket of the ignored group = %v, want resolved", tk)
		}
		feed(t, s, w.Key, noisy)
		feed(t, s, w.Key, noisy)
		if open := items(t, s, w.Viewer.Token, "/v1/projects/"+w.ProjectID+"/tickets?status=open"); len(open) != 0 {
			t.Errorf("open tickets after events of an ignored group = %v, want none", open)
		}
		if g := getJSON(t, s, w.Viewer.Token, "/v1/groups/"+gid); g["status"] != "ignored" || g["event_count"] != float64(3) || g["ticket_id"] != tid {
			t.Errorf("ignored group after events = %v, want still ignored, counting 3", g)
		}
		if got := items(t, s, w.Viewer.Token, "/v1/projects/"+w.ProjectID+"/groups?status=ignored"); len(got) != 1 {
			t.Errorf("ignored groups = %d, want 1", len(got))
		}
		g = patchJSON(s, w.Member.Token, "/v1/groups/"+gid, map[string]any{"status": "unresolved"}).Expect(t, http.StatusOK, "").JSON(t)
		if g["status"] != "unresolved" {
			t.Errorf("unresolved group = %v", g)
		}

		// Resolving a group resolves its open ticket; its next event regresses.
		feed(t, s, w.Key, batchOf("api", ev("queue backlog growing", "fatal")))
		other := groupByTitle(t, s, w.Viewer.Token, w.ProjectID, "backlog")["id"].(string)
		first := ticketOf(t, s, w.Viewer.Token, other)["id"].(string)
		patchJSON(s, w.Member.Token, "/v1/groups/"+other, map[string]any{"status": "resolved"}).Expect(t, http.StatusOK, "")
		if tk := getJSON(t, s, w.Viewer.Token, "/v1/tickets/"+first); tk["status"] != "resolved" {
			t.Errorf("ticket of the resolved group = %v, want resolved", tk)
		}
		feed(t, s, w.Key, batchOf("api", ev("queue backlog growing", "fatal")))
		if tk := ticketOf(t, s, w.Viewer.Token, other); tk["id"] == first || tk["facts"].(map[string]any)["reason"] != "regression" || tk["severity"] != "critical" {
			t.Errorf("ticket after the resolved group's next event = %v, want a critical regression", tk)
		}
	})
}

func TestGroupEvents(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		attrs := map[string]any{"password": "hunter2", "X-Session-Token": "abc", "user": "u1"}
		// The first batch stores the first event and its latest; samples
		// after that are taken at most once a second per group.
		feed(t, s, w.Key, map[string]any{"service": "api", "environment": "prod", "release": "3", "events": []any{
			ev("boom 0", "error", "stack_trace", javaTrace, "attributes", attrs, "trace_id", "t0", "span_id", "s0",
				"timestamp", "2026-01-02T03:04:05.678Z"),
			ev("boom 1", "error", "stack_trace", javaTrace),
		}})
		for i := 2; i <= 4; i++ {
			feed(t, s, w.Key, batchOf("api", ev(fmt.Sprintf("boom %d", i), "error", "stack_trace", javaTrace)))
		}
		s.Clock.Advance(1100 * time.Millisecond) // past the one-sample-a-second limit
		feed(t, s, w.Key, batchOf("api", ev("boom 5", "error", "stack_trace", javaTrace)))
		g := groupByTitle(t, s, w.Viewer.Token, w.ProjectID, "IllegalStateException")
		if g["event_count"] != float64(6) {
			t.Errorf("group counts %v events, want 6", g["event_count"])
		}
		events := items(t, s, w.Viewer.Token, "/v1/groups/"+g["id"].(string)+"/events?limit=100")
		var msgs []string
		for _, e := range events {
			msgs = append(msgs, e["message"].(string))
		}
		if len(msgs) < 3 || len(msgs) > 11 || msgs[0] != "boom 5" || msgs[len(msgs)-1] != "boom 0" || !slices.Contains(msgs, "boom 1") {
			t.Fatalf("sample events = %v, want the latest first, the first event last, at most 1 + 10", msgs)
		}
		if got := ids(events); !slices.IsSortedFunc(got, func(a, b string) int { return cmpNumeric(b, a) }) || len(slices.Compact(slices.Clone(got))) != len(got) {
			t.Errorf("event ids %v are not distinct and newest first", got)
		}
		path := "/v1/groups/" + g["id"].(string) + "/events?limit=2"
		if pages := pageAll(t, s, w.Viewer.Token, path, ""); !slices.Equal(slices.Concat(pages...), ids(events)) || len(pages[len(pages)-1]) == 0 {
			t.Errorf("event pages of 2 = %v, want %v", pages, ids(events))
		}
		first := events[len(events)-1]
		if first["first"] != true || events[0]["first"] != false {
			t.Errorf("first flags = %v / %v", first["first"], events[0]["first"])
		}
		a := first["attributes"].(map[string]any)
		if a["password"] != "[redacted]" || a["X-Session-Token"] != "[redacted]" || a["user"] != "u1" {
			t.Errorf("stored attributes = %v, want secrets redacted", a)
		}
		if first["level"] != "error" || first["environment"] != "prod" || first["release"] != "3" || first["trace_id"] != "t0" ||
			first["span_id"] != "s0" || first["timestamp"] != "2026-01-02T03:04:05.678Z" || first["stack_trace"] != javaTrace ||
			!apiTimeRe.MatchString(first["received_at"].(string)) {
			t.Errorf("first event = %v", first)
		}
		if events[0]["attributes"] == nil {
			t.Errorf("an event without attributes shows %v, want {}", events[0]["attributes"])
		}
		if g["first_seen"] != "2026-01-02T03:04:05.678Z" {
			t.Errorf("group first_seen = %v, want the first event's timestamp", g["first_seen"])
		}
		// Cursors of this list only: not altered, not another group's.
		feed(t, s, w.Key, batchOf("api", ev("other failure", "error"), ev("other failure", "error")))
		other := groupByTitle(t, s, w.Viewer.Token, w.ProjectID, "other failure")["id"].(string)
		foreign := getJSON(t, s, w.Viewer.Token, "/v1/groups/"+other+"/events?limit=1")["next_cursor"].(string)
		cursor := getJSON(t, s, w.Viewer.Token, path)["next_cursor"].(string)
		for _, c := range []string{cursor + "x", "bogus", foreign} {
			r := s.Do(apitest.Request{Method: "GET", Path: path + "&cursor=" + url.QueryEscape(c), Token: w.Viewer.Token}).Expect(t, http.StatusUnprocessableEntity, "validation-failed")
			if !strings.Contains(r.Str(t, "detail"), "cursor") {
				t.Errorf("detail %q does not name cursor", r.Str(t, "detail"))
			}
		}
	})
}

// cmpNumeric compares two decimal ids.
func cmpNumeric(a, b string) int {
	x, _ := strconv.ParseInt(a, 10, 64)
	y, _ := strconv.ParseInt(b, 10, 64)
	return int(x - y)
}

// TestEnvironmentFilterIsExact: the environment filter of the group and
// ticket lists and the query's environment: term match the environment as
// events carried it, case and all, on both databases (SQLite's LIKE
// ignored the case of ASCII letters, PostgreSQL's did not).
func TestEnvironmentFilterIsExact(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		for _, env := range []string{"prod", "Prod"} {
			b := batchOf("svc-"+env, ev("down in "+env, "error"))
			b["environment"] = env
			feed(t, s, w.Key, b)
		}
		base := "/v1/projects/" + w.ProjectID
		for path, want := range map[string]int{
			"/groups?environment=prod": 1, "/groups?environment=Prod": 1, "/groups?environment=PROD": 0,
			"/tickets?environment=prod": 1, "/tickets?environment=PROD": 0,
			"/groups?query=environment:Prod": 1, "/groups?query=environment:PROD": 0, "/tickets?query=environment:prod": 1,
		} {
			if got := len(items(t, s, w.Owner.Token, base+path)); got != want {
				t.Errorf("%s: %d items, want %d", path, got, want)
			}
		}
	})
}
