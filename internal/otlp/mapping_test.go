package otlp

import (
	"math"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"

	"github.com/errata-dev/errata/internal/ingest"
)

var received = time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)

// oneRecord builds a request of one resource with res attributes and one
// record, set up by rec.
func oneRecord(res map[string]any, rec func(lr plog.LogRecord)) plog.Logs {
	logs := plog.NewLogs()
	rl := logs.ResourceLogs().AppendEmpty()
	_ = rl.Resource().Attributes().FromRaw(res)
	sl := rl.ScopeLogs().AppendEmpty()
	sl.Scope().SetName("checkout")
	lr := sl.LogRecords().AppendEmpty()
	lr.Body().SetStr("boom")
	rec(lr)
	return logs
}

func TestMapResource(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		res                   map[string]any
		service, env, release string
	}{
		{"all three", map[string]any{"service.name": "api", "deployment.environment.name": "prod", "service.version": "1.2.3"}, "api", "prod", "1.2.3"},
		{"no service.name", map[string]any{}, "unknown_service", "", ""},
		{"empty service.name", map[string]any{"service.name": ""}, "unknown_service", "", ""},
		{"blank service.name", map[string]any{"service.name": " \t "}, "unknown_service", "", ""},
		{"legacy environment", map[string]any{"service.name": "api", "deployment.environment": "staging"}, "api", "staging", ""},
		{"new environment wins", map[string]any{"deployment.environment": "old", "deployment.environment.name": "new"}, "unknown_service", "new", ""},
		{"non-string version", map[string]any{"service.version": int64(7)}, "unknown_service", "", "7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := Map(oneRecord(tc.res, func(plog.LogRecord) {}), received, nil)
			if len(res.Events) != 1 {
				t.Fatalf("events = %d (%s), want 1", len(res.Events), res.Reason)
			}
			ev := res.Events[0]
			if ev.Service != tc.service || ev.Environment != tc.env || ev.Release != tc.release {
				t.Errorf("service, environment, release = %q, %q, %q; want %q, %q, %q", ev.Service, ev.Environment, ev.Release, tc.service, tc.env, tc.release)
			}
		})
	}
}

func TestMapLevel(t *testing.T) {
	for _, tc := range []struct {
		number plog.SeverityNumber
		text   string
		stack  bool
		want   ingest.Level
	}{
		{plog.SeverityNumberTrace, "", false, ingest.Debug},
		{plog.SeverityNumberTrace4, "", false, ingest.Debug},
		{plog.SeverityNumberDebug, "", false, ingest.Debug},
		{plog.SeverityNumberDebug4, "", false, ingest.Debug},
		{plog.SeverityNumberInfo, "", false, ingest.Info},
		{plog.SeverityNumberInfo4, "", false, ingest.Info},
		{plog.SeverityNumberWarn, "", false, ingest.Warn},
		{plog.SeverityNumberWarn4, "", false, ingest.Warn},
		{plog.SeverityNumberError, "", false, ingest.Error},
		{plog.SeverityNumberError4, "", false, ingest.Error},
		{plog.SeverityNumberFatal, "", false, ingest.Fatal},
		{plog.SeverityNumberFatal4, "", false, ingest.Fatal},
		{plog.SeverityNumberWarn, "FATAL", false, ingest.Warn},          // the number wins
		{plog.SeverityNumberUnspecified, "Warning", false, ingest.Warn}, // text alone
		{plog.SeverityNumberUnspecified, "crit", false, ingest.Fatal},
		{plog.SeverityNumberUnspecified, "", false, ingest.Info},
		{plog.SeverityNumberUnspecified, "", true, ingest.Error},
		{plog.SeverityNumberUnspecified, "SEVERE", false, ingest.Info}, // unknown text: the default
		{plog.SeverityNumberUnspecified, "SEVERE", true, ingest.Error},
		{plog.SeverityNumber(25), "warn", false, ingest.Warn}, // out of range: as if absent
	} {
		if got := level(tc.number, tc.text, tc.stack); got != tc.want {
			t.Errorf("level(%d, %q, stack %v) = %s, want %s", tc.number, tc.text, tc.stack, got, tc.want)
		}
	}
}

func TestMapRecord(t *testing.T) {
	traceID := pcommon.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36}
	spanID := pcommon.SpanID{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7}
	ts := time.Date(2026, 11, 21, 10, 0, 0, 123_456_789, time.UTC)
	for _, tc := range []struct {
		name  string
		rec   func(lr plog.LogRecord)
		check func(t *testing.T, ev ingest.Event)
	}{
		{"ids and timestamp", func(lr plog.LogRecord) {
			lr.SetTraceID(traceID)
			lr.SetSpanID(spanID)
			lr.SetTimestamp(pcommon.NewTimestampFromTime(ts))
			lr.SetObservedTimestamp(pcommon.NewTimestampFromTime(ts.Add(time.Hour)))
		}, func(t *testing.T, ev ingest.Event) {
			if ev.TraceID != "4bf92f3577b34da6a3ce929d0e0e4736" || ev.SpanID != "00f067aa0ba902b7" {
				t.Errorf("trace_id, span_id = %q, %q; want lowercase hex", ev.TraceID, ev.SpanID)
			}
			if ev.Timestamp != ts.UnixMilli() {
				t.Errorf("timestamp = %d, want %d", ev.Timestamp, ts.UnixMilli())
			}
		}},
		{"zero ids, observed time", func(lr plog.LogRecord) {
			lr.SetObservedTimestamp(pcommon.NewTimestampFromTime(ts))
		}, func(t *testing.T, ev ingest.Event) {
			if ev.TraceID != "" || ev.SpanID != "" || ev.Timestamp != ts.UnixMilli() {
				t.Errorf("trace_id %q, span_id %q, timestamp %d; want empty ids and %d", ev.TraceID, ev.SpanID, ev.Timestamp, ts.UnixMilli())
			}
		}},
		{"no time: receipt", func(plog.LogRecord) {}, func(t *testing.T, ev ingest.Event) {
			if ev.Timestamp != received.UnixMilli() {
				t.Errorf("timestamp = %d, want the receipt %d", ev.Timestamp, received.UnixMilli())
			}
		}},
		{"exception", func(lr plog.LogRecord) {
			a := lr.Attributes()
			a.PutStr("exception.type", "ValueError")
			a.PutStr("exception.message", "bad input")
			a.PutStr("exception.stacktrace", "Traceback (most recent call last):\n  File \"a.py\", line 1")
			a.PutStr("db_password", "hunter2")
			a.PutInt("user.id", 42)
		}, func(t *testing.T, ev ingest.Event) {
			if ev.Level != ingest.Error || !strings.HasPrefix(ev.StackTrace, "Traceback") {
				t.Errorf("level %s, stack %q; want error with the stack trace", ev.Level, ev.StackTrace)
			}
			want := `{"exception.type":"ValueError","exception.message":"bad input","db_password":"[redacted]","user.id":42,"otel.scope.name":"checkout"}`
			if string(ev.Attributes) != want {
				t.Errorf("attributes = %s, want %s", ev.Attributes, want)
			}
		}},
		{"empty body: exception.message", func(lr plog.LogRecord) {
			lr.Body().SetStr("")
			lr.Attributes().PutStr("exception.message", "bad input")
		}, func(t *testing.T, ev ingest.Event) {
			if ev.Message != "bad input" {
				t.Errorf("message = %q, want the exception message", ev.Message)
			}
		}},
		{"map body as JSON", func(lr plog.LogRecord) {
			m := lr.Body().SetEmptyMap()
			m.PutStr("msg", "a<b")
			m.PutDouble("ratio", math.NaN())
			m.PutEmptySlice("tags").AppendEmpty().SetBool(true)
		}, func(t *testing.T, ev ingest.Event) {
			if want := `{"msg":"a<b","ratio":"NaN","tags":[true]}`; ev.Message != want {
				t.Errorf("message = %s, want %s", ev.Message, want)
			}
		}},
		{"number body", func(lr plog.LogRecord) { lr.Body().SetDouble(1.5) }, func(t *testing.T, ev ingest.Event) {
			if ev.Message != "1.5" {
				t.Errorf("message = %q, want 1.5", ev.Message)
			}
		}},
		{"scope and event name", func(lr plog.LogRecord) { lr.SetEventName("payment.failed") }, func(t *testing.T, ev ingest.Event) {
			if want := `{"otel.scope.name":"checkout","event.name":"payment.failed"}`; string(ev.Attributes) != want {
				t.Errorf("attributes = %s, want %s", ev.Attributes, want)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := Map(oneRecord(map[string]any{"service.name": "api"}, tc.rec), received, nil)
			if len(res.Events) != 1 || res.Rejected != 0 {
				t.Fatalf("events %d, rejected %d (%s); want 1 accepted", len(res.Events), res.Rejected, res.Reason)
			}
			tc.check(t, res.Events[0])
		})
	}
}

func TestMapRejects(t *testing.T) {
	many := make(map[string]any, 65)
	for i := range 65 {
		many["k"+strings.Repeat("x", i)] = i
	}
	deep := map[string]any{}
	for range 40 {
		deep = map[string]any{"d": deep}
	}
	for _, tc := range []struct {
		name string
		res  map[string]any
		rec  func(lr plog.LogRecord)
		want string // in the reason
	}{
		{"empty body", nil, func(lr plog.LogRecord) { lr.Body().SetStr("") }, "log_records[0].body: is empty"},
		{"no body", nil, func(lr plog.LogRecord) { _ = lr.Body().FromRaw(nil) }, "body: is empty"},
		{"blank body", nil, func(lr plog.LogRecord) { lr.Body().SetStr(" \t\n") }, "log_records[0].body: is empty or only white space"},
		{"message too long", nil, func(lr plog.LogRecord) { lr.Body().SetStr(strings.Repeat("a", 16<<10+1)) }, "body: is longer than 16384 characters"},
		{"message of multi-byte characters too long", nil, func(lr plog.LogRecord) { lr.Body().SetStr(strings.Repeat("é", 16<<10+1)) }, "body: is longer than 16384 characters"},
		{"stack too long", nil, func(lr plog.LogRecord) {
			lr.Attributes().PutStr("exception.stacktrace", strings.Repeat("a", 64<<10+1))
		}, "exception.stacktrace is longer than 65536 characters"},
		{"65 attributes", nil, func(lr plog.LogRecord) { _ = lr.Attributes().FromRaw(many) }, "attributes: has 65 keys"},
		{"attributes too big", nil, func(lr plog.LogRecord) { lr.Attributes().PutStr("big", strings.Repeat("a", 16<<10)) }, "bytes of JSON, more than 16384"},
		{"attributes too deep", nil, func(lr plog.LogRecord) { _ = lr.Attributes().FromRaw(deep) }, "nested more than 32"},
		{"invalid UTF-8 body", nil, func(lr plog.LogRecord) { lr.Body().SetStr("a\xffb") }, "body: is not valid UTF-8"},
		{"invalid UTF-8 attribute", nil, func(lr plog.LogRecord) { lr.Attributes().PutStr("k", "\xff") }, "attributes: is not valid UTF-8"},
		{"service too long", map[string]any{"service.name": strings.Repeat("é", 129)}, func(plog.LogRecord) {}, "resource: attribute service.name is longer than 128"},
		{"environment too long", map[string]any{"deployment.environment.name": strings.Repeat("e", 65)}, func(plog.LogRecord) {}, "longer than 64"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := Map(oneRecord(tc.res, tc.rec), received, nil)
			if len(res.Events) != 0 || res.Rejected != 1 || !strings.Contains(res.Reason, tc.want) {
				t.Errorf("events %d, rejected %d, reason %q; want 1 rejected naming %q", len(res.Events), res.Rejected, res.Reason, tc.want)
			}
		})
	}
}

func TestMapPartial(t *testing.T) {
	logs := plog.NewLogs()
	for _, svc := range []string{"api", "worker"} {
		rl := logs.ResourceLogs().AppendEmpty()
		rl.Resource().Attributes().PutStr("service.name", svc)
		records := rl.ScopeLogs().AppendEmpty().LogRecords()
		records.AppendEmpty().Body().SetStr(svc + " ok")
		records.AppendEmpty() // empty body
	}
	res := Map(logs, received, nil)
	if len(res.Events) != 2 || res.Events[0].Service != "api" || res.Events[1].Service != "worker" {
		t.Fatalf("events = %+v, want one from api and one from worker", res.Events)
	}
	if want := "resource_logs[0].scope_logs[0].log_records[1].body: is empty"; res.Rejected != 2 || !strings.HasPrefix(res.Reason, want) {
		t.Errorf("rejected %d, reason %q; want 2, the first named %q", res.Rejected, res.Reason, want)
	}
}

func TestMapCapsRecords(t *testing.T) {
	logs := plog.NewLogs()
	records := logs.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords()
	for range MaxRecords + 3 {
		records.AppendEmpty().Body().SetStr("m")
	}
	res := Map(logs, received, nil)
	if len(res.Events) != MaxRecords || res.Rejected != 3 || !strings.Contains(res.Reason, "send smaller requests") {
		t.Errorf("events %d, rejected %d, reason %q; want %d and 3", len(res.Events), res.Rejected, res.Reason, MaxRecords)
	}
}

func TestMapDuplicateKeysKeepTheFirst(t *testing.T) {
	req := plogotlp.NewExportRequest()
	body := `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"body":{"stringValue":"m"},"attributes":[
		{"key":"k","value":{"stringValue":"first"}},{"key":"k","value":{"stringValue":"second"}}]}]}]}]}`
	if err := req.UnmarshalJSON([]byte(body)); err != nil {
		t.Fatal(err)
	}
	res := Map(req.Logs(), received, nil)
	if len(res.Events) != 1 || string(res.Events[0].Attributes) != `{"k":"first"}` {
		t.Errorf("events = %+v, want one with attributes {\"k\":\"first\"}", res.Events)
	}
}
