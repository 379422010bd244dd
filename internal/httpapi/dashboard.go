package httpapi

// The list scopes the dashboard shares with the API, so that a cursor of
// a page and one of the API operation on the same list are signed alike.

import (
	"net/url"

	"github.com/errata-dev/errata/internal/store"
)

// TicketListScope names a project's ticket list under a filter, the scope
// its cursors are signed for; the filter is query-encoded so that no two
// filters share a scope.
func TicketListScope(projectID string, f store.TicketFilter) string {
	return "tickets:" + projectID + ":" + url.Values{"status": {f.Status}, "severity": {f.Severity}, "service": {f.Service}, "environment": {f.Environment}, "query": {f.Query.String()}}.Encode()
}

// GroupListScope names a project's group list under a filter, the scope its
// cursors are signed for.
func GroupListScope(projectID string, f store.GroupFilter) string {
	return "groups:" + projectID + ":" + url.Values{"status": {f.Status}, "service": {f.Service}, "environment": {f.Environment},
		"query": {f.Query.String()}}.Encode()
}
