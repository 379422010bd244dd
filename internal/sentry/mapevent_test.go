package sentry

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/errata-dev/errata/internal/grouping"
	"github.com/errata-dev/errata/internal/ingest"
)

// received is the time of receipt mapOne gives.
var received = time.Unix(1700000000, 0).UnixMilli()

func TestMapEventFields(t *testing.T) {
	tests := []struct {
		name    string
		payload string
		check   func(t *testing.T, ev ingest.Event)
	}{
		{"levels", `{"level":"warning","message":"m"}`, level(ingest.Warn)},
		{"fatal", `{"level":"fatal","message":"m"}`, level(ingest.Fatal)},
		{"debug", `{"level":"debug","message":"m"}`, level(ingest.Debug)},
		{"no level is Sentry's error", `{"message":"m"}`, level(ingest.Error)},
		{"unknown level", `{"level":"loud","message":"m"}`, level(ingest.Error)},
		{"level of the wrong type", `{"level":3,"message":"m"}`, level(ingest.Error)},
		{"exception message", `{"exception":{"values":[{"type":"KeyError","value":"'id'"},{"type":"ValueError","value":"bad id","module":"app.errors"}]},"platform":"python"}`,
			message("ValueError: bad id")}, // CONTRACT 7: "<type>: <value>"; the trace qualifies it
		{"exception message of a JVM event", `{"exception":{"values":[{"type":"IllegalStateException","value":"boom","module":"java.lang"}]},"platform":"java"}`,
			message("IllegalStateException: boom")},
		{"sentry-go bare exception list", `{"exception":[{"type":"*errors.errorString","value":"inner"},{"type":"*fmt.wrapError","value":"outer: inner"}],"platform":"go"}`,
			message("*fmt.wrapError: outer: inner")},
		{"legacy exception interface", `{"sentry.interfaces.Exception":{"values":[{"type":"Error","value":"old"}]}}`, message("Error: old")},
		{"type only", `{"exception":{"values":[{"type":"StopIteration"}]}}`, message("StopIteration")},
		{"value only", `{"exception":{"values":[{"value":"Non-Error exception captured"}]}}`, message("Non-Error exception captured")},
		{"logentry formatted", `{"logentry":{"message":"user %s","params":["bob"],"formatted":"user bob"}}`,
			all(message("user bob"), attr("sentry.message.template", "user %s"))},
		{"logentry params", `{"logentry":{"message":"user %s paid %d%% of {}","params":["bob",50,"x"]}}`,
			all(message("user bob paid 50% of x"), attr("sentry.message.template", "user %s paid %d%% of {}"))},
		{"logentry formatted without params", `{"logentry":{"message":"user bob","formatted":"User bob"}}`,
			all(message("User bob"), noAttr("sentry.message.template"))},
		{"logentry named params", `{"logentry":{"message":"user %(name)s","params":{"name":"eve"}}}`, message("user eve")},
		{"message as an object", `{"message":{"message":"plain"}}`, message("plain")},
		{"message as a string", `{"message":"plain"}`, message("plain")},
		{"nothing to say", `{"level":"error"}`, message(unlabeled)},
		{"exception beside a log message", `{"logentry":{"formatted":"charge failed"},"exception":{"values":[{"type":"E","value":"v"}]}}`,
			all(message("E: v"), attr("sentry.message", "charge failed"))},
		{"timestamp in seconds", `{"message":"m","timestamp":1700000001.2345}`, timestamp(1700000001235)},
		{"timestamp RFC 3339", `{"message":"m","timestamp":"2023-11-14T22:13:21.5+01:00"}`, timestamp(1699996401500)},
		{"timestamp without zone", `{"message":"m","timestamp":"2023-11-14T22:13:21.123456"}`, timestamp(1700000001123)},
		{"timestamp as a numeric string", `{"message":"m","timestamp":"1700000001"}`, timestamp(1700000001000)},
		{"no timestamp", `{"message":"m"}`, timestamp(received)},
		{"unreadable timestamp", `{"message":"m","timestamp":"yesterday"}`, timestamp(received)},
		{"negative timestamp", `{"message":"m","timestamp":-5}`, timestamp(received)},
		{"service tag", `{"message":"m","tags":{"service":"billing","region":"eu"}}`,
			all(service("billing"), attr("tags.region", "eu"), noAttr("tags.service"))},
		{"tags as pairs", `{"message":"m","tags":[["service","billing"],["level",3],["ok",true],["bad",{}]]}`,
			all(service("billing"), attr("tags.level", "3"), attr("tags.ok", "true"), noAttr("tags.bad"))},
		{"project name without a service tag", `{"message":"m","tags":{"region":"eu"}}`, service("shop")},
		{"browser and os by name", `{"message":"m","contexts":{"browser":{"name":"Opera","version":"99.0"},"os":{"name":"Windows","version":"10"}}}`,
			all(attr("browser", "Opera"), attr("browser.version", "99.0"), attr("os", "Windows"), attr("os.version", "10"))},
		{"secrets redacted", `{"message":"m","tags":{"api_key":"k-123","user_password":"p"}}`,
			all(attr("tags.api_key", "[redacted]"), attr("tags.user_password", "[redacted]"))},
		{"fields to attributes", `{"message":"m","platform":"python","logger":"app.billing","transaction":"/orders/{id}","server_name":"web-3",
			"sdk":{"name":"sentry.python"},"user":{"id":42,"email":"a@b.c"},"request":{"url":"https://shop/orders/7","method":"POST"},
			"contexts":{"trace":{"trace_id":"5b8efff798038103d269b633813fc60c","span_id":"b0e6f15b45c36b12"},"runtime":{"name":"CPython","version":"3.12.1"}},
			"environment":"production","release":"shop@3.1.0","event_id":"9EC79C33-EC99-4283-8353-589FCB2E04DC"}`,
			all(attr("platform", "python"), attr("logger", "app.billing"), attr("transaction", "/orders/{id}"), attr("server_name", "web-3"),
				attr("sdk.name", "sentry.python"), attr("user.id", "42"), attr("request.url", "https://shop/orders/7"), attr("request.method", "POST"),
				attr("runtime", "CPython 3.12.1"), attr("sentry.event_id", "9ec79c33ec9942838353589fcb2e04dc"), noAttr("user.email"),
				func(t *testing.T, ev ingest.Event) {
					if ev.TraceID != "5b8efff798038103d269b633813fc60c" || ev.SpanID != "b0e6f15b45c36b12" ||
						ev.Environment != "production" || ev.Release != "shop@3.1.0" {
						t.Errorf("trace %q span %q environment %q release %q", ev.TraceID, ev.SpanID, ev.Environment, ev.Release)
					}
				})},
		{"user agent header", `{"message":"m","request":{"url":"https://shop/","headers":{"user-agent":"Mozilla/5.0 Firefox/120.0","Cookie":"x"}}}`,
			all(attr("user_agent", "Mozilla/5.0 Firefox/120.0"), noAttr("Cookie"))},
		{"user agent in header pairs", `{"message":"m","request":{"headers":[["Accept","*/*"],["User-Agent","curl/8.4"]]}}`, attr("user_agent", "curl/8.4")},
		{"headers of the wrong type", `{"message":"m","request":{"headers":"User-Agent: x"}}`, noAttr("user_agent")},
		{"fingerprint", `{"message":"m","fingerprint":["{{ default }}","db",7]}`, rawAttr("fingerprint", `["{{ default }}","db","7"]`)},
		{"fingerprint as a string", `{"message":"m","fingerprint":"one"}`, rawAttr("fingerprint", `["one"]`)},
		{"handled", `{"exception":{"values":[{"type":"E","mechanism":{"type":"onunhandledrejection","handled":false}}]}}`, rawAttr("handled", "false")},
		{"NaN from Python", `{"message":"m","extra":{"ratio":NaN,"max":Infinity,"min":-Infinity,"s":"NaN"},"level":"info"}`, level(ingest.Info)},
		{"invalid UTF-8 in a message", "{\"message\":\"a\xffb\",\"logentry\":{\"message\":\"c\xfe%s\",\"params\":[\"\xc3\"]}}", message("c\uFFFD\uFFFD")},
		{"invalid UTF-8 in a plain message", "{\"message\":\"a\xffb\"}", message("a\uFFFDb")},
		{"NUL and lone surrogates", `{"message":"a\u0000b\ud800c","tags":{"k\u0000":"v\u0000"},"release":"r\u0000"}`,
			all(message("a\uFFFDb\uFFFDc"), attr("tags.k\uFFFD", "v\uFFFD"), func(t *testing.T, ev ingest.Event) {
				if ev.Release != "r\uFFFD" {
					t.Errorf("release %q", ev.Release)
				}
			})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := mapOne(t, []byte(tt.payload))
			if why := checkEvent(ev); why != "" {
				t.Fatalf("the event is not valid for ingestion: %s", why)
			}
			tt.check(t, ev)
		})
	}
}

func all(checks ...func(*testing.T, ingest.Event)) func(*testing.T, ingest.Event) {
	return func(t *testing.T, ev ingest.Event) {
		t.Helper()
		for _, c := range checks {
			c(t, ev)
		}
	}
}

func level(want ingest.Level) func(*testing.T, ingest.Event) {
	return func(t *testing.T, ev ingest.Event) {
		if ev.Level != want {
			t.Errorf("level %v, want %v", ev.Level, want)
		}
	}
}

func message(want string) func(*testing.T, ingest.Event) {
	return func(t *testing.T, ev ingest.Event) {
		if ev.Message != want {
			t.Errorf("message %q, want %q", ev.Message, want)
		}
	}
}

func service(want string) func(*testing.T, ingest.Event) {
	return func(t *testing.T, ev ingest.Event) {
		if ev.Service != want {
			t.Errorf("service %q, want %q", ev.Service, want)
		}
	}
}

func timestamp(want int64) func(*testing.T, ingest.Event) {
	return func(t *testing.T, ev ingest.Event) {
		if ev.Timestamp != want {
			t.Errorf("timestamp %d, want %d", ev.Timestamp, want)
		}
	}
}

func attr(key, want string) func(*testing.T, ingest.Event) {
	return func(t *testing.T, ev ingest.Event) {
		if got := attribute(t, ev, key); got != want {
			t.Errorf("attribute %q = %q, want %q (all %s)", key, got, want, ev.Attributes)
		}
	}
}

func rawAttr(key, want string) func(*testing.T, ingest.Event) {
	return func(t *testing.T, ev ingest.Event) {
		var attrs map[string]json.RawMessage
		_ = json.Unmarshal(ev.Attributes, &attrs)
		if got := string(attrs[key]); got != want {
			t.Errorf("attribute %q = %s, want %s (all %s)", key, got, want, ev.Attributes)
		}
	}
}

func noAttr(key string) func(*testing.T, ingest.Event) {
	return func(t *testing.T, ev ingest.Event) {
		var attrs map[string]json.RawMessage
		_ = json.Unmarshal(ev.Attributes, &attrs)
		if v, ok := attrs[key]; ok {
			t.Errorf("attribute %q = %s, want none", key, v)
		}
	}
}

// TestMapEventLimits checks that an event past ingest's limits is cut to
// them, not rejected.
func TestMapEventLimits(t *testing.T) {
	var tags []string
	for k := 0; k < 150; k++ {
		tags = append(tags, `"tag`+itoa(k)+`":"`+strings.Repeat("v", 300)+`"`)
	}
	var frames []string
	for k := 0; k < 1500; k++ {
		frames = append(frames, `{"function":"f`+itoa(k)+strings.Repeat("x", 400)+`","module":"com.acme.Deep","filename":"Deep.java","lineno":`+itoa(k+1)+`,"in_app":true}`)
	}
	payload := `{"platform":"java","release":"` + strings.Repeat("r", 300) + `","environment":"` + strings.Repeat("é", 100) + `",
		"tags":{"service":"` + strings.Repeat("s", 500) + `",` + strings.Join(tags, ",") + `},
		"exception":{"values":[{"type":"DeepException","module":"com.acme","value":"` + strings.Repeat("x", 40000) + `",
		"stacktrace":{"frames":[` + strings.Join(frames, ",") + `]}}]}}`
	ev := mapOne(t, []byte(payload))
	if why := checkEvent(ev); why != "" {
		t.Fatalf("the event is not valid for ingestion: %s", why)
	}
	if n := utf8.RuneCountInString(ev.Release); n != ingest.MaxReleaseLen {
		t.Errorf("release cut to %d characters, want %d", n, ingest.MaxReleaseLen)
	}
	if n := utf8.RuneCountInString(ev.Environment); n != ingest.MaxEnvironmentLen {
		t.Errorf("environment cut to %d characters, want %d", n, ingest.MaxEnvironmentLen)
	}
	if len(ev.Message) > ingest.MaxMessageBytes || !strings.HasSuffix(ev.Message, "…") {
		t.Errorf("message of %d bytes, want it cut to %d with …", len(ev.Message), ingest.MaxMessageBytes)
	}
	if !strings.HasSuffix(ev.StackTrace, truncatedMark) || len(ev.StackTrace) > ingest.MaxStackTraceBytes {
		t.Errorf("a stack of 1500 long frames is %d bytes, not cut to %d and marked", len(ev.StackTrace), ingest.MaxStackTraceBytes)
	}
	if got := attribute(t, ev, droppedKey); got != "" {
		t.Errorf("%s is a string %q", droppedKey, got)
	}
	var attrs map[string]any
	_ = json.Unmarshal(ev.Attributes, &attrs)
	if attrs[droppedKey] == nil {
		t.Errorf("no %s with 150 tags", droppedKey)
	}
	st := grouping.ParseStack(ev.StackTrace)
	if flags := attribute(t, ev, "sentry.in_app"); len(flags) != len(st.Frames) || len(st.Frames) == 0 {
		t.Errorf("cut stack: %d flags for %d parsed frames", len(flags), len(st.Frames))
	}
	if len(st.Types) != 1 || st.Types[0] != "com.acme.DeepException" {
		t.Errorf("cut stack parses with types %q", st.Types)
	}
}

func TestMapThreads(t *testing.T) {
	ev := mapOne(t, []byte(`{"platform":"python","message":"slow","threads":{"values":[
		{"id":1,"stacktrace":{"frames":[{"function":"idle","abs_path":"/app/idle.py","lineno":1}]}},
		{"id":2,"current":true,"stacktrace":{"frames":[{"function":"main","abs_path":"/app/main.py","lineno":3,"in_app":true},{"function":"work","abs_path":"/app/work.py","lineno":9,"in_app":true}]}},
		{"id":3,"crashed":true,"stacktrace":{"frames":[]}}]}}`))
	want := "Stack (most recent call last):\n  File \"/app/main.py\", line 3, in main\n  File \"/app/work.py\", line 9, in work"
	if ev.StackTrace != want || attribute(t, ev, "sentry.in_app") != "yy" {
		t.Errorf("stack %q in_app %q, want the current thread's:\n%s", ev.StackTrace, attribute(t, ev, "sentry.in_app"), want)
	}
	// An exception without frames takes the thread's.
	ev = mapOne(t, []byte(`{"platform":"java","exception":{"values":[{"type":"ANR","value":"blocked"}]},
		"threads":[{"crashed":true,"stacktrace":{"frames":[{"module":"com.acme.Main","function":"run","filename":"Main.java","lineno":5}]}}]}`))
	if ev.StackTrace != "ANR: blocked\n\tat com.acme.Main.run(Main.java:5)" || attribute(t, ev, "sentry.in_app") != "?" {
		t.Errorf("stack %q in_app %q", ev.StackTrace, attribute(t, ev, "sentry.in_app"))
	}
}

func TestMapItems(t *testing.T) {
	body := "{\"event_id\":\"not-an-id\"}\n" +
		"{\"type\":\"session\"}\n{}\n" +
		"{\"type\":\"event\"}\n{\"type\":\"transaction\",\"event_id\":\"11111111111111111111111111111111\"}\n" +
		"{\"type\":\"transaction\"}\n{}\n" +
		"{\"type\":\"event\"}\nnot json\n" +
		"{\"type\":\"event\"}\n{\"event_id\":\"22222222222222222222222222222222\",\"message\":\"kept\"}\n" +
		"{\"type\":\"client_report\"}\n{}\n"
	env, err := ParseEnvelope([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	res := Map(env, Options{Service: "shop", ReceivedAt: time.Now()})
	if res.EventID != "22222222222222222222222222222222" {
		t.Errorf("event id %q, want the first event's", res.EventID)
	}
	if len(res.Events) != 1 || res.Events[0].Message != "kept" {
		t.Errorf("events %+v", res.Events)
	}
	if res.Dropped["session"] != 1 || res.Dropped["transaction"] != 2 || res.Dropped["client_report"] != 1 || len(res.Dropped) != 3 {
		t.Errorf("dropped %v", res.Dropped)
	}
	if len(res.Malformed) != 1 || res.Malformed[0].Item != 3 || res.Malformed[0].Type != "event" {
		t.Errorf("malformed %+v, want item 3", res.Malformed)
	}
}

// TestMapHeaderEventID: the envelope's first event takes the header's
// event_id, the id the SDK is answered with, whatever its payload names,
// so that a look-up by it finds the event; a second event without an id of
// its own is given another.
func TestMapHeaderEventID(t *testing.T) {
	body := "{\"event_id\":\"6a1b2c3d-4e5f-6071-8293-a4b5c6d7e8f9\"}\n" +
		"{\"type\":\"event\"}\n{\"message\":\"first\",\"event_id\":\"f8074711111111111111111111111111\"}\n{\"type\":\"event\"}\n{\"message\":\"second\"}\n"
	env, err := ParseEnvelope([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	res := Map(env, Options{Service: "shop", ReceivedAt: time.Now()})
	if res.EventID != "6a1b2c3d4e5f60718293a4b5c6d7e8f9" || len(res.Events) != 2 {
		t.Fatalf("answered %q with %d events", res.EventID, len(res.Events))
	}
	if a := string(res.Events[0].Attributes); !strings.Contains(a, `"sentry.event_id":"6a1b2c3d4e5f60718293a4b5c6d7e8f9"`) {
		t.Errorf("first event attributes %s, want the header's id", a)
	}
	if a := string(res.Events[1].Attributes); !strings.Contains(a, `"sentry.event_id"`) || strings.Contains(a, "6a1b2c3d4e5f60718293a4b5c6d7e8f9") {
		t.Errorf("second event attributes %s, want an id of its own", a)
	}
}

// TestRenderSparseFrames checks that frames missing their file, line or
// function still render one parsed frame each, so that sentry.in_app lines
// up with the frames grouping reads.
func TestRenderSparseFrames(t *testing.T) {
	frames := `[{"function":"a","in_app":true},{"filename":"x"},{"lineno":3,"in_app":false},{}]`
	for _, platform := range []string{"python", "java", "node", "go", "csharp", "ruby", "php", "elixir"} {
		ev := mapOne(t, []byte(`{"platform":"`+platform+`","exception":{"values":[{"type":"E","value":"v","stacktrace":{"frames":`+frames+`}}]}}`))
		st := grouping.ParseStack(ev.StackTrace)
		flags := attribute(t, ev, "sentry.in_app")
		if len(flags) != len(st.Frames) || len(flags) == 0 {
			t.Errorf("%s: %d flags %q for %d parsed frames:\n%s", platform, len(flags), flags, len(st.Frames), ev.StackTrace)
		}
	}
}

// TestMapRedactsWithTheConfiguredKeys checks that Options.Redact, the
// installation's redactor (ERRATA_REDACT_KEYS), applies to event and log
// attributes alike, besides the default names.
func TestMapRedactsWithTheConfiguredKeys(t *testing.T) {
	t.Parallel()
	body := "{}\n" +
		`{"type":"event"}` + "\n" + `{"message":"m","tags":{"ssn":"123-45-6789","api_key":"k","region":"eu"}}` + "\n" +
		`{"type":"log"}` + "\n" + `{"items":[{"timestamp":1.5,"level":"info","body":"b","attributes":{"user.ssn":{"value":"1","type":"string"}}}]}` + "\n"
	env, err := ParseEnvelope([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	res := Map(env, Options{Service: "s", ReceivedAt: time.Now(), Redact: ingest.NewRedactor([]string{"ssn"}),
		NewID: func() string { return "0123456789abcdef0123456789abcdef" }})
	if len(res.Events) != 2 {
		t.Fatalf("got %d events, want 2 (malformed %+v)", len(res.Events), res.Malformed)
	}
	for i, want := range []string{
		`{"sentry.event_id":"0123456789abcdef0123456789abcdef","tags.ssn":"[redacted]","tags.api_key":"[redacted]","tags.region":"eu"}`,
		`{"user.ssn":"[redacted]"}`,
	} {
		if got := string(res.Events[i].Attributes); got != want {
			t.Errorf("event %d attributes %s, want %s", i, got, want)
		}
	}
	plain := Map(env, Options{Service: "s", ReceivedAt: time.Now()})
	if got := string(plain.Events[0].Attributes); !strings.Contains(got, `"tags.ssn":"123-45-6789"`) {
		t.Errorf("without Options.Redact, the default names only: %s", got)
	}
}

// TestSentIfFuture: a Sentry timestamp more than five minutes ahead is kept
// as the SDK wrote it (a string's text or a number's literal) for
// original_timestamp; one within five minutes is not kept.
func TestSentIfFuture(t *testing.T) {
	received := int64(1_795_000_000_000)
	for raw, want := range map[string]string{
		`1795003600.5`:                  "1795003600.5",
		`"2026-11-19T10:00:00.5+02:00"`: "2026-11-19T10:00:00.5+02:00",
		`1795000060`:                    "",
	} {
		if got := sentIfFuture([]byte(raw), eventTime([]byte(raw), received), received); got != want {
			t.Errorf("sentIfFuture(%s) = %q, want %q", raw, got, want)
		}
	}
}

// TestMapRequestUserAgent: a browser's User-Agent header of the request that
// carried the envelope is the user agent of an event whose own request
// names none; the event's own wins, and an SDK's agent is never taken.
func TestMapRequestUserAgent(t *testing.T) {
	const firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0"
	for _, c := range []struct {
		name, header, payload, want string
	}{
		{"a browser's header", firefox, `{"message":"m"}`, firefox},
		{"the event's own wins", firefox, `{"message":"m","request":{"headers":{"User-Agent":"Mozilla/5.0 Chrome/119.0"}}}`, "Mozilla/5.0 Chrome/119.0"},
		{"a request without one", firefox, `{"message":"m","request":{"url":"https://shop/"}}`, firefox},
		{"an SDK's agent", "sentry.python/2.19.0", `{"message":"m"}`, ""},
		{"no header", "", `{"message":"m"}`, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			env, err := ParseEnvelope([]byte("{}\n{\"type\":\"event\"}\n" + c.payload))
			if err != nil {
				t.Fatal(err)
			}
			res := Map(env, Options{Service: "shop", ReceivedAt: time.Unix(1700000000, 0), UserAgent: c.header})
			if len(res.Events) != 1 {
				t.Fatalf("got %d events", len(res.Events))
			}
			var attrs map[string]any
			if raw := res.Events[0].Attributes; len(raw) > 0 {
				if err := json.Unmarshal(raw, &attrs); err != nil {
					t.Fatal(err)
				}
			}
			if got, _ := attrs["user_agent"].(string); got != c.want {
				t.Errorf("user_agent = %q, want %q", got, c.want)
			}
		})
	}
}

// TestExceptionAttributesNeverDisplaceTags: the main exception's
// exception.type and exception.message come after the tags, so under the
// cap of attribute keys an event keeps as many tags with an exception as
// without one.
func TestExceptionAttributesNeverDisplaceTags(t *testing.T) {
	var tags []string
	for i := range 70 {
		tags = append(tags, fmt.Sprintf(`"t%02d":"v"`, i))
	}
	tagObj := `"tags":{` + strings.Join(tags, ",") + `}`
	kept := func(payload string) (n int, attrs map[string]any) {
		ev := mapOne(t, []byte(payload))
		if err := json.Unmarshal(ev.Attributes, &attrs); err != nil {
			t.Fatal(err)
		}
		for k := range attrs {
			if strings.HasPrefix(k, "tags.") {
				n++
			}
		}
		return n, attrs
	}
	withExc, attrs := kept(`{"platform":"python",` + tagObj + `,"exception":{"values":[{"type":"LedgerError","value":"entry 5"}]}}`)
	without, _ := kept(`{"platform":"python",` + tagObj + `,"message":"entry 5"}`)
	if withExc != without || withExc == 0 {
		t.Errorf("tags kept: %d with an exception, %d without; want the same", withExc, without)
	}
	if _, ok := attrs["exception.type"]; ok {
		t.Errorf("exception.type kept in place of a tag: %v", attrs)
	}
	_, small := kept(`{"platform":"python","exception":{"values":[{"type":"LedgerError","value":"entry 5\nsecond line"}]}}`)
	if small["exception.type"] != "LedgerError" || small["exception.message"] != "entry 5" {
		t.Errorf("exception attributes = %v, %v; want LedgerError and the value's first line", small["exception.type"], small["exception.message"])
	}
}

// TestEventWithoutID: as Relay does, an event without a usable event_id is
// given one, answered and stored with it (so that lookup finds the id the
// client was answered with); each event of an envelope keeps its own id.
func TestEventWithoutID(t *testing.T) {
	t.Parallel()
	idOf := func(e ingest.Event) string {
		var a struct {
			ID string `json:"sentry.event_id"`
		}
		_ = json.Unmarshal(e.Attributes, &a)
		return a.ID
	}
	for _, body := range []string{`{"message":"stored"}`, `{"message":"stored","event_id":"not-an-id"}`} {
		env, err := ParseStore("application/json", []byte(body))
		if err != nil {
			t.Fatal(err)
		}
		a, b := Map(env, Options{Service: "s", ReceivedAt: time.Now()}), Map(env, Options{Service: "s", ReceivedAt: time.Now()})
		if cleanID(a.EventID) != a.EventID || a.EventID == "" || a.EventID == b.EventID {
			t.Fatalf("%s: ids %q and %q, want two new ids of 32 hexadecimal digits", body, a.EventID, b.EventID)
		}
		if len(a.Events) != 1 || idOf(a.Events[0]) != a.EventID {
			t.Fatalf("%s: stored with %q, answered %q", body, idOf(a.Events[0]), a.EventID)
		}
	}
	const first, second = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
	env, err := ParseEnvelope([]byte("{}\n" + `{"type":"event"}` + "\n" + `{"message":"one","event_id":"` + first + `"}` + "\n" +
		`{"type":"event"}` + "\n" + `{"message":"two","event_id":"` + second + `"}` + "\n" + `{"type":"event"}` + "\n" + `{"message":"three"}` + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	res := Map(env, Options{Service: "s", ReceivedAt: time.Now()})
	if len(res.Events) != 3 || res.EventID != first || idOf(res.Events[0]) != first || idOf(res.Events[1]) != second ||
		idOf(res.Events[2]) == "" || idOf(res.Events[2]) == first {
		t.Fatalf("answered %q; stored %q, %q, %q", res.EventID, idOf(res.Events[0]), idOf(res.Events[1]), idOf(res.Events[2]))
	}
}
