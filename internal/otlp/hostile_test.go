package otlp_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
	"github.com/errata-dev/errata/internal/testproxy"
)

// countingGzip is gRPC's gzip compressor counting what it decompresses.
// gRPC keeps one compressor per name for the whole process, so replacing
// it counts the server's decompressions too.
type countingGzip struct {
	encoding.Compressor
	calls atomic.Int64
}

func (c *countingGzip) Decompress(r io.Reader) (io.Reader, error) {
	c.calls.Add(1)
	return c.Compressor.Decompress(r)
}

var gzipCounter = sync.OnceValue(func() *countingGzip {
	c := &countingGzip{Compressor: encoding.GetCompressor("gzip")}
	encoding.RegisterCompressor(c)
	return c
})

// bombRequest is an Export request of about 19 MiB that gzip compresses to
// a few KiB.
func bombRequest(t *testing.T) []byte {
	t.Helper()
	logs := plog.NewLogs()
	logs.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty().Body().SetStr(strings.Repeat("A", 19<<20))
	b, err := plogotlp.NewExportRequestFromLogs(logs).MarshalProto()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestUnauthenticatedExportIsNeverDecompressed: an Export with a bogus key
// is refused from its metadata before gRPC reads the message, so a crowd
// of small gzip bombs costs nothing (CONTRACT 7). A valid key's message is
// decompressed, which shows the counter counts.
func TestUnauthenticatedExportIsNeverDecompressed(t *testing.T) {
	counter := gzipCounter()
	s := apitest.Start(t, store.SQLite, apitest.WithGRPC)
	w := newWorld(t, s)
	bomb := bombRequest(t)
	before := counter.calls.Load()
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := exportCompressed(s, "svc_live_00000000000000000000000000_notarealsecret", bomb)
			if status.Code(err) != codes.Unauthenticated {
				t.Errorf("export with a bogus key = %v, want UNAUTHENTICATED", err)
			}
		}()
	}
	wg.Wait()
	if n := counter.calls.Load() - before; n != 0 {
		t.Fatalf("the server decompressed %d unauthenticated messages", n)
	}
	if err := exportCompressed(s, w.key, bomb); err != nil && status.Code(err) == codes.Unauthenticated {
		t.Fatalf("export with a valid key: %v", err)
	}
	if counter.calls.Load() == before {
		t.Fatal("a valid key's message was not decompressed either: the counter counts nothing")
	}
}

func exportCompressed(s *apitest.Server, key string, body []byte) error {
	cc, err := grpc.NewClient(s.GRPCAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return err
	}
	defer cc.Close()
	ctx, cancel := context.WithTimeout(metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+key), 30*time.Second)
	defer cancel()
	var resp []byte
	return cc.Invoke(ctx, "/opentelemetry.proto.collector.logs.v1.LogsService/Export", &body, &resp,
		grpc.ForceCodecV2(rawCodec{}), grpc.MaxCallSendMsgSize(32<<20), grpc.UseCompressor("gzip"))
}

// TestExportDuringDatabaseOutage: with the database cut away, OTLP clients
// get answers they retry (HTTP 503 with Retry-After, gRPC UNAVAILABLE with
// a RetryInfo), never 500 or INTERNAL, and exports work again once it is
// back.
func TestExportDuringDatabaseOutage(t *testing.T) {
	dbURL := storetest.URL(t, store.Postgres)
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := testproxy.Start(t, u.Host)
	s := apitest.StartOn(t, proxy.URL(t, dbURL), apitest.WithGRPC)
	w := newWorld(t, s)
	proxy.Cut()

	r := s.Do(apitest.Request{Method: "POST", Path: "/v1/logs", Body: protoRequest(t),
		Headers: map[string]string{"Content-Type": "application/x-protobuf", "Authorization": "Bearer " + w.key}})
	if r.Status != http.StatusServiceUnavailable || r.Header.Get("Retry-After") == "" {
		t.Errorf("/v1/logs during the outage = %d (Retry-After %q), want 503 with Retry-After", r.Status, r.Header.Get("Retry-After"))
	} else if st := rpcStatus(t, r); st.Code != int32(codes.Unavailable) {
		t.Errorf("/v1/logs status body = %v, want UNAVAILABLE", st)
	}
	_, err = rawExport(t, s, w.key)
	st, _ := status.FromError(err)
	if st.Code() != codes.Unavailable {
		t.Fatalf("gRPC export during the outage = %v, want UNAVAILABLE", err)
	}
	hasRetryInfo := false
	for _, d := range st.Details() {
		if _, ok := d.(*errdetails.RetryInfo); ok {
			hasRetryInfo = true
		}
	}
	if !hasRetryInfo {
		t.Errorf("UNAVAILABLE without RetryInfo: %v", st.Details())
	}

	proxy.Restore()
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := rawExport(t, s, w.key)
		if err == nil {
			break
		}
		if status.Code(err) != codes.Unavailable || time.Now().After(deadline) {
			t.Fatalf("gRPC export after the database came back: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestNULFromOTLP: a NUL in a record's body or attributes is queued as
// U+FFFD, over both transports.
func TestNULFromOTLP(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		logs := plog.NewLogs()
		rl := logs.ResourceLogs().AppendEmpty()
		rl.Resource().Attributes().PutStr("service.name", "ap\x00i")
		lr := rl.ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
		lr.Body().SetStr("a\x00b")
		lr.Attributes().PutStr("k\x00", "v\x00")
		b, err := plogotlp.NewExportRequestFromLogs(logs).MarshalProto()
		if err != nil {
			t.Fatal(err)
		}
		s.Do(apitest.Request{Method: "POST", Path: "/v1/logs", Body: b,
			Headers: map[string]string{"Content-Type": "application/x-protobuf", "Authorization": "Bearer " + w.key}}).Expect(t, http.StatusOK, "")
		if _, err := rawExportBytes(t, s, w.key, b); err != nil {
			t.Fatalf("gRPC export: %v", err)
		}
		events := queued(t, s, w.projectID)
		if len(events) != 2 {
			t.Fatalf("queued %d events, want 2", len(events))
		}
		for _, e := range events {
			if e.Message != "a\uFFFDb" || e.Service != "ap\uFFFDi" || string(e.Attributes) != `{"k\ufffd":"v\ufffd"}` {
				t.Errorf("queued event = %q %q %s, want U+FFFD for every NUL", e.Message, e.Service, e.Attributes)
			}
		}
	}, apitest.WithGRPC)
}
