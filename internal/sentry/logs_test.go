package sentry

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/ingest"
)

func mapEnvelope(t *testing.T, body string) Result {
	t.Helper()
	env, err := ParseEnvelope([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	return Map(env, Options{Service: "shop", ReceivedAt: time.Unix(1700000000, 0)})
}

func TestMapLogs(t *testing.T) {
	res := mapEnvelope(t, "{}\n{\"type\":\"log\",\"content_type\":\"application/vnd.sentry.items.log+json\"}\n"+oneLine(`{"items":[
		{"timestamp":1700000001.5,"level":"trace","body":"t","trace_id":"5b8efff798038103d269b633813fc60c"},
		{"timestamp":1700000002,"level":"warn","body":"w","attributes":{
			"service":{"value":"billing","type":"string"},
			"sentry.environment":{"value":"prod","type":"string"},
			"sentry.release":{"value":"1.2.3","type":"string"},
			"sentry.message.template":{"value":"w %s","type":"string"},
			"rows":{"value":12,"type":"integer"},"big":{"value":9007199254740993,"type":"integer"},"ratio":{"value":0.5,"type":"double"},"ok":{"value":true,"type":"boolean"},
			"tags":{"value":["a","b"],"type":"array"},"token":{"value":"secret","type":"string"},"untyped":7,
			"user.id":{"value":"u-7","type":"string"},"user.email":{"value":"carol@example.com","type":"string"},
			"user.name":{"value":"Carol","type":"string"},"user.ip_address":{"value":"10.1.2.3","type":"string"}}},
		{"timestamp":1700000003,"level":"error","body":""},
		{"level":"bogus","severity_number":18,"body":"by number"},
		{"level":"fatal","body":"f\u0000"}]}`, 1<<20))
	if len(res.Malformed) != 1 || !strings.Contains(res.Malformed[0].Reason, "record 2") {
		t.Errorf("malformed %+v, want record 2 (no body)", res.Malformed)
	}
	if res.EventID != "" {
		t.Errorf("event id %q for logs alone, want none", res.EventID)
	}
	want := []struct {
		level   ingest.Level
		message string
		service string
		ts      int64
	}{
		{ingest.Debug, "t", "shop", 1700000001500},
		{ingest.Warn, "w", "billing", 1700000002000},
		{ingest.Error, "by number", "shop", 1700000000000},
		{ingest.Fatal, "f\uFFFD", "shop", 1700000000000},
	}
	if len(res.Events) != len(want) {
		t.Fatalf("got %d events, want %d", len(res.Events), len(want))
	}
	for k, w := range want {
		ev := res.Events[k]
		if why := checkEvent(ev); why != "" {
			t.Errorf("record %d is not valid for ingestion: %s", k, why)
		}
		if ev.Level != w.level || ev.Message != w.message || ev.Service != w.service || ev.Timestamp != w.ts {
			t.Errorf("record %d: %v %q %q %d, want %v %q %q %d", k, ev.Level, ev.Message, ev.Service, ev.Timestamp, w.level, w.message, w.service, w.ts)
		}
	}
	if ev := res.Events[0]; ev.TraceID != "5b8efff798038103d269b633813fc60c" {
		t.Errorf("trace id %q", ev.TraceID)
	}
	ev := res.Events[1]
	if ev.Environment != "prod" || ev.Release != "1.2.3" {
		t.Errorf("environment %q release %q", ev.Environment, ev.Release)
	}
	// The user's id, not their email, name or address (personal data, as on events).
	wantAttrs := `{"sentry.message.template":"w %s","big":9007199254740993,"ok":true,"ratio":0.5,"rows":12,"tags":["a","b"],"token":"[redacted]","user.id":"u-7"}`
	if string(ev.Attributes) != wantAttrs {
		t.Errorf("attributes %s, want %s", ev.Attributes, wantAttrs)
	}
	bad := mapEnvelope(t, "{}\n{\"type\":\"log\"}\n[1,2]\n{\"type\":\"log\"}\n{\"items\":[{\"body\":\"ok\"}]}")
	if len(bad.Malformed) != 1 || bad.Malformed[0].Item != 0 || len(bad.Events) != 1 {
		t.Errorf("a log item that is not an object: malformed %+v, %d events", bad.Malformed, len(bad.Events))
	}
}

func TestMapLogsCap(t *testing.T) {
	// Items of 30,000 records (840 KB, under the 1 MiB of an item) and
	// the rest, 9 past the cap.
	env := "{}"
	for left := MaxEvents + 9; left > 0; left -= 30000 {
		records := strings.Repeat(`{"level":"info","body":"b"},`, min(left, 30000))
		env += "\n{\"type\":\"log\"}\n{\"items\":[" + strings.TrimSuffix(records, ",") + "]}"
	}
	res := mapEnvelope(t, env)
	if len(res.Events) != MaxEvents || len(res.Malformed) != 1 || !strings.HasPrefix(res.Malformed[0].Reason, "9 log records") {
		t.Errorf("%d records: %d events, malformed %+v", MaxEvents+9, len(res.Events), res.Malformed)
	}
}

func TestParseStore(t *testing.T) {
	event := `{"event_id":"9ec79c33ec9942ab8353589fcb2e04dc","message":"from raven","level":"warning"}`
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write([]byte(event))
	zw.Close()
	b64zlib := base64.StdEncoding.EncodeToString(z.Bytes())
	for _, tt := range []struct {
		name, contentType, body string
		err                     error
		message                 string
	}{
		{"JSON", "application/json", event, nil, "from raven"},
		{"JSON with spaces", "", "\n " + event + "\n", nil, "from raven"},
		{"base64", "application/octet-stream", base64.StdEncoding.EncodeToString([]byte(event)), nil, "from raven"},
		{"base64 of zlib (raven)", "application/octet-stream", b64zlib, nil, "from raven"},
		{"base64 without padding", "", strings.TrimRight(b64zlib, "="), nil, "from raven"},
		{"NaN", "application/json", `{"message":"nan","extra":{"x":NaN}}`, nil, "nan"},
		{"envelope", "application/x-sentry-envelope; charset=utf-8", "{}\n{\"type\":\"event\"}\n" + event, nil, "from raven"},
		{"empty", "application/json", "  ", ErrMalformed, ""},
		{"not JSON", "application/json", "{nope", ErrMalformed, ""},
		{"not base64", "text/plain", "hello world!", ErrMalformed, ""},
		{"base64 of garbage", "", base64.StdEncoding.EncodeToString([]byte("garbage")), ErrMalformed, ""},
		{"too large", "application/json", `{"message":"` + strings.Repeat("x", MaxItemBytes) + `"}`, ErrItemTooLarge, ""},
	} {
		env, err := ParseStore(tt.contentType, []byte(tt.body))
		if !errors.Is(err, tt.err) {
			t.Errorf("%s: err %v, want %v", tt.name, err, tt.err)
			continue
		}
		if err != nil {
			continue
		}
		res := Map(env, Options{Service: "shop", ReceivedAt: time.Now()})
		if len(res.Events) != 1 || res.Events[0].Message != tt.message {
			t.Errorf("%s: events %+v, malformed %+v", tt.name, res.Events, res.Malformed)
		}
	}
	var big bytes.Buffer
	zw = zlib.NewWriter(&big)
	zw.Write([]byte(`{"message":"` + strings.Repeat("x", 2*MaxItemBytes) + `"}`))
	zw.Close()
	if _, err := ParseStore("", []byte(base64.StdEncoding.EncodeToString(big.Bytes()))); !errors.Is(err, ErrItemTooLarge) {
		t.Errorf("a zlib bomb in base64: err %v, want ErrItemTooLarge", err)
	}
}
