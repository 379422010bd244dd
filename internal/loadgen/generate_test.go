package loadgen

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

var testStart = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func newTestGenerator(t *testing.T, mod func(*Options)) *Generator {
	t.Helper()
	o := DefaultOptions()
	o.Start = testStart
	if mod != nil {
		mod(&o)
	}
	g, err := NewGenerator(o)
	if err != nil {
		t.Fatalf("NewGenerator(%+v): %v", o, err)
	}
	return g
}

func encoded(g *Generator, i int) []byte {
	b := g.Batch(i)
	body, _ := EncodeBatch(nil, &b)
	return body
}

func TestGeneratorDeterministic(t *testing.T) {
	t.Parallel()
	a := newTestGenerator(t, nil)
	b := newTestGenerator(t, nil)
	// Out of order on purpose: batch i depends on the seed and i only.
	for _, i := range []int{3, 0, 7, 1} {
		if !bytes.Equal(encoded(a, i), encoded(b, i)) {
			t.Errorf("batch %d differs between two generators with the same seed", i)
		}
	}
	if !bytes.Equal(encoded(a, 2), encoded(a, 2)) {
		t.Error("batch 2 differs between two calls")
	}
	if bytes.Equal(encoded(a, 0), encoded(a, 1)) {
		t.Error("batches 0 and 1 are identical")
	}
	other := newTestGenerator(t, func(o *Options) { o.Seed = 2 })
	if bytes.Equal(encoded(a, 0), encoded(other, 0)) {
		t.Error("seeds 1 and 2 give the same batch 0")
	}
}

// sample is 20,000 events with the default options.
func sample(t *testing.T, mod func(*Options)) []Batch {
	g := newTestGenerator(t, mod)
	bs := make([]Batch, 20)
	for i := range bs {
		bs[i] = g.Batch(i)
	}
	return bs
}

func TestGeneratorShape(t *testing.T) {
	t.Parallel()
	bs := sample(t, nil)
	var n, size, stacks, errs, quiet int
	templates := map[int]bool{}
	messages := map[string]bool{}
	services := map[string]bool{}
	formats := map[string]int{}
	for i := range bs {
		_, s := EncodeBatch(nil, &bs[i])
		size += s
		services[bs[i].Service] = true
		for _, ev := range bs[i].Events {
			n++
			templates[ev.Template] = true
			messages[ev.Message] = true
			switch ev.Level {
			case "error", "fatal":
				errs++
				if ev.StackTrace == "" {
					t.Errorf("%s event without a stack trace: %q", ev.Level, ev.Message)
				}
			case "info", "debug":
				quiet++
			}
			if ev.StackTrace != "" {
				stacks++
				if !strings.Contains(ev.StackTrace, "\n") {
					t.Errorf("one-line stack trace %q", ev.StackTrace)
				}
				formats[stackFormat(ev.StackTrace)]++
			}
			if len(ev.Attributes) < 3 {
				t.Errorf("event with %d attributes, want at least 3", len(ev.Attributes))
			}
		}
	}
	mean := float64(size) / float64(n)
	t.Logf("mean encoded event: %.1f bytes over %d events", mean, n)
	if mean < 450 || mean > 650 {
		t.Errorf("mean encoded event = %.1f bytes, want 450 to 650", mean)
	}
	if r := float64(stacks) / float64(n); r < 0.27 || r > 0.33 {
		t.Errorf("stack-trace ratio = %.3f, want about 0.30", r)
	}
	if r := float64(errs) / float64(n); r < 0.007 || r > 0.013 {
		t.Errorf("error/fatal ratio = %.4f, want about 0.01", r)
	}
	if r := float64(quiet) / float64(n); r < 0.8 {
		t.Errorf("info/debug ratio = %.3f, want most events", r)
	}
	if len(templates) != 200 {
		t.Errorf("distinct templates = %d, want 200", len(templates))
	}
	if len(messages) < 20*len(templates) {
		t.Errorf("distinct messages = %d for %d templates: the variable parts do not vary", len(messages), len(templates))
	}
	if len(services) != 5 {
		t.Errorf("distinct services = %d, want 5", len(services))
	}
	for _, f := range []string{"go", "java", "python", "node"} {
		if formats[f] == 0 {
			t.Errorf("no %s stack traces among %v", f, formats)
		}
	}
}

func stackFormat(s string) string {
	switch {
	case strings.HasPrefix(s, "panic: ") && strings.Contains(s, "\ngoroutine "):
		return "go"
	case strings.Contains(s, "\n\tat com."):
		return "java"
	case strings.HasPrefix(s, "Traceback (most recent call last):\n"):
		return "python"
	case strings.Contains(s, "\n    at "):
		return "node"
	}
	return "unknown"
}

func TestGeneratorOptions(t *testing.T) {
	t.Parallel()
	bs := sample(t, func(o *Options) { o.ErrorRatio, o.Templates, o.Services = 0.2, 17, 3 })
	var n, errs int
	templates := map[int]bool{}
	for _, b := range bs {
		for _, ev := range b.Events {
			n++
			templates[ev.Template] = true
			if ev.Level == "error" || ev.Level == "fatal" {
				errs++
			}
		}
	}
	if r := float64(errs) / float64(n); r < 0.18 || r > 0.22 {
		t.Errorf("error/fatal ratio = %.3f, want about 0.2", r)
	}
	if len(templates) != 17 {
		t.Errorf("distinct templates = %d, want 17", len(templates))
	}
	for _, bad := range []Options{{BatchSize: 0}, {BatchSize: 1001}} {
		o := DefaultOptions()
		o.BatchSize = bad.BatchSize
		if _, err := NewGenerator(o); err == nil {
			t.Errorf("NewGenerator with batch size %d: no error", o.BatchSize)
		}
	}
	o := DefaultOptions()
	o.ErrorRatio = 1.5
	if _, err := NewGenerator(o); err == nil {
		t.Error("NewGenerator with error ratio 1.5: no error")
	}
}

// checkBatch applies the rules of spec section 4.1 to an ingest body.
func checkBatch(t *testing.T, body []byte) int {
	t.Helper()
	var b struct {
		Service     *string `json:"service"`
		Environment string  `json:"environment"`
		Release     string  `json:"release"`
		Events      []map[string]any
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		t.Fatalf("batch is not the spec's JSON: %v", err)
	}
	if len(b.Events) < 1 || len(b.Events) > 1000 {
		t.Errorf("%d events, want 1 to 1000", len(b.Events))
	}
	if b.Service == nil || *b.Service == "" || utf8.RuneCountInString(*b.Service) > 128 {
		t.Errorf("service = %v, want 1 to 128 characters", b.Service)
	}
	if utf8.RuneCountInString(b.Environment) > 64 || utf8.RuneCountInString(b.Release) > 64 {
		t.Errorf("environment %q or release %q past 64 characters", b.Environment, b.Release)
	}
	known := map[string]bool{"message": true, "level": true, "timestamp": true, "stack_trace": true,
		"trace_id": true, "span_id": true, "attributes": true}
	levels := map[string]bool{"debug": true, "info": true, "warn": true, "error": true, "fatal": true}
	for i, ev := range b.Events {
		for k := range ev {
			if !known[k] {
				t.Errorf("event %d: unknown field %q", i, k)
			}
		}
		if m, _ := ev["message"].(string); m == "" {
			t.Errorf("event %d: message %v, want a non-empty string", i, ev["message"])
		}
		if l, _ := ev["level"].(string); !levels[l] {
			t.Errorf("event %d: level %v", i, ev["level"])
		}
		ts, _ := ev["timestamp"].(string)
		if _, err := time.Parse(time.RFC3339Nano, ts); err != nil {
			t.Errorf("event %d: timestamp %q: %v", i, ts, err)
		}
		if st, ok := ev["stack_trace"]; ok {
			if s, _ := st.(string); s == "" {
				t.Errorf("event %d: stack_trace %v", i, st)
			}
		}
		if a, ok := ev["attributes"]; ok {
			if _, isObj := a.(map[string]any); !isObj {
				t.Errorf("event %d: attributes %T, want an object", i, a)
			}
		}
	}
	return len(b.Events)
}

func TestBatchFollowsSpec(t *testing.T) {
	t.Parallel()
	for _, size := range []int{1, 7, 1000} {
		g := newTestGenerator(t, func(o *Options) { o.BatchSize = size })
		for i := range 3 {
			if got := checkBatch(t, encoded(g, i)); got != size {
				t.Errorf("batch of size %d has %d events", size, got)
			}
		}
	}
}

func TestAppendString(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "plain", `q"uote\back`, "tab\tnl\ncr\r", "ctl\x00\x1f", "é日本", "bad\xffutf8", "<&>"} {
		var got string
		if err := json.Unmarshal(appendString(nil, s), &got); err != nil {
			t.Errorf("appendString(%q) = %s: %v", s, appendString(nil, s), err)
			continue
		}
		want := strings.ToValidUTF8(s, "\uFFFD")
		if got != want {
			t.Errorf("appendString(%q) decodes to %q, want %q", s, got, want)
		}
	}
}
