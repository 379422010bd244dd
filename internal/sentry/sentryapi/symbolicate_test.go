package sentryapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/httpserver"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/symbolicate"
	"github.com/errata-dev/errata/internal/testtool"
)

// served is where the test pretends the bundle was served from.
const served = "http://shop.example.com/static/main.js"

var stackFrame = regexp.MustCompile(`at (?:(\S+) \()?(\S+main\.js):(\d+):(\d+)\)?`)

// crash runs the minified bundle under node, makes checkout throw, and
// returns the Sentry frames of the error (oldest call first) as a browser
// SDK would send them from served.
func crash(t *testing.T, out string) []map[string]any {
	t.Helper()
	node := testtool.Program(t, "node")
	script := `const vm = require("vm"), fs = require("fs"); const p = process.argv[1];
vm.runInThisContext(fs.readFileSync(p, "utf8"), {filename: p});
try { app.checkout([{price: "12"}, {price: "twelve"}]); } catch (e) { console.log(e.stack); }`
	b, err := exec.Command(node, "-e", script, filepath.Join(out, "main.js")).CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, b)
	}
	var frames []map[string]any
	for _, m := range stackFrame.FindAllStringSubmatch(string(b), -1) {
		line, _ := strconv.Atoi(m[3])
		col, _ := strconv.Atoi(m[4])
		f := map[string]any{"abs_path": served, "filename": "/static/main.js", "lineno": line, "colno": col, "in_app": true}
		if m[1] != "" {
			f["function"] = m[1]
		}
		frames = append([]map[string]any{f}, frames...)
	}
	if len(frames) < 2 {
		t.Fatalf("node's stack has %d frames of main.js, want 2 or more:\n%s", len(frames), b)
	}
	return frames
}

// sendError sends a browser SDK's error event and processes it.
func sendError(t *testing.T, s *apitest.Server, number int64, key string, event map[string]any) {
	t.Helper()
	event["platform"] = "javascript"
	event["exception"] = map[string]any{"values": []any{map[string]any{"type": "TypeError", "value": "not a number: twelve",
		"stacktrace": map[string]any{"frames": event["frames"]}}}}
	delete(event, "frames")
	body, _ := json.Marshal(event)
	s.Do(apitest.Request{Method: "POST", Path: fmt.Sprintf("/api/%d/store/?sentry_key=%s", number, key), Body: body}).Expect(t, http.StatusOK, "")
	if err := s.App.Processor.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// sendingWorld is a world whose project takes Sentry events: a member's
// token for releases, the project's key and its number.
func sendingWorld(t *testing.T, s *apitest.Server) (w apitest.World, tok, key string, number int64) {
	t.Helper()
	w = s.NewWorld(t)
	tok = token(t, s, w.Member.Token, "project:releases")
	_, key, _ = s.CreateKeyDSN(t, w.Owner.Token, w.ProjectID)
	num, _ := s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.ProjectID, Token: w.Owner.Token}).JSON(t)["number"].(float64)
	return w, tok, key, int64(num)
}

// TestSymbolication: an error from a minified esbuild bundle, sent as a
// browser SDK sends it, is shown with its original names and lines when
// sentry-cli uploaded its source map (found by debug id, or by release and
// URL), is kept with a note when it did not, and two builds of one bug are
// one group.
func TestSymbolication(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w, tok, key, number := sendingWorld(t, s)

		out := build(t, t.TempDir())
		sentryCLI(t, s, tok, "sourcemaps", "inject", out)
		sentryCLI(t, s, tok, "sourcemaps", "upload", "--release", "1.2.0", "--url-prefix", "~/static", out)
		js, _ := os.ReadFile(filepath.Join(out, "main.js"))
		debugID := string(debugIDRe.FindSubmatch(js)[1])
		frames := crash(t, out)

		// By debug id, without a release.
		sendError(t, s, number, key, map[string]any{"frames": frames,
			"debug_meta": map[string]any{"images": []any{map[string]any{"type": "sourcemap", "code_file": served, "debug_id": debugID}}}})
		groups := s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.ProjectID + "/groups", Token: w.Owner.Token}).Expect(t, http.StatusOK, "").JSON(t)["data"].([]any)
		if len(groups) != 1 {
			t.Fatalf("groups = %v, want one", groups)
		}
		g := groups[0].(map[string]any)
		if c, _ := g["culprit"].(string); !strings.Contains(c, "parseAmount") || !strings.Contains(c, "app.js") {
			t.Errorf("culprit = %q, want the original parseAmount in app.js", c)
		}
		groupID := g["id"].(string)
		evs, err := s.App.DB.Read().ListGroupEvents(context.Background(), groupID, 0, 10)
		if err != nil || len(evs) == 0 {
			t.Fatalf("sample events: %v, %v", evs, err)
		}
		ev := evs[0]
		if !strings.Contains(ev.StackTrace, "at parseAmount (app.js:4:") || !strings.Contains(ev.StackTrace, "at checkout (app.js:10:") {
			t.Errorf("stack trace = %q, want parseAmount at app.js:4 and checkout at app.js:10", ev.StackTrace)
		}
		var res symbolicate.Result
		if err := json.Unmarshal([]byte(ev.Symbolication), &res); err != nil || len(res.Frames) < 2 {
			t.Fatalf("symbolication = %q (%v), want the mapped frames", ev.Symbolication, err)
		}
		top := res.Frames[0]
		if top.Function != "parseAmount" || top.File != "app.js" || top.Line != 4 || top.Raw.File != served || top.Raw.Line != frames[len(frames)-1]["lineno"] ||
			top.Context == nil || !strings.Contains(top.Context.Line, "throw new TypeError") || len(top.Context.Pre) != 3 || len(top.Context.Post) != 5 {
			t.Errorf("top frame = %+v (context %+v), want parseAmount at app.js:4 with its context and the raw minified frame", top, top.Context)
		}
		// The event detail shows the original frame with its context and
		// the minified frame as raw, and what symbolication did.
		detail := s.Do(apitest.Request{Method: "GET", Path: "/v1/events/" + strconv.FormatInt(ev.ID, 10), Token: w.Owner.Token}).Expect(t, http.StatusOK, "").JSON(t)
		var shown bool
		for _, f := range detail["frames"].([]any) {
			f := f.(map[string]any)
			c, _ := f["context"].(map[string]any)
			raw, _ := f["raw"].(map[string]any)
			if f["function"] == "parseAmount" && c != nil && strings.Contains(c["line"].(string), "throw new TypeError") && len(c["pre"].([]any)) == 3 &&
				raw != nil && raw["file"] == served && raw["line"] == float64(frames[len(frames)-1]["lineno"].(int)) {
				shown = true
			}
		}
		if !shown {
			t.Errorf("event detail frames = %v, want parseAmount with its source context and its raw minified frame", detail["frames"])
		}
		if sym, _ := detail["symbolication"].(map[string]any); sym == nil || len(sym["frames"].([]any)) != len(res.Frames) {
			t.Errorf("event detail symbolication = %v, want the %d mapped frames", detail["symbolication"], len(res.Frames))
		}

		// By release and URL, without a debug id: the same group.
		sendError(t, s, number, key, map[string]any{"frames": frames, "release": "1.2.0"})
		// Another build of the same code (other columns, other names), its
		// own release: still the same group.
		out2 := buildSource(t, t.TempDir(), "export const version = '1.3.0';\n"+strings.Replace(appSource, "return value * 100;", "const cents = value * 100;\n  return cents;", 1))
		sentryCLI(t, s, tok, "sourcemaps", "upload", "--release", "1.3.0", "--url-prefix", "~/static", out2)
		sendError(t, s, number, key, map[string]any{"frames": crash(t, out2), "release": "1.3.0"})
		groups = s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.ProjectID + "/groups", Token: w.Owner.Token}).JSON(t)["data"].([]any)
		if len(groups) != 1 || groups[0].(map[string]any)["event_count"] != float64(3) {
			t.Errorf("groups = %v, want the one group with 3 events", groups)
		}

		// Without a map: kept as sent, with a note naming the file.
		sendError(t, s, number, key, map[string]any{"frames": frames, "release": "9.9.9"})
		groups = s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.ProjectID + "/groups", Token: w.Owner.Token}).JSON(t)["data"].([]any)
		if len(groups) != 2 {
			t.Fatalf("groups = %d, want 2: the unmapped frames group apart", len(groups))
		}
		var other string
		for _, g := range groups {
			if id := g.(map[string]any)["id"].(string); id != groupID {
				other = id
			}
		}
		evs, _ = s.App.DB.Read().ListGroupEvents(context.Background(), other, 0, 10)
		if len(evs) == 0 || !strings.Contains(evs[0].Symbolication, "no source map for ~/static/main.js (release 9.9.9)") || !strings.Contains(evs[0].StackTrace, served) {
			t.Errorf("unmapped event = %+v, want its minified trace and the note naming ~/static/main.js (release 9.9.9)", evs)
		}
		detail = s.Do(apitest.Request{Method: "GET", Path: "/v1/events/" + strconv.FormatInt(evs[0].ID, 10), Token: w.Owner.Token}).Expect(t, http.StatusOK, "").JSON(t)
		sym, _ := detail["symbolication"].(map[string]any)
		if sym == nil || fmt.Sprint(sym["notes"]) != "[no source map for ~/static/main.js (release 9.9.9)]" || len(sym["frames"].([]any)) != 0 {
			t.Errorf("unmapped event's detail symbolication = %v, want the note naming ~/static/main.js (release 9.9.9)", detail["symbolication"])
		}
		for _, f := range detail["frames"].([]any) {
			if raw := f.(map[string]any)["raw"]; raw != nil {
				t.Errorf("an unmapped frame has raw %v, want null", raw)
			}
		}
		// A dist the uploads did not name is in the note too.
		sendError(t, s, number, key, map[string]any{"frames": frames, "release": "9.9.9", "dist": "other"})
		evs, _ = s.App.DB.Read().ListGroupEvents(context.Background(), other, 0, 10)
		if len(evs) == 0 || !strings.Contains(evs[0].Symbolication, "no source map for ~/static/main.js (release 9.9.9, dist other)") {
			t.Errorf("unmapped event with a dist = %+v, want the note naming the release and the dist", evs)
		}

		// Files uploaded under their full URL (--url-prefix with the
		// origin), without debug ids: the map is found from the URL the
		// frames carry.
		out3 := build(t, t.TempDir())
		sentryCLI(t, s, tok, "sourcemaps", "upload", "--release", "2.0.0", "--url-prefix", strings.TrimSuffix(served, "/main.js"), out3)
		sendError(t, s, number, key, map[string]any{"frames": crash(t, out3), "release": "2.0.0"})
		// Mapped, it joins the first group (unmapped frames group apart);
		// the group may store no sample of it within a second of the last.
		groups = s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.ProjectID + "/groups", Token: w.Owner.Token}).JSON(t)["data"].([]any)
		for _, g := range groups {
			if g := g.(map[string]any); g["id"] == groupID && g["event_count"] != float64(4) || len(groups) != 2 {
				t.Errorf("groups = %v, want the first with 4 events: files uploaded under their full URL map the frames", groups)
			}
		}
	})
}

// callsSource calls through named functions, so that each frame's
// position is a call of the next one.
const callsSource = `function banner() {
  return "shop";
}
function parseAmount(input) {
  const value = Number(input);
  if (Number.isNaN(value)) {
    throw new TypeError("not a number: " + input);
  }
  return value;
}
function total(items) {
  let sum = 0;
  for (const item of items) {
    sum += parseAmount(item.price);
  }
  return sum;
}
export function checkout(cart) {
  banner();
  return total(cart);
}
`

// TestSymbolicationNamesTheCallingFunction: a frame's position is a call,
// and the map's name there is the function called: each frame is named
// after the function it is in (the name at its caller's position), also
// for a map without sourcesContent, and the group's culprit is the
// original function where the error was raised. The outermost frame has
// no caller: with sourcesContent it is named by the declaration it lies
// in, without it keeps the name the trace gave.
func TestSymbolicationNamesTheCallingFunction(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w, tok, key, num := sendingWorld(t, s)
		for _, c := range []struct {
			release string
			flags   []string
			want    []string
		}{
			{"3.0.0", []string{"--sources-content=false"}, []string{"at parseAmount (app.js:7:", "at total (app.js:14:", "(app.js:20:"}},
			{"3.1.0", nil, []string{"at parseAmount (app.js:7:", "at total (app.js:14:", "at checkout (app.js:20:"}},
		} {
			out := buildSource(t, t.TempDir(), callsSource, c.flags...)
			sentryCLI(t, s, tok, "sourcemaps", "upload", "--release", c.release, "--url-prefix", "~/static", out)
			sendError(t, s, num, key, map[string]any{"frames": crash(t, out), "release": c.release})
			trace, culprit := latestTrace(t, s, w.ProjectID)
			for _, want := range c.want {
				if !strings.Contains(trace, want) {
					t.Errorf("release %s: stack trace = %q, want %q", c.release, trace, want)
				}
			}
			if strings.Contains(trace, "at total (app.js:20:") || !strings.Contains(culprit, "parseAmount") {
				t.Errorf("release %s: stack trace %q, culprit %q: want checkout's frame not named after total, which it calls, and the culprit parseAmount", c.release, trace, culprit)
			}
		}
	})
}

// latestTrace is the stack trace of the project's newest stored event,
// and its group's culprit.
func latestTrace(t *testing.T, s *apitest.Server, projectID string) (trace, culprit string) {
	t.Helper()
	groups, err := s.App.DB.Read().ListGroups(context.Background(), projectID, store.GroupFilter{}, "", 10)
	if err != nil {
		t.Fatal(err)
	}
	var newest int64
	for _, g := range groups {
		evs, err := s.App.DB.Read().ListGroupEvents(context.Background(), g.ID, 0, 10)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			if e.ID > newest {
				newest, trace, culprit = e.ID, e.StackTrace, g.Culprit
			}
		}
	}
	return trace, culprit
}

// TestSymbolicationDependencyFramesAreNotInApp: the SDK judges the bundle,
// so it flags every frame of main.js in-app; once mapped, a frame whose
// original file is in node_modules is a dependency's, and the group's
// culprit and fingerprint are the application's frame that called it.
func TestSymbolicationDependencyFramesAreNotInApp(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w, tok, key, num := sendingWorld(t, s)
		dir := t.TempDir()
		lib := filepath.Join(dir, "node_modules", "tinylib")
		if err := os.MkdirAll(lib, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(lib, "index.js"), []byte(`exports.check = function check(v) {
  const n = Number(v);
  if (Number.isNaN(n)) {
    throw new TypeError("not a number: " + v);
  }
  return n;
};
`), 0o600); err != nil {
			t.Fatal(err)
		}
		out := buildSource(t, dir, `import { check } from "tinylib";
export function checkout(items) {
  let sum = 0;
  for (const it of items) {
    sum += check(it.price);
  }
  return sum;
}
`)
		sentryCLI(t, s, tok, "sourcemaps", "upload", "--release", "4.0.0", "--url-prefix", "~/static", out)
		sendError(t, s, num, key, map[string]any{"frames": crash(t, out), "release": "4.0.0"})
		trace, culprit := latestTrace(t, s, w.ProjectID)
		if !strings.Contains(trace, "node_modules/tinylib/index.js:4:") || !strings.Contains(trace, "at checkout (app.js:5:") {
			t.Fatalf("stack trace = %q, want the library's frame and checkout's, mapped", trace)
		}
		if culprit != "app.js in checkout" {
			t.Errorf("culprit = %q, want app.js in checkout (the library's frame is not the application's)", culprit)
		}
		groups := s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.ProjectID + "/groups", Token: w.Owner.Token}).Expect(t, http.StatusOK, "").JSON(t)["data"].([]any)
		g := s.Do(apitest.Request{Method: "GET", Path: "/v1/groups/" + groups[0].(map[string]any)["id"].(string), Token: w.Owner.Token}).Expect(t, http.StatusOK, "").JSON(t)
		for _, c := range g["grouping"].(map[string]any)["components"].([]any) {
			c := c.(map[string]any)
			if v, _ := c["value"].(string); strings.Contains(v, "tinylib") && c["contributes"] == true {
				t.Errorf("grouping component %v: the library's frame contributes", c)
			}
		}
		// The dashboard's event page does not call the mapped trace the
		// trace as sent.
		evs := s.Do(apitest.Request{Method: "GET", Path: "/v1/groups/" + g["id"].(string) + "/events", Token: w.Owner.Token}).Expect(t, http.StatusOK, "").JSON(t)["data"].([]any)
		page := s.Do(apitest.Request{Method: "GET", Path: "/events/" + evs[0].(map[string]any)["id"].(string),
			Headers: map[string]string{"Cookie": httpserver.SessionCookie + "=" + w.Owner.Token}})
		if body := string(page.Body); page.Status != http.StatusOK || !strings.Contains(body, "Stack trace, source-mapped") || strings.Contains(body, "Stack trace as sent") {
			t.Errorf("event page: %d, want the trace headed as source-mapped", page.Status)
		}
	})
}
