package sentry

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/grouping"
	"github.com/errata-dev/errata/internal/ingest"
)

// mapOne maps one event payload sent as an envelope of one item.
func mapOne(t *testing.T, payload []byte) ingest.Event {
	t.Helper()
	body := append([]byte("{}\n{\"type\":\"event\"}\n"), bytes.ReplaceAll(payload, []byte("\n"), nil)...)
	env, err := ParseEnvelope(body)
	if err != nil {
		t.Fatal(err)
	}
	res := Map(env, Options{Service: "shop", ReceivedAt: time.Unix(1700000000, 0)})
	if len(res.Events) != 1 {
		t.Fatalf("got %d events, want 1 (malformed %+v)", len(res.Events), res.Malformed)
	}
	return res.Events[0]
}

// TestRenderMatchesRuntime checks, for each platform, that the stack trace
// rendered from a Sentry event reads back (grouping.ParseStack) as the same
// error printed by its runtime does, frame by frame, and that the two group
// together. Each testdata/render/<name>.json is an event as the platform's
// SDK sends it; <name>.txt is the same error as the runtime prints it (the
// Python, Java and Go ones printed by python3, java and a Go panic).
func TestRenderMatchesRuntime(t *testing.T) {
	events, _ := filepath.Glob(filepath.Join("testdata", "render", "*.json"))
	if len(events) < 8 {
		t.Fatalf("found %d render cases, want 8", len(events))
	}
	languages := map[string]bool{}
	for _, path := range events {
		name := strings.TrimSuffix(path, ".json")
		t.Run(filepath.Base(name), func(t *testing.T) {
			payload, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			runtime, err := os.ReadFile(name + ".txt")
			if err != nil {
				t.Fatal(err)
			}
			ev := mapOne(t, payload)
			checkRendered(t, name+".rendered", ev.StackTrace)
			got, want := grouping.ParseStack(ev.StackTrace), grouping.ParseStack(string(runtime))
			languages[got.Language] = true
			if got.Language != want.Language || strings.Join(got.Types, ",") != strings.Join(want.Types, ",") {
				t.Errorf("parsed as %s %q, the runtime's text as %s %q", got.Language, got.Types, want.Language, want.Types)
			}
			if len(got.Frames) != len(want.Frames) {
				t.Fatalf("%d frames, the runtime's text has %d:\n%s", len(got.Frames), len(want.Frames), ev.StackTrace)
			}
			flags := attribute(t, ev, "sentry.in_app")
			if len(flags) != len(got.Frames) {
				t.Errorf("sentry.in_app %q has %d flags for %d frames", flags, len(flags), len(got.Frames))
			}
			for k, f := range got.Frames {
				w := want.Frames[k]
				if f.Module != w.Module || f.Function != w.Function || f.InApp != w.InApp {
					t.Errorf("frame %d is %+v, the runtime's %+v", k, f, w)
				}
				if k < len(flags) && (flags[k] == 'y') != w.InApp {
					t.Errorf("frame %d (%s) flagged %c by the SDK, in app %v by grouping", k, f.Function, flags[k], w.InApp)
				}
			}
			a := grouping.Fingerprint(grouping.Input{Message: ev.Message, StackTrace: ev.StackTrace})
			b := grouping.Fingerprint(grouping.Input{Message: ev.Message, StackTrace: string(runtime)})
			if a.Fingerprint != b.Fingerprint {
				t.Errorf("fingerprint parts %q, the runtime's text %q", a.Parts, b.Parts)
			}
		})
	}
	for _, l := range []string{"python", "java", "javascript", "go", "dotnet", "ruby", "php"} {
		if !languages[l] {
			t.Errorf("no render case parses as %s", l)
		}
	}
}

// checkRendered compares a rendered trace with its golden file, which
// -update rewrites.
func checkRendered(t *testing.T, golden, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(golden, []byte(got+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -run TestRender -update to create it)", err)
	}
	if got+"\n" != string(want) {
		t.Errorf("rendered:\n%s\nwant (%s):\n%s", got, golden, want)
	}
}

// attribute returns a string attribute of ev.
func attribute(t *testing.T, ev ingest.Event, key string) string {
	t.Helper()
	var attrs map[string]any
	if len(ev.Attributes) > 0 {
		if err := json.Unmarshal(ev.Attributes, &attrs); err != nil {
			t.Fatalf("attributes %s: %v", ev.Attributes, err)
		}
	}
	s, _ := attrs[key].(string)
	return s
}
