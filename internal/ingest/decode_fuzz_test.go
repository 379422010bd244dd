package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/errata-dev/errata/internal/problem"
)

// FuzzDecode checks that Decode never panics, answers only 400 or 422
// problems, agrees with encoding/json on what is valid JSON, and returns
// only events within the limits. Plain go test runs the seeds in
// testdata/fuzz/FuzzDecode; go test -fuzz FuzzDecode explores.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"service":"s","events":[{"message":"m"}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		orig := bytes.Clone(body)
		events, err := Decode(body, received)
		if !bytes.Equal(body, orig) {
			t.Fatalf("Decode changed its input")
		}
		// encoding/json refuses nesting past 10000 levels; Decode need not.
		wellFormed := utf8.Valid(body) && json.Valid(body)
		checkable := bytes.Count(body, []byte("["))+bytes.Count(body, []byte("{")) < 10000
		if err != nil {
			var p *problem.Problem
			if !errors.As(err, &p) {
				t.Fatalf("Decode error = %T %v, want a *problem.Problem", err, err)
			}
			switch {
			case p.Status == 400 && p.Code() == "malformed-body":
				if wellFormed {
					t.Fatalf("Decode = 400 %q for a body encoding/json finds valid", p.Detail)
				}
			case p.Status == 422 && p.Code() == "validation-failed":
				if !wellFormed && checkable {
					t.Fatalf("Decode = 422 %q for a body encoding/json finds invalid", p.Detail)
				}
			default:
				t.Fatalf("Decode problem = %d %s, want 400 malformed-body or 422 validation-failed", p.Status, p.Code())
			}
			if events != nil {
				t.Fatalf("Decode returned %d events with an error", len(events))
			}
			return
		}
		if !wellFormed && checkable {
			t.Fatalf("Decode accepted a body encoding/json finds invalid")
		}
		if len(events) < 1 || len(events) > MaxEvents {
			t.Fatalf("Decode returned %d events, want 1 to %d", len(events), MaxEvents)
		}
		for i, ev := range events {
			checkEventLimits(t, i, ev)
		}
		// What is committed holds no U+0000 anywhere (CONTRACT 7).
		ScrubNUL(events)
		for i, ev := range events {
			for _, v := range []string{ev.Service, ev.Environment, ev.Release, ev.Message, ev.StackTrace, ev.TraceID, ev.SpanID} {
				if strings.IndexByte(v, 0) >= 0 {
					t.Fatalf("events[%d] keeps a NUL after ScrubNUL: %q", i, v)
				}
			}
			if len(ev.Attributes) > 0 {
				var v any
				if err := json.Unmarshal(ev.Attributes, &v); err != nil {
					t.Fatalf("events[%d].attributes after ScrubNUL are not JSON: %v: %s", i, err, ev.Attributes)
				}
				if hasNUL(v) {
					t.Fatalf("events[%d].attributes keep a NUL after ScrubNUL: %s", i, ev.Attributes)
				}
			}
		}
	})
}

func checkEventLimits(t *testing.T, i int, ev Event) {
	t.Helper()
	for _, f := range []struct {
		name, v string
		max     int // code points
	}{
		{"service", ev.Service, MaxServiceLen}, {"environment", ev.Environment, MaxEnvironmentLen},
		{"release", ev.Release, MaxReleaseLen}, {"trace_id", ev.TraceID, MaxTraceIDLen}, {"span_id", ev.SpanID, MaxSpanIDLen},
		{"message", ev.Message, MaxMessageBytes}, {"stack_trace", ev.StackTrace, MaxStackTraceBytes},
	} {
		if !utf8.ValidString(f.v) {
			t.Errorf("events[%d].%s = %q, not valid UTF-8", i, f.name, f.v)
		}
		if n := utf8.RuneCountInString(f.v); n > f.max {
			t.Errorf("events[%d].%s has %d characters, over %d", i, f.name, n, f.max)
		}
	}
	if ev.Service == "" || ev.Message == "" {
		t.Errorf("events[%d] = %+v, want a service and a message", i, ev)
	}
	if len(ev.Message) > MaxMessageBytes || len(ev.StackTrace) > MaxStackTraceBytes {
		t.Errorf("events[%d] message or stack trace over its byte limit", i)
	}
	if ev.Level < Debug || ev.Level > Fatal {
		t.Errorf("events[%d].level = %d, not a level", i, ev.Level)
	}
	if ev.Attributes != nil {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(ev.Attributes, &m); err != nil {
			t.Errorf("events[%d].attributes = %s, not a JSON object: %v", i, ev.Attributes, err)
		}
		if len(m) > MaxAttributes {
			t.Errorf("events[%d].attributes has %d keys, over %d", i, len(m), MaxAttributes)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, ev.Attributes); err == nil && compact.Len() != len(ev.Attributes) {
			t.Errorf("events[%d].attributes = %s, not compact", i, ev.Attributes)
		}
	}
}

// hasNUL reports whether a decoded JSON value holds U+0000 in any key or
// string.
func hasNUL(v any) bool {
	switch v := v.(type) {
	case string:
		return strings.IndexByte(v, 0) >= 0
	case []any:
		for _, x := range v {
			if hasNUL(x) {
				return true
			}
		}
	case map[string]any:
		for k, x := range v {
			if strings.IndexByte(k, 0) >= 0 || hasNUL(x) {
				return true
			}
		}
	}
	return false
}
