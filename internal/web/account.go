package web

import "net/http"

// accountRoutes registers this file's pages.
func (d *Dashboard) accountRoutes(mux *http.ServeMux) {}
