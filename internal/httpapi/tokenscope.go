package httpapi

import (
	"net/http"
	"strings"
)

// scopeAreas maps the first word of a /v1 path after its identifier (or
// the resource word) to the area of a token scope: "org", "project",
// "event", "member" or "releases". A path whose words name no area takes
// no token at all (sessions, tokens themselves, invitations accepted).
var scopeAreas = map[string]string{
	"orgs": "org", "audit-log": "org", "lookup": "event",
	"members": "member", "invitations": "member",
	"projects": "project", "keys": "project", "channels": "project", "deliveries": "project",
	"notification-settings": "project", "digests": "project", "grouping-rules": "project",
	"groups": "event", "tickets": "event", "events": "event", "info-summaries": "event",
	"comments": "event", "facets": "event", "activity": "event", "merge": "event", "bulk": "event",
	"releases": "releases",
}

// tokenScope is the scope a personal API token needs for an operation of
// this method and path template, "" when tokens cannot call it. Reads take
// <area>:read, changes <area>:write; releases take project:releases (or
// project:read to read them); organizations and members are read-only to
// tokens.
func tokenScope(method, path string) string {
	words := strings.Split(strings.Trim(path, "/"), "/")
	if len(words) < 2 || words[0] != "v1" || words[1] == "auth" {
		return ""
	}
	area := ""
	for _, w := range words[1:] {
		if a, ok := scopeAreas[w]; ok {
			area = a // the last resource word decides: /v1/orgs/{id}/projects is a project operation
		}
	}
	read := method == http.MethodGet || method == http.MethodHead
	switch area {
	case "":
		return ""
	case "releases":
		if read {
			return "project:read or project:releases"
		}
		return "project:releases"
	case "org", "member":
		if read {
			return area + ":read"
		}
		return ""
	}
	if read {
		return area + ":read"
	}
	return area + ":write"
}
