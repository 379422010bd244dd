package otlp_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/otel/exporters/otlp/otlplog/otlploggrpc"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/config"
)

func grpcExporter(t *testing.T, s *apitest.Server, key string, opts ...otlploggrpc.Option) *otlploggrpc.Exporter {
	t.Helper()
	opts = append([]otlploggrpc.Option{
		otlploggrpc.WithEndpoint(s.GRPCAddr),
		otlploggrpc.WithInsecure(),
		otlploggrpc.WithHeaders(map[string]string{"authorization": "Bearer " + key}),
		otlploggrpc.WithRetry(otlploggrpc.RetryConfig{Enabled: false}),
	}, opts...)
	exp, err := otlploggrpc.New(context.Background(), opts...)
	if err != nil {
		t.Fatalf("new exporter: %v", err)
	}
	return exp
}

func TestGRPCExportWithTheSDK(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		for _, tc := range []struct {
			name string
			opts []otlploggrpc.Option
		}{
			{"plain", nil},
			{"gzip", []otlploggrpc.Option{otlploggrpc.WithCompressor("gzip")}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				before := len(queued(t, s, w.projectID))
				l, rec := sdkLogger(t, grpcExporter(t, s, w.key, tc.opts...))
				emitError(l)
				if err := rec.lastErr(); err != nil {
					t.Fatalf("export: %v", err)
				}
				events := queued(t, s, w.projectID)
				if len(events) != before+1 {
					t.Fatalf("queued events = %d, want %d", len(events), before+1)
				}
				checkErrorEvent(t, events[before])

				emitEmpty(l)
				if err := rec.lastErr(); err == nil || !strings.Contains(err.Error(), "1 logs rejected") || !strings.Contains(err.Error(), "body: is empty") {
					t.Errorf("export of an empty record: %v; want a partial success naming the body", err)
				}
				if got := len(queued(t, s, w.projectID)); got != before+1 {
					t.Errorf("queued events after the empty record = %d, want %d", got, before+1)
				}
			})
		}
	}, apitest.WithGRPC)
}

// rawExport sends one record with a bare gRPC client, returning the error
// and the response headers.
func rawExport(t *testing.T, s *apitest.Server, key string, opts ...grpc.CallOption) (metadata.MD, error) {
	t.Helper()
	return rawExportBytes(t, s, key, probeMessage(t), opts...)
}

// probeMessage is a one-record ExportLogsServiceRequest.
func probeMessage(t *testing.T) []byte {
	t.Helper()
	logs := plog.NewLogs()
	logs.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty().Body().SetStr("m")
	b, err := plogotlp.NewExportRequestFromLogs(logs).MarshalProto()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// rawCodec sends and receives messages as the bytes they are.
type rawCodec struct{}

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(*v.(*[]byte))}, nil
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	*v.(*[]byte) = data.Materialize()
	return nil
}

func (rawCodec) Name() string { return "proto" }

// rawExportBytes calls LogsService/Export with body as the request.
func rawExportBytes(t *testing.T, s *apitest.Server, key string, body []byte, opts ...grpc.CallOption) (metadata.MD, error) {
	t.Helper()
	cc, err := grpc.NewClient(s.GRPCAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if key != "" {
		ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+key)
	}
	var header metadata.MD
	var resp []byte
	err = cc.Invoke(ctx, "/opentelemetry.proto.collector.logs.v1.LogsService/Export", &body, &resp,
		append([]grpc.CallOption{grpc.Header(&header), grpc.ForceCodecV2(rawCodec{}), grpc.MaxCallSendMsgSize(32 << 20)}, opts...)...)
	return header, err
}

func TestGRPCRefusals(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		for _, tc := range []struct {
			name, key string
			code      codes.Code
		}{
			{"no credential", "", codes.Unauthenticated},
			{"wrong key", w.key + "x", codes.Unauthenticated},
			{"session token", w.owner.Token, codes.Unauthenticated},
			{"good key", w.key, codes.OK},
			{"over the rate limit", w.key, codes.ResourceExhausted},
		} {
			t.Run(tc.name, func(t *testing.T) {
				header, err := rawExport(t, s, tc.key)
				if got := status.Code(err); got != tc.code {
					t.Fatalf("code = %v (%v), want %v", got, err, tc.code)
				}
				if tc.code == codes.ResourceExhausted {
					checkRetryInfo(t, err)
				}
				if tc.code != codes.Unauthenticated && len(header.Get("ratelimit-limit")) == 0 {
					t.Errorf("headers %v lack ratelimit-limit", header)
				}
			})
		}
		l, rec := sdkLogger(t, grpcExporter(t, s, w.owner.Token))
		emitError(l)
		if err := rec.lastErr(); status.Code(err) != codes.Unauthenticated {
			t.Errorf("SDK export with a session token: %v, want Unauthenticated", err)
		}
		l, rec = sdkLogger(t, grpcExporter(t, s, w.key))
		emitError(l)
		if err := rec.lastErr(); err == nil || !strings.Contains(err.Error(), "rate limit") {
			t.Errorf("SDK export over the rate limit: %v, want an error", err)
		}
	}, apitest.WithGRPC, func(c *config.Serve) { c.IngestRateLimit, c.IngestRateBurst = 0.0001, 1 })

	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		if _, err := rawExport(t, s, w.key); err != nil {
			t.Fatalf("first export: %v", err)
		}
		_, err := rawExport(t, s, w.key)
		if status.Code(err) != codes.Unavailable {
			t.Fatalf("over the backlog: %v, want Unavailable", err)
		}
		checkRetryInfo(t, err)
	}, apitest.WithGRPC, func(c *config.Serve) { c.MaxBacklogBytes = 10 })
}

// checkRetryInfo fails unless err carries a RetryInfo of at least a second.
func checkRetryInfo(t *testing.T, err error) {
	t.Helper()
	for _, d := range status.Convert(err).Details() {
		if ri, ok := d.(*errdetails.RetryInfo); ok {
			if got := ri.GetRetryDelay().AsDuration(); got < time.Second {
				t.Errorf("retry delay = %s, want at least 1s", got)
			}
			return
		}
	}
	t.Errorf("%v carries no RetryInfo", err)
}
