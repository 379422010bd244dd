package otlp_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	otellog "go.opentelemetry.io/otel/log"
	sdklog "go.opentelemetry.io/otel/sdk/log"
	"go.opentelemetry.io/otel/sdk/resource"
	"go.opentelemetry.io/otel/trace"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// TestMain keeps the SDK's global error handler quiet: the tests read the
// exporters' errors themselves.
func TestMain(m *testing.M) {
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(error) {}))
	storetest.Main(m)
}

// world is a server with a project, an API key and its owner's session.
type world struct {
	owner     apitest.Actor
	projectID string
	key       string
}

func newWorld(t *testing.T, s *apitest.Server) world {
	t.Helper()
	owner := s.SignUp(t, "owner@example.com")
	org := s.CreateOrg(t, owner.Token, "Acme")
	prj := s.CreateProject(t, owner.Token, org, "web")
	_, key := s.CreateKey(t, owner.Token, prj)
	return world{owner: owner, projectID: prj, key: key}
}

// queued reads back every event queued for the project, oldest batch first.
func queued(t *testing.T, s *apitest.Server, projectID string) []ingest.Event {
	t.Helper()
	batches, err := s.App.DB.Read().ListBatches(context.Background(), projectID)
	if err != nil {
		t.Fatalf("list batches: %v", err)
	}
	var all []ingest.Event
	for _, b := range batches {
		events, err := ingest.DecodePayload(b.Payload)
		if err != nil {
			t.Fatalf("decode payload: %v", err)
		}
		all = append(all, events...)
	}
	return all
}

// recorder is the SDK's simple processor keeping the exporter's last error,
// which the SDK would otherwise only hand to the global error handler.
type recorder struct {
	*sdklog.SimpleProcessor
	mu  sync.Mutex
	err error
}

func (r *recorder) OnEmit(ctx context.Context, rec *sdklog.Record) error {
	err := r.SimpleProcessor.OnEmit(ctx, rec)
	r.mu.Lock()
	r.err = err
	r.mu.Unlock()
	return err
}

func (r *recorder) lastErr() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// sdkLogger is a real OpenTelemetry SDK logger exporting synchronously
// through exp, for a service "checkout" in prod, version 2.0.1.
func sdkLogger(t *testing.T, exp sdklog.Exporter) (otellog.Logger, *recorder) {
	t.Helper()
	rec := &recorder{SimpleProcessor: sdklog.NewSimpleProcessor(exp)}
	res := resource.NewSchemaless(
		attribute.String("service.name", "checkout"),
		attribute.String("deployment.environment.name", "prod"),
		attribute.String("service.version", "2.0.1"),
	)
	lp := sdklog.NewLoggerProvider(sdklog.WithProcessor(rec), sdklog.WithResource(res))
	t.Cleanup(func() { _ = lp.Shutdown(context.Background()) })
	return lp.Logger("shop.payments"), rec
}

var (
	traceID = trace.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36}
	spanID  = trace.SpanID{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7}
	stamp   = time.Date(2026, 11, 21, 10, 30, 0, 250_000_000, time.UTC)
)

// emitError emits an error record with a stack trace, a secret attribute
// and the span context of traceID/spanID.
func emitError(l otellog.Logger) {
	ctx := trace.ContextWithSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: traceID, SpanID: spanID, TraceFlags: trace.FlagsSampled,
	}))
	var r otellog.Record
	r.SetTimestamp(stamp)
	r.SetSeverity(otellog.SeverityError)
	r.SetSeverityText("WARN") // the number wins
	r.SetBody(attribute.StringValue("payment declined"))
	r.AddAttributes(
		attribute.String("exception.type", "CardError"),
		attribute.String("exception.stacktrace", "CardError: declined\n\tat pay (pay.go:12)"),
		attribute.String("api_key", "sk_live_123"),
		attribute.Int("order.id", 981),
	)
	l.Emit(ctx, r)
}

// emitEmpty emits a record without a body.
func emitEmpty(l otellog.Logger) {
	var r otellog.Record
	r.SetSeverity(otellog.SeverityInfo)
	l.Emit(context.Background(), r)
}

// checkErrorEvent checks the event emitError produced, field by field.
func checkErrorEvent(t *testing.T, ev ingest.Event) {
	t.Helper()
	for _, f := range []struct{ name, got, want string }{
		{"service", ev.Service, "checkout"},
		{"environment", ev.Environment, "prod"},
		{"release", ev.Release, "2.0.1"},
		{"level", ev.Level.String(), "error"},
		{"message", ev.Message, "payment declined"},
		{"stack_trace", ev.StackTrace, "CardError: declined\n\tat pay (pay.go:12)"},
		{"trace_id", ev.TraceID, "4bf92f3577b34da6a3ce929d0e0e4736"},
		{"span_id", ev.SpanID, "00f067aa0ba902b7"},
		{"attributes", string(ev.Attributes), `{"exception.type":"CardError","api_key":"[redacted]","order.id":981,"otel.scope.name":"shop.payments"}`},
	} {
		if f.got != f.want {
			t.Errorf("%s = %q, want %q", f.name, f.got, f.want)
		}
	}
	if ev.Timestamp != stamp.UnixMilli() {
		t.Errorf("timestamp = %d, want %d", ev.Timestamp, stamp.UnixMilli())
	}
}
