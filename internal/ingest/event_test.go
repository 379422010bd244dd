package ingest

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestParseLevel(t *testing.T) {
	t.Parallel()
	want := map[Level][]string{
		Debug: {"trace", "debug"},
		Info:  {"info", "information", "informational", "notice", "log"},
		Warn:  {"warn", "warning"},
		Error: {"error", "err"},
		Fatal: {"fatal", "critical", "crit", "alert", "emerg", "emergency", "panic"},
	}
	var all []string
	for level, names := range want {
		all = append(all, names...)
		for _, name := range names {
			for _, s := range []string{name, strings.ToUpper(name), strings.ToUpper(name[:1]) + name[1:]} {
				if got, ok := ParseLevel(s); !ok || got != level {
					t.Errorf("ParseLevel(%q) = %v, %t; want %v, true", s, got, ok, level)
				}
			}
		}
	}
	if got := LevelNames(); !sameSet(got, all) {
		t.Errorf("LevelNames() = %v, want the names %v", got, all)
	}
	for _, s := range []string{"", "e", "verbose", "warnings", " info", "info ", "informationals", "fatal!", "ınfo", "3"} {
		if got, ok := ParseLevel(s); ok {
			t.Errorf("ParseLevel(%q) = %v, true; want false", s, got)
		}
	}
}

func sameSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(a, b)
}

func TestLevelString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		l    Level
		want string
	}{{Debug, "debug"}, {Info, "info"}, {Warn, "warn"}, {Error, "error"}, {Fatal, "fatal"}, {0, "invalid"}, {6, "invalid"}}
	for _, tt := range tests {
		if got := tt.l.String(); got != tt.want {
			t.Errorf("Level(%d).String() = %q, want %q", tt.l, got, tt.want)
		}
	}
}

func TestLevelJSON(t *testing.T) {
	t.Parallel()
	for l := Debug; l <= Fatal; l++ {
		b, err := json.Marshal(l)
		if err != nil || string(b) != `"`+l.String()+`"` {
			t.Errorf("json.Marshal(%v) = %s, %v; want %q", l, b, err, l.String())
		}
		var got Level
		if err := json.Unmarshal(b, &got); err != nil || got != l {
			t.Errorf("json.Unmarshal(%s) = %v, %v; want %v", b, got, err, l)
		}
	}
	var got Level
	if err := json.Unmarshal([]byte(`"WARNING"`), &got); err != nil || got != Warn {
		t.Errorf(`json.Unmarshal("WARNING") = %v, %v; want warn`, got, err)
	}
	for _, in := range []string{`"verbose"`, `3`, `""`} {
		if err := json.Unmarshal([]byte(in), &got); err == nil {
			t.Errorf("json.Unmarshal(%s) error = nil, want one", in)
		}
	}
	got = Warn
	if err := json.Unmarshal([]byte(`null`), &got); err != nil || got != Warn {
		t.Errorf("json.Unmarshal(null) = %v, %v; want warn unchanged, nil", got, err)
	}
	if _, err := json.Marshal(Level(0)); err == nil {
		t.Error("json.Marshal(Level(0)) error = nil, want one")
	}
}

func TestEventJSONRoundTrip(t *testing.T) {
	t.Parallel()
	evs, err := Decode([]byte(body(`"service":"api","release":"1"`,
		`{"message":"boom","level":"crit","timestamp":"2024-05-01T12:00:00.250Z","stack_trace":"a\nb","trace_id":"t","attributes":{"token":"x","n":1}}`)), received)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(evs[0])
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"service":"api","release":"1","level":"fatal","message":"boom","ts":1714564800250,"stack_trace":"a\nb","trace_id":"t","attributes":{"token":"[redacted]","n":1}}`
	if string(b) != want {
		t.Errorf("json.Marshal(event)\n got %s\nwant %s", b, want)
	}
	var back Event
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Level != Fatal || back.Timestamp != evs[0].Timestamp || string(back.Attributes) != string(evs[0].Attributes) {
		t.Errorf("json.Unmarshal(%s) = %+v, want %+v", b, back, evs[0])
	}
}
