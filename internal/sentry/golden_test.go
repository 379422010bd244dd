package sentry

import (
	"bytes"
	"encoding/json"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/grouping"
)

var update = flag.Bool("update", false, "rewrite the .golden.json files")

// goldenReceived is the time of receipt of every golden envelope.
var goldenReceived = time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)

// goldenEncodings maps a golden file's extension to its Content-Encoding.
var goldenEncodings = map[string]string{".gz": "gzip", ".zz": "deflate", ".deflate": "deflate", ".br": "br", ".zst": "zstd"}

// goldenOutput is what a golden file records of a request.
type goldenOutput struct {
	Error     string         `json:"error,omitempty"`
	EventID   string         `json:"event_id,omitempty"`
	Events    []goldenEvent  `json:"events,omitempty"`
	Dropped   map[string]int `json:"dropped,omitempty"`
	Malformed []Malformed    `json:"malformed,omitempty"`
}

type goldenEvent struct {
	Service     string          `json:"service"`
	Environment string          `json:"environment,omitempty"`
	Release     string          `json:"release,omitempty"`
	Level       string          `json:"level"`
	Message     string          `json:"message"`
	Timestamp   string          `json:"timestamp"`
	StackTrace  []string        `json:"stack_trace,omitempty"` // one line per element, for reading diffs
	TraceID     string          `json:"trace_id,omitempty"`
	SpanID      string          `json:"span_id,omitempty"`
	Attributes  json.RawMessage `json:"attributes,omitempty"`
	// Grouping is what grouping makes of the event, to review alongside.
	Grouping struct {
		Rule   string   `json:"rule"`
		Title  string   `json:"title"`
		Frames []string `json:"frames,omitempty"` // "module:function" with "*" for in-app
	} `json:"grouping"`
}

// TestGolden decodes, parses and maps every request body under testdata
// (captured from real SDKs, and the envelope specification's examples) and
// compares the result with its .golden.json file. Run with -update to
// rewrite those after reviewing the difference.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*", "*.envelope*"))
	if err != nil {
		t.Fatal(err)
	}
	store, _ := filepath.Glob(filepath.Join("testdata", "*", "*.store*"))
	files = append(files, store...)
	if len(files) < 10 {
		t.Fatalf("found %d golden request bodies, want at least 10", len(files))
	}
	for _, path := range files {
		if strings.HasSuffix(path, ".golden.json") {
			continue
		}
		t.Run(path, func(t *testing.T) {
			got := goldenRun(t, path)
			var buf bytes.Buffer
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			if err := enc.Encode(got); err != nil {
				t.Fatal(err)
			}
			b := buf.Bytes()
			golden := goldenName(path)
			if *update {
				if err := os.WriteFile(golden, b, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -run TestGolden -update to create it)", err)
			}
			if !bytes.Equal(b, want) {
				t.Errorf("mapping of %s differs from %s:\n%s", path, golden, b)
			}
		})
	}
}

// goldenName is the .golden.json file of a request body file.
func goldenName(path string) string {
	base := path
	for ext := filepath.Ext(base); goldenEncodings[ext] != ""; ext = filepath.Ext(base) {
		base = strings.TrimSuffix(base, ext)
	}
	return base + ".golden.json"
}

func goldenRun(t *testing.T, path string) goldenOutput {
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rd, err := Decompressor(goldenEncodings[filepath.Ext(path)], bytes.NewReader(raw))
	if err != nil {
		return goldenOutput{Error: err.Error()}
	}
	defer rd.Close()
	body, err := io.ReadAll(rd)
	if err != nil {
		return goldenOutput{Error: err.Error()}
	}
	var env *Envelope
	if strings.Contains(filepath.Base(path), ".store") {
		env, err = ParseStore("application/json", body)
	} else {
		env, err = ParseEnvelope(body)
	}
	if err != nil {
		return goldenOutput{Error: err.Error()}
	}
	res := Map(env, Options{Service: "shop", ReceivedAt: goldenReceived})
	out := goldenOutput{EventID: res.EventID, Dropped: res.Dropped, Malformed: res.Malformed}
	for _, ev := range res.Events {
		if err := checkEvent(ev); err != "" {
			t.Errorf("event %q is not valid for ingestion: %s", ev.Message, err)
		}
		g := goldenEvent{Service: ev.Service, Environment: ev.Environment, Release: ev.Release,
			Level: ev.Level.String(), Message: ev.Message, TraceID: ev.TraceID, SpanID: ev.SpanID,
			Timestamp: time.UnixMilli(ev.Timestamp).UTC().Format("2006-01-02T15:04:05.000Z"), Attributes: ev.Attributes}
		if ev.StackTrace != "" {
			g.StackTrace = strings.Split(ev.StackTrace, "\n")
		}
		fp := grouping.Fingerprint(grouping.Input{Message: ev.Message, StackTrace: ev.StackTrace})
		g.Grouping.Rule, g.Grouping.Title = string(fp.Rule), fp.Title
		for _, f := range fp.Frames {
			key := f.Module + ":" + f.Function
			if f.InApp {
				key = "*" + key
			}
			g.Grouping.Frames = append(g.Grouping.Frames, key)
		}
		out.Events = append(out.Events, g)
	}
	return out
}
