package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
)

func TestOpsEndpoints(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		if r := s.Do(apitest.Request{Method: "GET", Path: "/healthz"}); r.Status != http.StatusOK || r.Str(t, "status") != "ok" {
			t.Fatalf("GET /healthz = %d %s, want 200 ok", r.Status, r.Body)
		}
		if r := s.Do(apitest.Request{Method: "GET", Path: "/readyz"}); r.Status != http.StatusOK {
			t.Fatalf("GET /readyz = %d %s, want 200", r.Status, r.Body)
		}
		r := s.Do(apitest.Request{Method: "GET", Path: "/metrics"})
		if r.Status != http.StatusOK || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/plain") {
			t.Fatalf("GET /metrics = %d %q", r.Status, r.Header.Get("Content-Type"))
		}
		for _, name := range []string{"errata_ingest_backlog_batches", "errata_ingest_backlog_events", "errata_ingest_processing_lag_seconds", "errata_ingest_commit_seconds", "go_goroutines"} {
			if !strings.Contains(string(r.Body), name) {
				t.Errorf("/metrics lacks %s", name)
			}
		}
	})
}
