package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/config"
	"github.com/errata-dev/errata/internal/store"
)

// TestNotReadyWithLowDisk: under ERRATA_MIN_FREE_DISK free, batches are
// refused, and /readyz says 503 though small writes may still fit.
func TestNotReadyWithLowDisk(t *testing.T) {
	s := apitest.Start(t, store.SQLite, func(c *config.Serve) { c.MinFreeDisk = 1 << 60 })
	w := newProcWorld(t, s)
	s.App.Monitor.Poll(context.Background())
	s.Do(ingestReq(w.Key, batchOf("api", ev("no room", "error")), nil)).Expect(t, http.StatusServiceUnavailable, "overloaded")
	if r := s.Do(apitest.Request{Method: "GET", Path: "/readyz"}); r.Status != http.StatusServiceUnavailable {
		t.Errorf("GET /readyz with the disk under its floor = %d %s, want 503", r.Status, r.Body)
	}
}

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

// TestProbesAreNotRateLimited: once a caller's address has spent its API
// rate limit, its health and readiness probes still answer 200 (an
// orchestrator must not read 429 as down), while /metrics and the API are
// limited.
func TestProbesAreNotRateLimited(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		for range 3 {
			s.Do(apitest.Request{Method: "GET", Path: "/v1/openapi.json"})
		}
		s.Do(apitest.Request{Method: "GET", Path: "/v1/openapi.json"}).Expect(t, http.StatusTooManyRequests, "rate-limited")
		for range 5 {
			for _, path := range []string{"/healthz", "/readyz"} {
				r := s.Do(apitest.Request{Method: "GET", Path: path})
				if r.Status != http.StatusOK {
					t.Fatalf("GET %s with the address's limit spent = %d, want 200", path, r.Status)
				}
				// Every answer carries the RateLimit-* headers (interface
				// section 8): the caller's bucket, spent, and no Retry-After.
				if h := r.Header; h.Get("RateLimit-Limit") != "3" || h.Get("RateLimit-Remaining") != "0" || h.Get("RateLimit-Reset") == "" || h.Get("Retry-After") != "" {
					t.Fatalf("GET %s headers = %v, want RateLimit-Limit 3, Remaining 0, a Reset and no Retry-After", path, h)
				}
			}
		}
		if r := s.Do(apitest.Request{Method: "GET", Path: "/metrics"}); r.Status != http.StatusTooManyRequests {
			t.Fatalf("GET /metrics with the address's limit spent = %d, want 429", r.Status)
		}
	}, func(c *config.Serve) { c.APIRateLimit, c.APIRateBurst = 0.001, 3 })
}
