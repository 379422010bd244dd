package otlp_test

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"golang.org/x/net/http2"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/config"
)

// stalledExport opens an Export call over HTTP/2 that sends the first sent
// bytes of a message declared as 19 MiB (none at all, not even the gRPC
// prefix, when sent is negative) and then nothing until ctx ends. It
// returns once the bytes are handed to the connection; the call's end
// (its error, nil for an answer) comes on done.
func stalledExport(ctx context.Context, t *testing.T, tr *http2.Transport, addr, key string, sent int, done chan<- error) {
	t.Helper()
	pr, pw := io.Pipe()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+"/opentelemetry.proto.collector.logs.v1.LogsService/Export", pr)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/grpc")
	req.Header.Set("Te", "trailers")
	req.Header.Set("Authorization", "Bearer "+key)
	go func() {
		res, err := tr.RoundTrip(req)
		if err == nil {
			_, _ = io.Copy(io.Discard, res.Body) // the status is in the trailers
			res.Body.Close()
			if res.Trailer.Get("Grpc-Status") != "" && res.Trailer.Get("Grpc-Status") != "0" {
				err = fmt.Errorf("grpc-status %s: %s", res.Trailer.Get("Grpc-Status"), res.Trailer.Get("Grpc-Message"))
			}
		}
		done <- err
	}()
	go func() { <-ctx.Done(); pw.CloseWithError(ctx.Err()) }()
	if sent < 0 {
		return
	}
	msg := make([]byte, 5+sent)
	binary.BigEndian.PutUint32(msg[1:5], 19<<20)
	if _, err := pw.Write(msg); err != nil {
		t.Fatalf("send %d bytes of a message: %v", sent, err)
	}
}

// TestStalledExportsStarveNoOtherOrg: Export calls that open and send
// nothing, or part of a large message, hold what arrived of it in the
// memory budget, not the largest message each (CONTRACT 8: a reservation
// grows with the bytes that arrive). Three organizations stalling two
// calls each leave a fourth room to export, and none of the stalled calls
// is refused for want of memory.
func TestStalledExportsStarveNoOtherOrg(t *testing.T) {
	s := apitest.Start(t, "sqlite", apitest.WithGRPC, func(c *config.Serve) { c.IngestMemory = 128 << 20 })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 6)
	owner := s.SignUp(t, "owner@example.com")
	for i := range 3 {
		org := s.CreateOrg(t, owner.Token, fmt.Sprintf("Stall %d", i))
		_, key := s.CreateKey(t, owner.Token, s.CreateProject(t, owner.Token, org, "web"))
		tr := &http2.Transport{AllowHTTP: true, DialTLSContext: func(ctx context.Context, network, addr string, _ *tls.Config) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, network, addr)
		}}
		defer tr.CloseIdleConnections()
		stalledExport(ctx, t, tr, s.GRPCAddr, key, -1, done)
		stalledExport(ctx, t, tr, s.GRPCAddr, key, 1<<20, done)
	}
	time.Sleep(1500 * time.Millisecond) // past the budget's wait of 1s, which a refused call would take
	org := s.CreateOrg(t, owner.Token, "Bystander")
	_, key := s.CreateKey(t, owner.Token, s.CreateProject(t, owner.Token, org, "web"))
	if _, err := rawExport(t, s, key); err != nil {
		t.Fatalf("export of another organization beside stalled calls: %v", err)
	}
	select {
	case err := <-done:
		t.Fatalf("a stalled call was answered before it sent its message: %v", err)
	default:
	}
}

// TestGRPCInflatesUnderTheBudget: a compressed message is inflated by the
// handler into reserved buffers, with gRPC's answers kept: past 20 MiB
// decompressed RESOURCE_EXHAUSTED, broken gzip INVALID_ARGUMENT, and a
// valid one decoded and queued.
func TestGRPCInflatesUnderTheBudget(t *testing.T) {
	s := apitest.Start(t, "sqlite", apitest.WithGRPC)
	w := newWorld(t, s)
	logs := plog.NewLogs()
	logs.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty().Body().SetStr(strings.Repeat("B", 21<<20))
	over, err := plogotlp.NewExportRequestFromLogs(logs).MarshalProto()
	if err != nil {
		t.Fatal(err)
	}
	if err := exportCompressed(s, w.key, over); status.Code(err) != codes.ResourceExhausted || !strings.Contains(err.Error(), "decompressed") {
		t.Errorf("a message over 20 MiB decompressed: %v, want RESOURCE_EXHAUSTED naming the limit", err)
	}
	// Bytes that start as gzip does and are not: the message as sent.
	if _, err := rawExportBytes(t, s, w.key, []byte{0x1f, 0x8b, 8, 0, 1, 2, 3}); status.Code(err) != codes.InvalidArgument {
		t.Errorf("broken gzip: %v, want INVALID_ARGUMENT", err)
	}
	logs = plog.NewLogs()
	logs.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty().Body().SetStr("compressed " + strings.Repeat("C", 1<<10))
	ok, err := plogotlp.NewExportRequestFromLogs(logs).MarshalProto()
	if err != nil {
		t.Fatal(err)
	}
	if err := exportCompressed(s, w.key, ok); err != nil {
		t.Fatalf("a compressed message: %v", err)
	}
	events := queued(t, s, w.projectID)
	if len(events) != 1 || !strings.HasPrefix(events[0].Message, "compressed CCC") {
		t.Errorf("queued %d events, want the compressed one", len(events))
	}
}
