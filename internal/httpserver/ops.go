package httpserver

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"time"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/problem"
)

// MountOps serves the operational endpoints, outside /v1 and the OpenAPI
// document (CONTRACT 6): GET /metrics (Prometheus text format), GET /healthz
// (the process is alive) and GET /readyz (it can take traffic: the store
// answers and it is not shutting down; 503 without details otherwise).
//
// The probes are exempt from the per-caller rate limit: an orchestrator
// probing from an address that also sends load (or one an attacker shares,
// behind a proxy) must not read a 429 as "down". Their answers still carry
// the caller's RateLimit-* headers, taking no token. They cost next to nothing
// (/readyz one database ping); /metrics stays limited.
func (s *Server) MountOps(metrics http.Handler, ready func(ctx context.Context) error) {
	mountOps(s.mux, metrics, ready, s.log)
	s.probes["/healthz"], s.probes["/readyz"] = true, true
}

// Ops serves only the operational endpoints: processes without the api
// role serve it on ERRATA_ADDR, to be probed and scraped like any other.
func Ops(metrics http.Handler, ready func(ctx context.Context) error, log *slog.Logger, docsURL string) http.Handler {
	mux := http.NewServeMux()
	mountOps(mux, metrics, ready, log)
	// Anything else is a problem as every error is (interface section 7),
	// naming why: this process serves no API.
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		rid := id.New(id.Request)
		w.Header().Set(RequestIDHeader, rid)
		p := problem.Newf("not-found", "no route %s %s: this process serves only /healthz, /readyz and /metrics (ERRATA_ROLES without api)", r.Method, r.URL.Path)
		switch r.URL.Path {
		case "/healthz", "/readyz", "/metrics":
			w.Header().Set("Allow", "GET, HEAD")
			p = problem.Newf("method-not-allowed", "%s is not allowed on %s; allowed: GET, HEAD", r.Method, r.URL.Path)
		}
		p.Write(w, docsURL, rid)
	})
	return mux
}

func mountOps(mux *http.ServeMux, metrics http.Handler, ready func(ctx context.Context) error, log *slog.Logger) {
	mux.Handle("GET /metrics", metrics)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if err := ready(ctx); err != nil {
			// The cause may name the database's user, address and name:
			// it goes to the log, never to whoever asks.
			log.Warn("not ready", "request_id", RequestID(r.Context()), "err", err)
			writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable"})
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
