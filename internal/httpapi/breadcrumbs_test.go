package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
)

// eventOf is the event detail of the only stored event of the group whose
// title contains title.
func eventOf(t *testing.T, s *apitest.Server, w procWorld, title string) map[string]any {
	t.Helper()
	gid := groupByTitle(t, s, w.Viewer.Token, w.ProjectID, title)["id"].(string)
	list := items(t, s, w.Viewer.Token, "/v1/groups/"+gid+"/events")
	if len(list) != 1 {
		t.Fatalf("samples = %d, want 1", len(list))
	}
	return getJSON(t, s, w.Viewer.Token, "/v1/events/"+list[0]["id"].(string))
}

func crumbsOf(t *testing.T, e map[string]any) []map[string]any {
	t.Helper()
	list, ok := e["breadcrumbs"].([]any)
	if !ok {
		t.Fatalf("breadcrumbs = %v", e["breadcrumbs"])
	}
	out := make([]map[string]any, len(list))
	for k, c := range list {
		out[k] = c.(map[string]any)
	}
	return out
}

func TestSentryEventKeepsBreadcrumbsAndSourceContext(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		_, key, dsn := s.CreateKeyDSN(t, w.Owner.Token, w.ProjectID)
		number := dsn[strings.LastIndex(dsn, "/")+1:]
		var crumbs []any
		for k := range 130 {
			crumbs = append(crumbs, map[string]any{"timestamp": 1764300000.0 + float64(k), "category": "http", "level": "info",
				"message": fmt.Sprintf("step %d", k), "data": map[string]any{"url": "/cart", "api_key": "s3cret"}})
		}
		frame := func(fn string, line int, ctx bool) map[string]any {
			f := map[string]any{"function": fn, "module": "app.pay", "filename": "app/pay.py", "abs_path": "/srv/app/pay.py", "lineno": line,
				"colno": line + 2, "in_app": true} // Python's trace text prints no column: the detail keeps the frame's
			if ctx {
				f["pre_context"] = []string{"def " + fn + "(card):", "    if card.blocked:"}
				f["context_line"] = "        raise ValueError(card)"
				f["post_context"] = []string{"    return ok"}
			}
			return f
		}
		event := map[string]any{"event_id": "0b5d4ae2c2f34f7b9e1c8b3c1d2e3f40", "platform": "python", "level": "error",
			"timestamp": "2026-11-28T10:00:00Z", "breadcrumbs": map[string]any{"values": crumbs},
			"exception": map[string]any{"values": []any{map[string]any{"type": "ValueError", "value": "card 7 declined",
				"stacktrace": map[string]any{"frames": []any{frame("main", 3, false), frame("charge", 12, true)}}}}}}
		payload, _ := json.Marshal(event)
		envelope := `{"event_id":"0b5d4ae2c2f34f7b9e1c8b3c1d2e3f40"}` + "\n" + `{"type":"event"}` + "\n" + string(payload) + "\n"
		s.Do(apitest.Request{Method: "POST", Path: "/api/" + number + "/envelope/?sentry_key=" + key, Body: envelope,
			Headers: map[string]string{"Content-Type": "application/x-sentry-envelope"}}).Expect(t, http.StatusOK, "")
		drain(t, s)

		e := eventOf(t, s, w, "ValueError")
		got := crumbsOf(t, e)
		if len(got) != 100 {
			t.Fatalf("breadcrumbs = %d, want the last 100", len(got))
		}
		first := got[0]
		if first["message"] != "step 30" || first["category"] != "http" || first["level"] != "info" || first["timestamp"] != "2025-11-28T03:20:30.000Z" {
			t.Errorf("first breadcrumb = %v", first)
		}
		if d, _ := first["data"].(map[string]any); d["url"] != "/cart" || d["api_key"] != "[redacted]" {
			t.Errorf("breadcrumb data = %v", first["data"])
		}
		if got[99]["message"] != "step 129" {
			t.Errorf("last breadcrumb = %v", got[99])
		}
		frames, _ := e["frames"].([]any)
		var withCtx, without int
		for _, f := range frames {
			f := f.(map[string]any)
			if f["module"] != "app.pay" { // Python's module as Python names it (CONTRACT 8)
				t.Errorf("frame %v: module %v, want app.pay", f["function"], f["module"])
			}
			if line, _ := f["line"].(float64); f["column"] != line+2 {
				t.Errorf("frame %v: column %v, want the colno sent, %v", f["function"], f["column"], line+2)
			}
			switch f["function"] {
			case "charge":
				withCtx++
				c, _ := f["context"].(map[string]any)
				if c["line"] != "        raise ValueError(card)" || fmt.Sprint(c["pre"]) != "[def charge(card):     if card.blocked:]" || fmt.Sprint(c["post"]) != "[    return ok]" {
					t.Errorf("charge context = %v", f["context"])
				}
			case "main":
				without++
				if f["context"] != nil {
					t.Errorf("main context = %v, want null", f["context"])
				}
			}
		}
		if withCtx != 1 || without != 1 {
			t.Errorf("frames = %v", frames)
		}
	})
}

func TestIngestEventBreadcrumbs(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		var crumbs []any
		for k := range 105 {
			crumbs = append(crumbs, map[string]any{"timestamp": fmt.Sprintf("2026-11-28T10:00:%02dZ", k%60), "category": "ui.click",
				"level": "info", "message": fmt.Sprintf("click %d", k), "data": map[string]any{"target": "#pay", "password": "hunter2"}})
		}
		crumbs = append(crumbs, map[string]any{"message": "only a message", "data": nil, "timestamp": nil})
		feed(t, s, w.Key, batchOf("web", ev("checkout broke", "error", "breadcrumbs", crumbs)))
		got := crumbsOf(t, eventOf(t, s, w, "checkout broke"))
		if len(got) != 100 {
			t.Fatalf("breadcrumbs = %d, want the last 100", len(got))
		}
		if got[0]["message"] != "click 6" || got[0]["timestamp"] != "2026-11-28T10:00:06.000Z" || got[0]["category"] != "ui.click" || got[0]["level"] != "info" {
			t.Errorf("first breadcrumb = %v", got[0])
		}
		if d, _ := got[0]["data"].(map[string]any); d["target"] != "#pay" || d["password"] != "[redacted]" {
			t.Errorf("breadcrumb data = %v", got[0]["data"])
		}
		if last := got[99]; last["message"] != "only a message" || last["timestamp"] != nil || last["data"] != nil || last["category"] != "" {
			t.Errorf("last breadcrumb = %v", last)
		}

		bad := func(crumbs any, field string) {
			t.Helper()
			r := s.Do(ingestReq(w.Key, batchOf("web", ev("x", "error"), ev("y", "error", "breadcrumbs", crumbs)), nil))
			r.Expect(t, http.StatusUnprocessableEntity, "validation-failed")
			if !strings.Contains(string(r.Body), field+":") {
				t.Errorf("%v: answer %s does not name %s", crumbs, string(r.Body), field)
			}
		}
		ok := map[string]any{"message": "fine"}
		bad("clicks", "events[1].breadcrumbs")
		bad([]any{ok, ok, map[string]any{"timestamp": 12}}, "events[1].breadcrumbs[2].timestamp")
		bad([]any{map[string]any{"timestamp": "yesterday"}}, "events[1].breadcrumbs[0].timestamp")
		bad([]any{ok, map[string]any{"category": 5}}, "events[1].breadcrumbs[1].category")
		bad([]any{map[string]any{"level": true}}, "events[1].breadcrumbs[0].level")
		bad([]any{map[string]any{"message": strings.Repeat("m", 9000)}}, "events[1].breadcrumbs[0].message")
		bad([]any{map[string]any{"data": []any{1}}}, "events[1].breadcrumbs[0].data")
		bad([]any{ok, "click"}, "events[1].breadcrumbs[1]")
	})
}
