package app_test

import (
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/config"
)

// TestEveryRoleServesProbes: a process of any roles answers /healthz,
// /readyz and /metrics on ERRATA_ADDR, so that it can be probed and
// scraped; only the api role serves the API and the dashboard.
func TestEveryRoleServesProbes(t *testing.T) {
	for _, roles := range [][]string{{"worker"}, {"scheduler"}, {"worker", "scheduler"}, {"api"}} {
		t.Run(strings.Join(roles, "+"), func(t *testing.T) {
			addr, grpcAddr, _ := runApp(t, func(c *config.Serve) { c.Roles = roles })
			get := func(path string) (int, string) {
				t.Helper()
				res, err := http.Get("http://" + addr + path)
				if err != nil {
					t.Fatalf("GET %s: %v", path, err)
				}
				defer res.Body.Close()
				b, _ := io.ReadAll(res.Body)
				return res.StatusCode, string(b)
			}
			for _, p := range []string{"/healthz", "/readyz"} {
				if st, body := get(p); st != http.StatusOK || !strings.Contains(body, `"ok"`) {
					t.Errorf("GET %s = %d %s, want 200 ok", p, st, body)
				}
			}
			if st, body := get("/metrics"); st != http.StatusOK || !strings.Contains(body, "errata_ingest_backlog_events") {
				t.Errorf("GET /metrics = %d, want Errata's metrics", st)
			}
			api := slices.Contains(roles, "api")
			if st, body := get("/v1/openapi.json"); (st == http.StatusOK) != api {
				t.Errorf("GET /v1/openapi.json = %d with roles %v: the API must be served by the api role only", st, roles)
			} else if !api && (st != http.StatusNotFound || !strings.Contains(body, `/errors/not-found"`) || !strings.Contains(body, "ERRATA_ROLES")) {
				// Every error is a problem (interface section 7), saying why.
				t.Errorf("GET /v1/openapi.json with roles %v = %d %s, want a 404 not-found problem naming the roles", roles, st, body)
			} else if !api && !strings.Contains(body, `"instance":"req_`) {
				t.Errorf("GET /v1/openapi.json with roles %v: %s, want the request's id as instance", roles, body)
			}
			if !api {
				res, err := http.Post("http://"+addr+"/healthz", "application/json", nil)
				if err != nil {
					t.Fatal(err)
				}
				res.Body.Close()
				if res.StatusCode != http.StatusMethodNotAllowed || res.Header.Get("Allow") == "" {
					t.Errorf("POST /healthz with roles %v = %d, Allow %q; want 405 as the api role answers", roles, res.StatusCode, res.Header.Get("Allow"))
				}
			}
			if (grpcAddr != "") != api {
				t.Errorf("OTLP/gRPC address %q with roles %v: only the api role serves it", grpcAddr, roles)
			}
		})
	}
}
