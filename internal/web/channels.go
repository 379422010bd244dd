package web

import "net/http"

// channelRoutes registers this file's pages.
func (d *Dashboard) channelRoutes(mux *http.ServeMux) {}
