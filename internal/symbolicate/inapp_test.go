package symbolicate

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestDemoteDependencies: the flags are those of the frames grouping
// parses from the trace, so a mapped dependency's line turns the flag of
// the frame grouping parsed there to n, in place; flags that do not match
// grouping's frames (which grouping would not apply either) leave the event
// alone, however the trace's lines look, and never index past the flags.
func TestDemoteDependencies(t *testing.T) {
	dep := func(line int, file string) mapped { return mapped{Frame: Frame{File: file}, line: line} }
	plain := strings.Split("TypeError: not a number: x\n"+
		"    at check (node_modules/tinylib/index.js:4:11)\n"+
		"    at checkout (app.js:5:12)", "\n")
	done := []mapped{dep(1, "node_modules/tinylib/index.js"), dep(2, "app.js")}
	attrs := `{"a":"<b>","sentry.in_app":"yy","z":1}`
	for in, want := range map[string]string{
		attrs: `{"a":"<b>","sentry.in_app":"dy","z":1}`,
		`{"x":{"sentry.in_app":"yy"}, "sentry.in_app" : "yy"}`: `{"x":{"sentry.in_app":"yy"}, "sentry.in_app" : "dy"}`,
	} {
		if got := string(demoteDependencies(json.RawMessage(in), plain, done)); got != want {
			t.Errorf("%s demoted = %s, want %s", in, got, want)
		}
	}
	for _, keep := range []string{
		`{"sentry.in_app":"yyy"}`, // more flags than frames
		`{"sentry.in_app":"nn"}`,  // already not in-app
		`{"other":1}`,             // no flags
		`{"SENTRY.IN_APP":"yy","x":{"sentry.in_app":"yy"}}`, // only a nested one as written
	} {
		if got := string(demoteDependencies(json.RawMessage(keep), plain, done)); got != keep {
			t.Errorf("%s became %s, want it unchanged", keep, got)
		}
	}
	// A cause without frames whose value holds a frame-like line after
	// the frames the SDK flagged: grouping counts a third frame, so the
	// two flags match nothing (and are not indexed past their end).
	valued := append(plain, "Caused by: Error: wrapped", "  at fake (https://x.example/static/main.js:1:50)")
	withFake := append(done, dep(4, "node_modules/evil/x.js"))
	if got := string(demoteDependencies(json.RawMessage(attrs), valued, withFake)); got != attrs {
		t.Errorf("flags of 2 frames against a trace of 3: %s, want unchanged", got)
	}
	if got, want := string(demoteDependencies(json.RawMessage(`{"sentry.in_app":"yyy"}`), valued, withFake)), `{"sentry.in_app":"dyd"}`; got != want {
		t.Errorf("three flags: %s, want %s", got, want)
	}
}
