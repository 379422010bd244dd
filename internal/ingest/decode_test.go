package ingest

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/problem"
)

var received = time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)

// body builds a batch: the batch fields as JSON members (or ""), then events.
func body(batch string, events ...string) string {
	if batch != "" {
		batch += ","
	}
	return "{" + batch + `"events":[` + strings.Join(events, ",") + "]}"
}

func TestDecodeNormalises(t *testing.T) {
	t.Parallel()
	recv := received.UnixMilli()
	tests := []struct {
		name string
		body string
		want []Event
	}{
		{"batch defaults", body(`"service":"api","environment":"prod","release":"1.2"`, `{"message":"m"}`),
			[]Event{{Service: "api", Environment: "prod", Release: "1.2", Level: Info, Message: "m", Timestamp: recv}}},
		{"event overrides", body(`"service":"api","environment":"prod","release":"1.2"`,
			`{"message":"m","service":"web","environment":"dev","release":"2.0"}`),
			[]Event{{Service: "web", Environment: "dev", Release: "2.0", Level: Info, Message: "m", Timestamp: recv}}},
		{"batch fields after events", `{"events":[{"message":"m"}],"service":"api"}`,
			[]Event{{Service: "api", Level: Info, Message: "m", Timestamp: recv}}},
		{"empty and null event values fall back to the batch", body(`"service":"api","release":"1"`,
			`{"message":"m","service":"","release":null}`),
			[]Event{{Service: "api", Release: "1", Level: Info, Message: "m", Timestamp: recv}}},
		{"no level with stack trace is error", body(`"service":"s"`, `{"message":"m","stack_trace":"at x"}`),
			[]Event{{Service: "s", Level: Error, Message: "m", StackTrace: "at x", Timestamp: recv}}},
		{"null level is absent", body(`"service":"s"`, `{"message":"m","level":null}`),
			[]Event{{Service: "s", Level: Info, Message: "m", Timestamp: recv}}},
		{"level synonym", body(`"service":"s"`, `{"message":"m","level":"CRITICAL","stack_trace":"x"}`),
			[]Event{{Service: "s", Level: Fatal, Message: "m", StackTrace: "x", Timestamp: recv}}},
		{"timestamp with offset", body(`"service":"s"`, `{"message":"m","timestamp":"2024-05-01T14:00:00.5+02:00"}`),
			[]Event{{Service: "s", Level: Info, Message: "m", Timestamp: recv + 500}}},
		{"ids kept", body(`"service":"s"`, `{"message":"m","trace_id":"4bf92f3577b34da6a3ce929d0e0e4736","span_id":"00f067aa0ba902b7"}`),
			[]Event{{Service: "s", Level: Info, Message: "m", Timestamp: recv, TraceID: "4bf92f3577b34da6a3ce929d0e0e4736", SpanID: "00f067aa0ba902b7"}}},
		{"unknown fields ignored", `{"sdk":{"name":"x","v":[1,2,{"a":null}]},"events":[{"message":"m","extra":[true,false,-1.5e3],"fingerprint":{}}],"service":"s"}`,
			[]Event{{Service: "s", Level: Info, Message: "m", Timestamp: recv}}},
		{"escapes decoded", body(`"service":"s\u00e9"`, `{"message":"a\"b\\c\/d\b\f\n\r\t\u00e9\ud83d\ude00\ud800x"}`),
			[]Event{{Service: "sé", Level: Info, Message: "a\"b\\c/d\b\f\n\r\té😀\uFFFDx", Timestamp: recv}}},
		{"escaped keys", `{"ev\u0065nts":[{"m\u0065ssage":"m"}],"service":"s"}`,
			[]Event{{Service: "s", Level: Info, Message: "m", Timestamp: recv}}},
		{"whitespace everywhere", " \t\n{ \"service\" : \"s\" , \"events\" : [ { \"message\" : \"m\" , \"attributes\" : { \"a\" : [ 1 , \"x y\" ] } } ] } \r\n",
			[]Event{{Service: "s", Level: Info, Message: "m", Timestamp: recv, Attributes: json.RawMessage(`{"a":[1,"x y"]}`)}}},
		{"attributes redacted", body(`"service":"s"`, `{"message":"m","attributes":{"user":"u","db_password":"hunter2","h":{"Authorization":{"x":1}}}}`),
			[]Event{{Service: "s", Level: Info, Message: "m", Timestamp: recv,
				Attributes: json.RawMessage(`{"user":"u","db_password":"[redacted]","h":{"Authorization":"[redacted]"}}`)}}},
		{"null and empty attributes", body(`"service":"s"`, `{"message":"m","attributes":null}`, `{"message":"n","attributes":{}}`),
			[]Event{{Service: "s", Level: Info, Message: "m", Timestamp: recv},
				{Service: "s", Level: Info, Message: "n", Timestamp: recv, Attributes: json.RawMessage(`{}`)}}},
		{"repeated keys: last wins", `{"service":"a","events":[{"message":1,"message":"m","level":"bogus","level":"warn"}],"service":"b"}`,
			[]Event{{Service: "b", Level: Warn, Message: "m", Timestamp: recv}}},
		{"limits exactly", body(fmt.Sprintf(`"service":%q,"environment":%q,"release":%q`, strings.Repeat("é", 128), strings.Repeat("e", 64), strings.Repeat("r", 64)),
			fmt.Sprintf(`{"message":%q,"trace_id":%q}`, strings.Repeat("m", MaxMessageBytes), strings.Repeat("t", MaxTraceIDLen))),
			[]Event{{Service: strings.Repeat("é", 128), Environment: strings.Repeat("e", 64), Release: strings.Repeat("r", 64),
				Level: Info, Message: strings.Repeat("m", MaxMessageBytes), Timestamp: recv, TraceID: strings.Repeat("t", MaxTraceIDLen)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Decode([]byte(tt.body), received)
			if err != nil {
				t.Fatalf("Decode(%s) error = %v, want none", tt.body, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Decode(%s)\n got %+v\nwant %+v", tt.body, got, tt.want)
			}
		})
	}
}

func TestDecodeManyEvents(t *testing.T) {
	t.Parallel()
	for _, n := range []int{1, MaxEvents} {
		events := make([]string, n)
		for i := range events {
			events[i] = fmt.Sprintf(`{"message":"event %d"}`, i)
		}
		got, err := Decode([]byte(body(`"service":"s"`, events...)), received)
		if err != nil {
			t.Fatalf("Decode(%d events) error = %v, want none", n, err)
		}
		if len(got) != n || got[n-1].Message != fmt.Sprintf("event %d", n-1) {
			t.Errorf("Decode(%d events) got %d events, last %+v; want %d", n, len(got), got[len(got)-1], n)
		}
	}
}

func TestDecodeTimestamps(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want string // RFC 3339 of the expected instant, or "" for invalid
	}{
		{"2024-05-01T12:00:00Z", "2024-05-01T12:00:00Z"},
		{"2024-05-01t12:00:00z", "2024-05-01T12:00:00Z"},
		{"2024-05-01 12:00:00Z", "2024-05-01T12:00:00Z"},
		{"2024-05-01T12:00:00.1Z", "2024-05-01T12:00:00.1Z"},
		{"2024-05-01T12:00:00.12Z", "2024-05-01T12:00:00.12Z"},
		{"2024-05-01T12:00:00.123456789Z", "2024-05-01T12:00:00.123Z"},
		{"2024-05-01T12:00:00,250Z", "2024-05-01T12:00:00.25Z"},
		{"2024-05-01T12:00:00+05:30", "2024-05-01T06:30:00Z"},
		{"2024-05-01T12:00:00-0800", "2024-05-01T20:00:00Z"},
		{"2024-02-29T23:59:60Z", "2024-03-01T00:00:00Z"},
		{"1969-12-31T23:59:59.999Z", "1969-12-31T23:59:59.999Z"},
		{"0001-01-01T00:00:00Z", "0001-01-01T00:00:00Z"},
		{"9999-12-31T23:59:59Z", "9999-12-31T23:59:59Z"},
		{"2024-05-01T12:00:00", ""},
		{"2024-05-01", ""},
		{"2024-05-01T12:00Z", ""},
		{"2023-02-29T12:00:00Z", ""},
		{"2024-13-01T12:00:00Z", ""},
		{"2024-05-01T24:00:00Z", ""},
		{"2024-05-01T12:00:00.Z", ""},
		{"2024-05-01T12:00:00+5:30", ""},
		{"2024-05-01T12:00:00+24:00", ""},
		{"2024-05-01T12:00:00 Z", ""},
		{"2024-05-01T12:00:00Zjunk", ""},
		{"+2024-05-01T12:00:00Z", ""},
		{"1714564800000", ""},
	}
	for _, tt := range tests {
		b := body(`"service":"s"`, fmt.Sprintf(`{"message":"m","timestamp":%q}`, tt.in))
		got, err := Decode([]byte(b), received)
		if tt.want == "" {
			if err == nil || !strings.HasPrefix(detail(err), "events[0].timestamp: ") {
				t.Errorf("Decode(timestamp %q) error = %v, want events[0].timestamp", tt.in, err)
			}
			continue
		}
		want, perr := time.Parse(time.RFC3339Nano, tt.want)
		if perr != nil {
			t.Fatal(perr)
		}
		if err != nil {
			t.Errorf("Decode(timestamp %q) error = %v, want none", tt.in, err)
		} else if got[0].Timestamp != want.UnixMilli() {
			t.Errorf("Decode(timestamp %q) = %d, want %d (%s)", tt.in, got[0].Timestamp, want.UnixMilli(), tt.want)
		}
	}
}

func detail(err error) string {
	var p *problem.Problem
	if errors.As(err, &p) {
		return p.Detail
	}
	return ""
}

func TestDecodeRejects(t *testing.T) {
	t.Parallel()
	const svc = `"service":"s"`
	many := func(n int, ev string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = ev
		}
		return out
	}
	long := func(n int) string { return strings.Repeat("x", n) }
	keys := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, `,"k%d":1`, i)
		}
		return "{" + b.String()[1:] + "}"
	}
	tests := []struct {
		name   string
		body   string
		status int
		detail string // the start of the problem's detail; "" to skip
	}{
		// 400 malformed-body
		{"empty body", ``, 400, ""},
		{"truncated", `{"events":[{"message":"m"`, 400, ""},
		{"trailing comma", body(svc, `{"message":"m"},`), 400, ""},
		{"trailing data", body(svc, `{"message":"m"}`) + `{}`, 400, ""},
		{"bare word", `{"events":[{"message":m}]}`, 400, ""},
		{"bad escape", body(svc, `{"message":"\x"}`), 400, ""},
		{"bad unicode escape", body(svc, `{"message":"\u12G4"}`), 400, ""},
		{"control character", body(svc, "{\"message\":\"a\nb\"}"), 400, ""},
		{"bad number", body(svc, `{"message":"m","x":01}`), 400, ""},
		{"single quotes", `{'events':[]}`, 400, ""},
		{"invalid UTF-8 in a value", body(svc, "{\"message\":\"\xff\"}"), 400, "the body is not valid UTF-8"},
		{"invalid UTF-8 in an unknown field", "{\"x\":\"\xc3\x28\"," + body(svc, `{"message":"m"}`)[1:], 400, "the body is not valid UTF-8"},
		{"syntax error after a validation error", body(svc, `{"message":""}`, `{"message":"m",}`), 400, ""},
		{"syntax error in the 1001st event", body(svc, append(many(1000, `{"message":"m"}`), `{"message":}`)...), 400, ""},
		// 422 on the batch
		{"not an object", `[{"message":"m"}]`, 422, "events: is required: the body must be a JSON object"},
		{"a bare value", `"m"`, 422, "events: is required: the body must be a JSON object"},
		{"no events", `{"service":"s"}`, 422, "events: is required"},
		{"events null", `{"service":"s","events":null}`, 422, "events: "},
		{"events an object", `{"service":"s","events":{"message":"m"}}`, 422, "events: "},
		{"zero events", body(svc), 422, "events: must hold 1 to 1000 events, not 0"},
		{"1001 events", body(svc, many(1001, `{"message":"m"}`)...), 422, "events: must hold 1 to 1000 events, not 1001"},
		{"batch service too long", body(`"service":"`+long(129)+`"`, `{"message":"m"}`), 422, "service: "},
		{"batch environment too long", body(svc+`,"environment":"`+long(65)+`"`, `{"message":"m"}`), 422, "environment: "},
		{"batch release too long", body(svc+`,"release":"`+long(65)+`"`, `{"message":"m"}`), 422, "release: "},
		{"batch service a number", body(`"service":1`, `{"message":"m"}`), 422, "service: must be a string"},
		{"batch service blank", body(`"service":"   "`, `{"message":"m"}`), 422, "service: must not be only white space"},
		{"batch wins over events", body(`"release":[]`, `{"message":""}`), 422, "release: "},
		// 422 on an event
		{"no service anywhere", body("", `{"message":"m","service":"a"}`, `{"message":"m"}`, `{"message":"m"}`), 422,
			"events[1].service: is required on the batch or on every event"},
		{"missing service beats a later event", body("", `{"message":"m"}`, `{"message":"m","service":"a","level":"x"}`), 422, "events[0].service: "},
		{"missing service beats the same event's level", body("", `{"message":"m","service":"a"}`, `{"level":"x","message":"m"}`), 422, "events[1].service: "},
		{"earlier event beats missing service", body("", `{"message":"m","service":"a","level":"x"}`, `{"message":"m"}`), 422, "events[0].level: "},
		{"event service too long", body(svc, `{"message":"m","service":"`+strings.Repeat("é", 129)+`"}`), 422, "events[0].service: is longer than 128 characters"},
		{"event service blank", body(svc, `{"message":"m"}`, `{"message":"m","service":"\t\n"}`), 422, "events[1].service: must not be only white space"},
		{"blank service before a long environment", body(svc, `{"message":"m","service":" ","environment":"`+long(65)+`"}`), 422, "events[0].service: must not be only white space"},
		{"event environment too long", body(svc, `{"message":"m","environment":"`+long(65)+`"}`), 422, "events[0].environment: "},
		{"event release a bool", body(svc, `{"message":"m","release":true}`), 422, "events[0].release: must be a string"},
		{"event not an object", body(svc, `{"message":"m"}`, `"m"`), 422, "events[1]: must be an object"},
		{"missing message", body(svc, `{"level":"info"}`), 422, "events[0].message: "},
		{"empty message", body(svc, `{"message":"m"}`, `{"message":""}`), 422, "events[1].message: "},
		{"null message", body(svc, `{"message":null}`), 422, "events[0].message: "},
		{"blank message", body(svc, `{"message":" \t\n "}`), 422, "events[0].message: is required and must not be empty or only white space"},
		{"message a number", body(svc, `{"message":42}`), 422, "events[0].message: must be a string"},
		{"message too long", body(svc, `{"message":"`+long(MaxMessageBytes+1)+`"}`), 422, "events[0].message: is longer than 16384 characters"},
		{"message of multi-byte characters too long", body(svc, `{"message":"`+strings.Repeat("é", MaxMessageBytes+1)+`"}`), 422, "events[0].message: is longer than 16384 characters"},
		{"message before level", body(svc, `{"level":"bogus"}`), 422, "events[0].message: "},
		{"unknown level", body(svc, `{"message":"m","level":"verbose"}`), 422, `events[0].level: "verbose" is not a level`},
		{"empty level", body(svc, `{"message":"m","level":""}`), 422, "events[0].level: "},
		{"level a number", body(svc, `{"message":"m","level":3}`), 422, "events[0].level: must be a string"},
		{"bad timestamp", body(svc, `{"message":"m","timestamp":"yesterday"}`), 422, "events[0].timestamp: "},
		{"timestamp a number", body(svc, `{"message":"m","timestamp":1714564800000}`), 422, "events[0].timestamp: must be a string"},
		{"stack trace too long", body(svc, `{"message":"m","stack_trace":"`+long(MaxStackTraceBytes+1)+`"}`), 422, "events[0].stack_trace: "},
		{"stack trace an array", body(svc, `{"message":"m","stack_trace":["a"]}`), 422, "events[0].stack_trace: must be a string"},
		{"trace id too long", body(svc, `{"message":"m","trace_id":"`+long(MaxTraceIDLen+1)+`"}`), 422, "events[0].trace_id: "},
		{"span id a number", body(svc, `{"message":"m","span_id":7}`), 422, "events[0].span_id: must be a string"},
		{"attributes an array", body(svc, `{"message":"m","attributes":[]}`), 422, "events[0].attributes: must be an object"},
		{"attributes a string", body(svc, `{"message":"m","attributes":"a=b"}`), 422, "events[0].attributes: must be an object"},
		{"too many attributes", body(svc, `{"message":"m","attributes":`+keys(MaxAttributes+1)+`}`), 422, "events[0].attributes: has 65 keys"},
		{"attributes too big", body(svc, `{"message":"m","attributes":{"a":"`+long(MaxAttributesBytes)+`"}}`), 422, "events[0].attributes: is "},
		{"attributes too deep", body(svc, `{"message":"m","attributes":{"a":`+strings.Repeat("[", MaxAttributesDepth)+strings.Repeat("]", MaxAttributesDepth)+`}}`), 422,
			"events[0].attributes: nested more than"},
		{"first event wins", body(svc, `{"message":"m"}`, `{"message":"m","level":"x"}`, `{"message":""}`), 422, "events[1].level: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Decode([]byte(tt.body), received)
			var p *problem.Problem
			if !errors.As(err, &p) {
				t.Fatalf("Decode() = %d events, error %v; want a *problem.Problem", len(got), err)
			}
			wantCode := map[int]string{400: "malformed-body", 422: "validation-failed"}[tt.status]
			if p.Status != tt.status || p.Code() != wantCode {
				t.Errorf("Decode() problem = %d %s %q, want %d %s", p.Status, p.Code(), p.Detail, tt.status, wantCode)
			}
			if !strings.HasPrefix(p.Detail, tt.detail) {
				t.Errorf("Decode() detail = %q, want it to start with %q", p.Detail, tt.detail)
			}
			if got != nil {
				t.Errorf("Decode() events = %v, want nil with an error", got)
			}
		})
	}
}

func TestDecodeAttributesLimitsCountCompactJSON(t *testing.T) {
	t.Parallel()
	// 16 KiB of compact JSON passes however much whitespace surrounds it.
	value := strings.Repeat("x", MaxAttributesBytes-len(`{"a":""}`))
	b := body(`"service":"s"`, `{"message":"m","attributes":{ "a" :  "`+value+`"   }}`)
	got, err := Decode([]byte(b), received)
	if err != nil {
		t.Fatalf("Decode() error = %v, want none", err)
	}
	if n := len(got[0].Attributes); n != MaxAttributesBytes {
		t.Errorf("len(Attributes) = %d, want %d", n, MaxAttributesBytes)
	}
}

// TestDecodeLimitsCountCodePoints: message and stack_trace may hold their
// limits in code points of any size (CONTRACT 6: lengths count Unicode
// code points), not in bytes.
func TestDecodeLimitsCountCodePoints(t *testing.T) {
	t.Parallel()
	msg, stack := strings.Repeat("é", MaxMessageBytes), strings.Repeat("😀", MaxStackTraceBytes)
	got, err := Decode([]byte(body(`"service":"s"`, `{"message":"`+msg+`","stack_trace":"`+stack+`"}`)), received)
	if err != nil {
		t.Fatalf("Decode() error = %v, want none", err)
	}
	if got[0].Message != msg || got[0].StackTrace != stack {
		t.Errorf("message of %d bytes, stack of %d: not kept whole", len(got[0].Message), len(got[0].StackTrace))
	}
}

func TestDecodeResultsDoNotAliasBody(t *testing.T) {
	t.Parallel()
	b := []byte(body(`"service":"svc"`, `{"message":"hello","attributes":{"k":"v"}}`))
	got, err := Decode(b, received)
	if err != nil {
		t.Fatal(err)
	}
	for i := range b {
		b[i] = 'X'
	}
	if got[0].Message != "hello" || got[0].Service != "svc" || string(got[0].Attributes) != `{"k":"v"}` {
		t.Errorf("after overwriting the body, event = %+v, want the values decoded", got[0])
	}
}
