package grouping

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/golden.json from the current code")

// goldenTrace is what the golden file records for one trace in the corpus.
type goldenTrace struct {
	Language      string   `json:"language"`
	Rule          Rule     `json:"rule"`
	ExceptionType string   `json:"exception_type"`
	Types         []string `json:"types"`
	Title         string   `json:"title"`
	Frames        []string `json:"frames"` // "module:function", "+" marks in-app
	Parts         []string `json:"parts"`
	Fingerprint   string   `json:"fingerprint"`
}

// goldenMessage is what the golden file records for one message.
type goldenMessage struct {
	Message     string `json:"message"`
	Template    string `json:"template"`
	Title       string `json:"title"`
	Fingerprint string `json:"fingerprint"`
}

type golden struct {
	Version  int                    `json:"version"`
	Traces   map[string]goldenTrace `json:"traces"`
	Messages []goldenMessage        `json:"messages"`
}

// corpusTraces returns the traces under testdata/<language>/, by path.
func corpusTraces(t testing.TB) map[string]string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "*", "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	traces := make(map[string]string, len(paths))
	for _, p := range paths {
		if filepath.Base(filepath.Dir(p)) == "events" {
			continue // labelled events: see events_test.go
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel("testdata", p)
		traces[filepath.ToSlash(rel)] = string(b)
	}
	return traces
}

// corpusMessages returns testdata/messages.txt, one message a line, with
// `\n` standing for a line break.
func corpusMessages(t testing.TB) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "messages.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var msgs []string
	for _, l := range strings.Split(string(b), "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		msgs = append(msgs, strings.ReplaceAll(l, `\n`, "\n"))
	}
	return msgs
}

// goldenTraceOf is what the golden file of version a records for trace.
func goldenTraceOf(trace string, a *algorithm) goldenTrace {
	res := fingerprint(Input{StackTrace: trace}, a)
	st := parseStack(trace, a)
	gt := goldenTrace{
		Language: st.Language, Rule: res.Rule, ExceptionType: res.ExceptionType,
		Types: st.Types, Title: res.Title, Parts: res.Parts, Fingerprint: res.Fingerprint,
	}
	for _, f := range res.Frames {
		k := f.key()
		if f.InApp {
			k = "+" + k
		}
		gt.Frames = append(gt.Frames, k)
	}
	return gt
}

// goldenMessageOf is what the golden file of version a records for message m.
func goldenMessageOf(m string, a *algorithm) goldenMessage {
	res := fingerprint(Input{Message: m}, a)
	return goldenMessage{Message: m, Template: res.Template, Title: res.Title, Fingerprint: res.Fingerprint}
}

func buildGolden(t *testing.T) golden {
	g := golden{Version: Version, Traces: map[string]goldenTrace{}}
	for name, trace := range corpusTraces(t) {
		g.Traces[name] = goldenTraceOf(trace, current)
	}
	for _, m := range corpusMessages(t) {
		g.Messages = append(g.Messages, goldenMessageOf(m, current))
	}
	return g
}

// TestGoldenOlder proves that every older version is still computed
// exactly: every entry of testdata/golden_v<N>.json, written by the release
// that introduced version N and never updated since, must come out of
// FingerprintVersion(…, N) and ParseStack under version N unchanged, field
// for field.
func TestGoldenOlder(t *testing.T) {
	t.Parallel()
	for v := OldestVersion; v < Version; v++ {
		t.Run("v"+strconv.Itoa(v), func(t *testing.T) { checkGoldenVersion(t, v) })
	}
}

func checkGoldenVersion(t *testing.T, v int) {
	b, err := os.ReadFile(filepath.Join("testdata", "golden_v"+strconv.Itoa(v)+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var want golden
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	if want.Version != v || len(want.Traces) == 0 || len(want.Messages) == 0 {
		t.Fatalf("golden_v%d.json: version %d, %d traces, %d messages", v, want.Version, len(want.Traces), len(want.Messages))
	}
	alg := algorithms[v]
	for name, wt := range want.Traces {
		trace, err := os.ReadFile(filepath.Join("testdata", filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		got := goldenTraceOf(string(trace), alg)
		if res, ok := FingerprintVersion(Input{StackTrace: string(trace)}, v); !ok || res.Fingerprint != got.Fingerprint || res.Version != v {
			t.Errorf("%s: FingerprintVersion(…, %d) = %v, %v", name, v, res, ok)
		}
		gb, _ := json.Marshal(got)
		wb, _ := json.Marshal(wt)
		if !bytes.Equal(gb, wb) {
			t.Errorf("trace %s under version %d:\ngot  %s\nwant %s", name, v, gb, wb)
		}
	}
	for _, wm := range want.Messages {
		if got := goldenMessageOf(wm.Message, alg); got != wm {
			t.Errorf("message %q under version %d:\ngot  %+v\nwant %+v", wm.Message, v, got, wm)
		}
	}
}

// TestGolden compares every trace and message of the corpus with
// testdata/golden.json; run with -update to accept a deliberate change (and
// bump Version if existing groups would move).
func TestGolden(t *testing.T) {
	got, err := json.MarshalIndent(buildGolden(t), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	path := filepath.Join("testdata", "golden.json")
	// testdata/golden_v<N>.json are never rewritten: see TestGoldenOlder.
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if bytes.Equal(got, want) {
		return
	}
	var w golden
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	g := buildGolden(t)
	names := make([]string, 0, len(g.Traces))
	for name := range g.Traces {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		gb, _ := json.MarshalIndent(g.Traces[name], "", "  ")
		wb, _ := json.MarshalIndent(w.Traces[name], "", "  ")
		if !bytes.Equal(gb, wb) {
			t.Errorf("trace %s:\ngot  %s\nwant %s", name, gb, wb)
		}
	}
	for k, m := range g.Messages {
		if k >= len(w.Messages) || m != w.Messages[k] {
			var wm goldenMessage
			if k < len(w.Messages) {
				wm = w.Messages[k]
			}
			t.Errorf("message %q:\ngot  %+v\nwant %+v", m.Message, m, wm)
		}
	}
	if len(g.Messages) != len(w.Messages) || len(g.Traces) != len(w.Traces) {
		t.Errorf("corpus has %d traces and %d messages, golden %d and %d", len(g.Traces), len(g.Messages), len(w.Traces), len(w.Messages))
	}
}

// TestCorpusParses makes sure every trace in the corpus is recognised:
// frames, a language that matches its directory, in-app frames, a type.
func TestCorpusParses(t *testing.T) {
	t.Parallel()
	for name, trace := range corpusTraces(t) {
		st := ParseStack(trace)
		dir := strings.Split(name, "/")[0]
		if st.Language != dir {
			t.Errorf("%s: language %q, want %q", name, st.Language, dir)
		}
		if len(st.Frames) == 0 {
			t.Errorf("%s: no frames", name)
		}
		inApp := false
		for _, f := range st.Frames {
			inApp = inApp || f.InApp
		}
		if !inApp {
			t.Errorf("%s: no in-app frame in %+v", name, st.Frames)
		}
		if len(st.Types) == 0 && name != "go/debug_stack.txt" {
			t.Errorf("%s: no exception type", name)
		}
	}
}

// TestPairs checks the grouping decisions in testdata/pairs.json: pairs that
// must merge and pairs that must not.
func TestPairs(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("testdata", "pairs.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pairs []struct {
		A, B  string
		Merge bool
		Why   string
	}
	if err := json.Unmarshal(b, &pairs); err != nil {
		t.Fatal(err)
	}
	traces := corpusTraces(t)
	input := func(ref string) Input {
		if m, ok := strings.CutPrefix(ref, "msg:"); ok {
			return Input{Message: m}
		}
		trace, ok := traces[ref]
		if !ok {
			t.Fatalf("pairs.json names %s, not in the corpus", ref)
		}
		return Input{StackTrace: trace}
	}
	for _, p := range pairs {
		a, b := Fingerprint(input(p.A)), Fingerprint(input(p.B))
		if got := a.Fingerprint == b.Fingerprint; got != p.Merge {
			t.Errorf("%s vs %s (%s): merged %v, want %v\n a: %q\n b: %q", p.A, p.B, p.Why, got, p.Merge, a.Parts, b.Parts)
		}
	}
}
