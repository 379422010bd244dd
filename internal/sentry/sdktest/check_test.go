package sdktest

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/errata-dev/errata/internal/grouping"
	"github.com/errata-dev/errata/internal/ingest"
)

// checkFields compares the fields of an event that want sets.
func checkFields(t *testing.T, what string, got, want ingest.Event) {
	t.Helper()
	for _, f := range []struct{ name, got, want string }{
		{"service", got.Service, want.Service},
		{"environment", got.Environment, want.Environment},
		{"release", got.Release, want.Release},
		{"level", got.Level.String(), want.Level.String()},
		{"message", got.Message, want.Message},
	} {
		if f.got != f.want {
			t.Errorf("%s: %s = %q, want %q", what, f.name, f.got, f.want)
		}
	}
	if got.Timestamp == 0 {
		t.Errorf("%s: no timestamp", what)
	}
}

// checkStack parses an event's stack trace as grouping does and checks its
// language, that the functions named appear among its in-app frames in that
// order, and that sentry.in_app has one flag per parsed frame.
func checkStack(t *testing.T, what string, ev ingest.Event, language string, inAppFuncs []string) grouping.Stack {
	t.Helper()
	st := grouping.ParseStack(ev.StackTrace)
	if st.Language != language {
		t.Fatalf("%s: stack parses as %q, want %q:\n%s", what, st.Language, language, ev.StackTrace)
	}
	var inApp []string
	for _, f := range st.Frames {
		if f.InApp {
			inApp = append(inApp, f.Function)
		}
	}
	k := 0
	for _, fn := range inApp {
		if k < len(inAppFuncs) && fn == inAppFuncs[k] {
			k++
		}
	}
	if k != len(inAppFuncs) {
		t.Errorf("%s: in-app functions %q, want %q among them in order:\n%s", what, inApp, inAppFuncs, ev.StackTrace)
	}
	var attrs map[string]any
	if err := json.Unmarshal(ev.Attributes, &attrs); err != nil {
		t.Fatalf("%s: attributes %s: %v", what, ev.Attributes, err)
	}
	flags, _ := attrs["sentry.in_app"].(string)
	if len(flags) != len(st.Frames) {
		t.Errorf("%s: sentry.in_app %q has %d flags for %d parsed frames", what, flags, len(flags), len(st.Frames))
	}
	for k, f := range st.Frames {
		if k < len(flags) && flags[k] == 'y' && !slices.Contains(inApp, f.Function) && f.InApp {
			t.Errorf("%s: frame %d %s flagged in app", what, k, f.Function)
		}
	}
	return st
}

// checkAttr checks one attribute's JSON value.
func checkAttr(t *testing.T, what string, ev ingest.Event, key, want string) {
	t.Helper()
	var attrs map[string]json.RawMessage
	if err := json.Unmarshal(ev.Attributes, &attrs); err != nil {
		t.Fatalf("%s: attributes %s: %v", what, ev.Attributes, err)
	}
	if got := string(attrs[key]); got != want {
		t.Errorf("%s: attribute %s = %s, want %s (all: %s)", what, key, got, want, ev.Attributes)
	}
}

// checkLogs checks the one log envelope both harnesses send: an info record
// from a template with the user's id, and a warning with a queue attribute.
func checkLogs(t *testing.T, c *capture, name, release, user string) []ingest.Event {
	t.Helper()
	logs := c.find("log")
	if len(logs) != 1 {
		t.Fatalf("got %d log envelopes, want 1", len(logs))
	}
	store(t, name, logs[0])
	got := logs[0].Result.Events
	if len(got) != 2 {
		t.Fatalf("logs: got %d events, want 2 (malformed %+v)", len(got), logs[0].Result.Malformed)
	}
	checkFields(t, "log 0", got[0], ingest.Event{Service: "shop", Environment: "staging", Release: release,
		Level: ingest.Info, Message: "user " + user + " signed in"})
	checkAttr(t, "log 0", got[0], "sentry.message.template", `"user %s signed in"`)
	checkFields(t, "log 1", got[1], ingest.Event{Service: "shop", Environment: "staging", Release: release,
		Level: ingest.Warn, Message: "queue is backing up"})
	checkAttr(t, "log 1", got[1], "queue", `"emails"`)
	return got
}
