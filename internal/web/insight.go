package web

import "net/http"

// insightRoutes registers this file's pages.
func (d *Dashboard) insightRoutes(mux *http.ServeMux) {
	d.groupRoutes(mux) // groups.go: error groups and their events
	// summaries.go: a project's INFO windows over a range (the link digests
	// carry) and one window in full.
	d.get(mux, "/projects/{project_id}/summaries", d.summaries)
	d.get(mux, "/summaries/{summary_id}", d.summary)
	d.groupingRoutes(mux) // grouping.go: a project's grouping rules
}
