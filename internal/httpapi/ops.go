package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"time"
)

// MountOps serves the operational endpoints, outside /v1 and the OpenAPI
// document (CONTRACT 6): GET /metrics (Prometheus text format), GET /healthz
// (the process is alive) and GET /readyz (it can take traffic: the store
// answers and it is not shutting down; 503 without details otherwise).
func (s *Server) MountOps(metrics http.Handler, ready func(ctx context.Context) error) {
	s.mux.Handle("GET /metrics", metrics)
	s.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	s.mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if err := ready(ctx); err != nil {
			// The cause may name the database's user, address and name:
			// it goes to the log, never to whoever asks.
			s.log.Warn("not ready", "request_id", RequestID(r.Context()), "err", err)
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
