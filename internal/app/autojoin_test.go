package app_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/app"
	"github.com/errata-dev/errata/internal/config"
	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// TestAutoJoinOfNoOrganizationWarns: an ERRATA_OIDC_AUTO_JOIN entry whose
// organization does not exist is said at start, not left to fail silently
// at the first sign-in.
func TestAutoJoinOfNoOrganizationWarns(t *testing.T) {
	cfg := apitest.DefaultServe("127.0.0.1:0")
	cfg.GRPCAddr = "off"
	cfg.OIDCIssuer, cfg.OIDCClientID = "https://id.example.com", "errata"
	ghost := id.New(id.Org)
	cfg.OIDCAutoJoin = []string{"ghost.example=" + ghost + ":member"}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	a, err := app.New(context.Background(), app.Options{
		Store: config.Store{DatabaseURL: storetest.URL(t, store.SQLite)}, Serve: cfg,
		Log: slog.New(slog.NewTextHandler(&logs, nil)), Argon2: apitest.CheapArgon2,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.DB.Close() })
	if !strings.Contains(logs.String(), "ERRATA_OIDC_AUTO_JOIN names an organization that does not exist") || !strings.Contains(logs.String(), ghost) {
		t.Fatalf("no warning about the missing organization; log:\n%s", logs.String())
	}
}
