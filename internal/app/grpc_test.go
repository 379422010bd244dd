package app_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/app"
	"github.com/errata-dev/errata/internal/config"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// TestRunServesAndStopsGRPC runs the whole app with OTLP/gRPC on a free
// port: Run reports the bound address, the service answers, and shutdown
// stops it before Run returns.
func TestRunServesAndStopsGRPC(t *testing.T) {
	cfg := apitest.DefaultServe("127.0.0.1:0")
	cfg.GRPCAddr = "127.0.0.1:0"
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	a, err := app.New(context.Background(), app.Options{
		Store: config.Store{DatabaseURL: storetest.URL(t, store.SQLite)}, Serve: cfg,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Argon2: apitest.CheapArgon2,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx, func(addr net.Addr) { ready <- addr }) }()
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("Run: %v", err)
	}
	addr := a.GRPCAddr()
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
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run returned %v, want nil", err)
	}
	if _, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		t.Errorf("%s still accepts connections after shutdown", addr)
	}
}
