package app_test

import (
	"context"
	"net"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/errata-dev/errata/internal/config"
)

// TestRunServesAndStopsGRPC runs the whole app with OTLP/gRPC on a free
// port: Run reports the bound address, the service answers, and shutdown
// stops it before Run returns.
func TestRunServesAndStopsGRPC(t *testing.T) {
	_, addr, stop := runApp(t, func(*config.Serve) {})
	if _, port, _ := net.SplitHostPort(addr); port == "" || port == "0" {
		t.Fatalf("GRPCAddr() = %q, want the bound port", addr)
	}
	cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	logs := plog.NewLogs()
	logs.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty().Body().SetStr("m")
	cctx, ccancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer ccancel()
	_, err = plogotlp.NewGRPCClient(cc).Export(cctx, plogotlp.NewExportRequestFromLogs(logs))
	if status.Code(err) != codes.Unauthenticated {
		t.Fatalf("export without a key: %v, want Unauthenticated", err)
	}
	if err := stop(); err != nil {
		t.Fatalf("Run returned %v, want nil", err)
	}
	if _, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		t.Errorf("%s still accepts connections after shutdown", addr)
	}
}
