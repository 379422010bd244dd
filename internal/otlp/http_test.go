package otlp_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploghttp"
	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/config"
)

func httpExporter(t *testing.T, s *apitest.Server, key string, opts ...otlploghttp.Option) *otlploghttp.Exporter {
	t.Helper()
	opts = append([]otlploghttp.Option{
		otlploghttp.WithEndpointURL(s.URL + "/v1/logs"),
		otlploghttp.WithHeaders(map[string]string{"Authorization": "Bearer " + key}),
		otlploghttp.WithRetry(otlploghttp.RetryConfig{Enabled: false}),
	}, opts...)
	exp, err := otlploghttp.New(context.Background(), opts...)
	if err != nil {
		t.Fatalf("new exporter: %v", err)
	}
	return exp
}

func TestHTTPExportWithTheSDK(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		for _, tc := range []struct {
			name string
			opts []otlploghttp.Option
		}{
			{"protobuf", nil},
			{"protobuf gzip", []otlploghttp.Option{otlploghttp.WithCompression(otlploghttp.GzipCompression)}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				before := len(queued(t, s, w.projectID))
				l, rec := sdkLogger(t, httpExporter(t, s, w.key, tc.opts...))
				emitError(l)
				if err := rec.lastErr(); err != nil {
					t.Fatalf("export: %v", err)
				}
				events := queued(t, s, w.projectID)
				if len(events) != before+1 {
					t.Fatalf("queued events = %d, want %d", len(events), before+1)
				}
				checkErrorEvent(t, events[before])

				emitEmpty(l) // rejected in partial_success, which the SDK reports as an error
				if err := rec.lastErr(); err == nil || !strings.Contains(err.Error(), "1 logs rejected") || !strings.Contains(err.Error(), "body: is empty") {
					t.Errorf("export of an empty record: %v; want a partial success naming the body", err)
				}
				if got := len(queued(t, s, w.projectID)); got != before+1 {
					t.Errorf("queued events after the empty record = %d, want %d", got, before+1)
				}
			})
		}
		l, rec := sdkLogger(t, httpExporter(t, s, w.owner.Token))
		emitError(l)
		if err := rec.lastErr(); err == nil || !strings.Contains(err.Error(), "401") {
			t.Errorf("export with a session token: %v, want 401", err)
		}
		m := string(s.Do(apitest.Request{Method: "GET", Path: "/metrics"}).Body)
		for _, want := range []string{`errata_ingest_accepted_events_total{route="otlp_http"} 2`, `errata_ingest_refused_requests_total{reason="validation_failed",route="otlp_http"} 2`} {
			if !strings.Contains(m, want) {
				t.Errorf("metrics lack %s", want)
			}
		}
	})
}

// jsonRequest is an OTLP/JSON body of one record with ids, as pdata writes it
// (ids in hex, as OTLP/JSON requires), plus one record with an empty body.
func jsonRequest(t *testing.T) []byte {
	t.Helper()
	logs := plog.NewLogs()
	rl := logs.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr("service.name", "api")
	records := rl.ScopeLogs().AppendEmpty().LogRecords()
	lr := records.AppendEmpty()
	lr.Body().SetStr("json works")
	lr.SetSeverityNumber(plog.SeverityNumberWarn)
	lr.SetTraceID(pcommon.TraceID(traceID))
	lr.SetSpanID(pcommon.SpanID(spanID))
	lr.Attributes().PutStr("Authorization", "Bearer xyz")
	records.AppendEmpty()
	b, err := plogotlp.NewExportRequestFromLogs(logs).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(`"traceId":"4bf92f3577b34da6a3ce929d0e0e4736"`)) {
		t.Fatalf("pdata JSON without a hex trace id: %s", b)
	}
	return b
}

func TestHTTPExportJSON(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		r := s.Do(apitest.Request{Method: "POST", Path: "/v1/logs", Token: w.key, Body: jsonRequest(t)})
		if r.Status != http.StatusOK || r.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("answer %d %q: %s; want 200 application/json", r.Status, r.Header.Get("Content-Type"), r.Body)
		}
		resp := plogotlp.NewExportResponse()
		if err := resp.UnmarshalJSON(r.Body); err != nil {
			t.Fatalf("answer is not an OTLP/JSON ExportLogsServiceResponse: %v: %s", err, r.Body)
		}
		if ps := resp.PartialSuccess(); ps.RejectedLogRecords() != 1 || !strings.Contains(ps.ErrorMessage(), "log_records[1].body") {
			t.Errorf("partial_success = %d %q, want 1 naming log_records[1].body", ps.RejectedLogRecords(), ps.ErrorMessage())
		}
		events := queued(t, s, w.projectID)
		if len(events) != 1 {
			t.Fatalf("queued events = %d, want 1", len(events))
		}
		ev := events[0]
		if ev.TraceID != "4bf92f3577b34da6a3ce929d0e0e4736" || ev.SpanID != "00f067aa0ba902b7" || ev.Level.String() != "warn" ||
			ev.Message != "json works" || string(ev.Attributes) != `{"Authorization":"[redacted]"}` {
			t.Errorf("event = %+v; want the record with hex ids, warn, the secret redacted", ev)
		}
		if r.Header.Get("RateLimit-Remaining") == "" {
			t.Error("200 without RateLimit-* headers")
		}
	})
}

func gz(t *testing.T, b []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	_, _ = zw.Write(b)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func protoRequest(t *testing.T) []byte {
	t.Helper()
	logs := plog.NewLogs()
	logs.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty().Body().SetStr("m")
	b, err := plogotlp.NewExportRequestFromLogs(logs).MarshalProto()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// rpcStatus decodes a google.rpc.Status answer in the encoding of its
// Content-Type.
func rpcStatus(t *testing.T, r *apitest.Response) *spb.Status {
	t.Helper()
	st := &spb.Status{}
	var err error
	switch ct := r.Header.Get("Content-Type"); ct {
	case "application/json":
		err = protojson.Unmarshal(r.Body, st)
	case "application/x-protobuf":
		err = proto.Unmarshal(r.Body, st)
	default:
		t.Fatalf("Content-Type %q is not an OTLP encoding", ct)
	}
	if err != nil {
		t.Fatalf("body is not a google.rpc.Status: %v: %q", err, r.Body)
	}
	return st
}

func TestHTTPRefusals(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		pb, js := protoRequest(t), jsonRequest(t)
		protoCT := map[string]string{"Content-Type": "application/x-protobuf"}
		with := func(h map[string]string, kv ...string) map[string]string {
			out := map[string]string{}
			for k, v := range h {
				out[k] = v
			}
			for i := 0; i < len(kv); i += 2 {
				out[kv[i]] = kv[i+1]
			}
			return out
		}
		for _, tc := range []struct {
			name    string
			key     string
			body    []byte
			headers map[string]string
			status  int
			code    codes.Code
			ct      string
		}{
			{"no credential", "", pb, protoCT, 401, codes.Unauthenticated, "application/x-protobuf"},
			{"wrong key", w.key + "x", pb, protoCT, 401, codes.Unauthenticated, "application/x-protobuf"},
			{"session token", w.owner.Token, js, nil, 401, codes.Unauthenticated, "application/json"},
			{"text/plain", w.key, pb, map[string]string{"Content-Type": "text/plain"}, 415, codes.InvalidArgument, "application/json"},
			{"brotli", w.key, pb, with(protoCT, "Content-Encoding", "br"), 415, codes.InvalidArgument, "application/x-protobuf"},
			{"bad protobuf", w.key, []byte("\xff\xff\xff"), protoCT, 400, codes.InvalidArgument, "application/x-protobuf"},
			{"bad JSON", w.key, []byte(`{"resourceLogs":[`), nil, 400, codes.InvalidArgument, "application/json"},
			{"bad JSON quoting invalid UTF-8", w.key, []byte("{\"resourceLogs\":[\xff]}"), nil, 400, codes.InvalidArgument, "application/json"},
			{"protobuf sent as JSON", w.key, pb, nil, 400, codes.InvalidArgument, "application/json"},
			{"not gzip", w.key, pb, with(protoCT, "Content-Encoding", "gzip"), 400, codes.InvalidArgument, "application/x-protobuf"},
			{"over 5 MiB", w.key, bytes.Repeat([]byte{0}, 5<<20+1), protoCT, 413, codes.InvalidArgument, "application/x-protobuf"},
			{"gzip bomb", w.key, gz(t, bytes.Repeat([]byte{0}, 21<<20)), with(protoCT, "Content-Encoding", "gzip"), 413, codes.InvalidArgument, "application/x-protobuf"},
			{"gzip protobuf", w.key, gz(t, pb), with(protoCT, "Content-Encoding", "gzip"), 200, codes.OK, "application/x-protobuf"},
			{"gzip JSON", w.key, gz(t, js), map[string]string{"Content-Encoding": "gzip"}, 200, codes.OK, "application/json"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := s.Do(apitest.Request{Method: "POST", Path: "/v1/logs", Token: tc.key, Body: tc.body, Headers: tc.headers})
				if r.Status != tc.status || r.Header.Get("Content-Type") != tc.ct {
					t.Fatalf("answer %d %q: %q; want %d %s", r.Status, r.Header.Get("Content-Type"), r.Body, tc.status, tc.ct)
				}
				if r.Header.Get("RateLimit-Limit") == "" || r.Header.Get("RateLimit-Reset") == "" {
					t.Errorf("%d answer without RateLimit-* headers: %v", r.Status, r.Header)
				}
				if tc.status == 200 {
					return
				}
				if st := rpcStatus(t, r); codes.Code(st.GetCode()) != tc.code || st.GetMessage() == "" {
					t.Errorf("status = %v %q, want %v with a message", codes.Code(st.GetCode()), st.GetMessage(), tc.code)
				}
			})
		}
		if got := len(queued(t, s, w.projectID)); got != 2 {
			t.Errorf("queued events = %d, want 2 (the gzip requests)", got)
		}
	})
}

func TestHTTPRateLimitAndBackPressure(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		req := apitest.Request{Method: "POST", Path: "/v1/logs", Token: w.key, Body: protoRequest(t), Headers: map[string]string{"Content-Type": "application/x-protobuf"}}
		s.Do(req)
		s.Do(req)
		r := s.Do(req)
		if r.Status != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "" || r.Header.Get("RateLimit-Remaining") != "0" {
			t.Fatalf("third request: %d, headers %v; want 429 with Retry-After and RateLimit-Remaining 0", r.Status, r.Header)
		}
		if st := rpcStatus(t, r); codes.Code(st.GetCode()) != codes.ResourceExhausted {
			t.Errorf("429 status code = %v, want ResourceExhausted", codes.Code(st.GetCode()))
		}
		l, rec := sdkLogger(t, httpExporter(t, s, w.key))
		emitError(l)
		if err := rec.lastErr(); err == nil || !strings.Contains(err.Error(), "retry-able") || !strings.Contains(err.Error(), "rate limit") {
			t.Errorf("SDK export over the limit: %v, want a retryable rate-limit error", err)
		}
	}, func(c *config.Serve) { c.IngestRateLimit, c.IngestRateBurst = 0.0001, 2 })

	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		req := apitest.Request{Method: "POST", Path: "/v1/logs", Token: w.key, Body: jsonRequest(t)}
		if r := s.Do(req); r.Status != http.StatusOK {
			t.Fatalf("first request: %d %s", r.Status, r.Body)
		}
		r := s.Do(req)
		if r.Status != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" {
			t.Fatalf("over the backlog: %d, headers %v; want 503 with Retry-After", r.Status, r.Header)
		}
		if st := rpcStatus(t, r); codes.Code(st.GetCode()) != codes.Unavailable {
			t.Errorf("503 status code = %v, want Unavailable", codes.Code(st.GetCode()))
		}
	}, func(c *config.Serve) { c.MaxBacklogBytes = 10 })
}

// TestHTTPFullSuccess: an export whose records are all accepted answers an
// empty message, partial_success unset as the OTLP specification requires
// (no bytes in protobuf, {} in JSON).
func TestHTTPFullSuccess(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		for _, tc := range []struct {
			contentType string
			body        []byte
			want        string
		}{
			{"application/x-protobuf", protoRequest(t), ""},
			{"application/json", []byte(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"body":{"stringValue":"all good"}}]}]}]}`), "{}"},
			{"application/json", []byte(`{}`), "{}"},
		} {
			r := s.Do(apitest.Request{Method: "POST", Path: "/v1/logs", Token: w.key, Body: tc.body, Headers: map[string]string{"Content-Type": tc.contentType}})
			if r.Status != http.StatusOK || string(r.Body) != tc.want {
				t.Errorf("%s %s: answer %d %q, want 200 %q", tc.contentType, tc.body, r.Status, r.Body, tc.want)
			}
		}
	})
}

// manyRecords is an OTLP/JSON export of n INFO records.
func manyRecords(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"api"}}]},"scopeLogs":[{"logRecords":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"timeUnixNano":"1764410000000000000","severityNumber":9,"body":{"stringValue":"record %d"}}`, i)
	}
	b.WriteString(`]}]}]}`)
	return []byte(b.String())
}

// TestHTTPRecordsTakeTheirShareOfTheLimit: an export pays one token of the
// project's ingestion limit per 1,000 records, as /v1/ingest batches of as
// many events would (CONTRACT 8: no route sends more events than another).
func TestHTTPRecordsTakeTheirShareOfTheLimit(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		send := func(n int) *apitest.Response {
			return s.Do(apitest.Request{Method: "POST", Path: "/v1/logs", Token: w.key, Body: manyRecords(n)})
		}
		if r := send(2500); r.Status != http.StatusOK || r.Header.Get("RateLimit-Remaining") != "1" { // three tokens of four
			t.Fatalf("2,500 records: %d %s, RateLimit-Remaining %q; want 200 with one token left", r.Status, r.Body, r.Header.Get("RateLimit-Remaining"))
		}
		r := send(1500) // two tokens: one is left
		if r.Status != http.StatusTooManyRequests || r.Header.Get("Retry-After") == "" {
			t.Fatalf("1,500 records with one token left: %d %s, want 429 with Retry-After", r.Status, r.Body)
		}
		if st := rpcStatus(t, r); codes.Code(st.GetCode()) != codes.ResourceExhausted {
			t.Errorf("429 status code = %v, want ResourceExhausted", codes.Code(st.GetCode()))
		}
	}, func(c *config.Serve) { c.IngestRateLimit, c.IngestRateBurst = 0.0001, 4 })
	// An export of more records than the burst pays for costs the whole
	// burst: refused, it could never pass, however long its exporter waited.
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		r := s.Do(apitest.Request{Method: "POST", Path: "/v1/logs", Token: w.key, Body: manyRecords(6000)})
		if r.Status != http.StatusOK || r.Header.Get("RateLimit-Remaining") != "0" {
			t.Fatalf("6,000 records on a full bucket of 4: %d %s, RateLimit-Remaining %q; want 200, the whole burst taken", r.Status, r.Body, r.Header.Get("RateLimit-Remaining"))
		}
	}, func(c *config.Serve) { c.IngestRateLimit, c.IngestRateBurst = 0.0001, 4 })
}
