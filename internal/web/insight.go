package web

import "net/http"

// insightRoutes registers this file's pages.
func (d *Dashboard) insightRoutes(mux *http.ServeMux) {}
