package httpapi

import (
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/errata-dev/errata/internal/httpserver"
)

// documentAccess states an operation's access rule in the OpenAPI document
// (interface section 5: each operation states a minimum role): in its
// description, as the extensions x-minimum-role and x-token-scope, and in
// its 403 answer once registered (access403).
func documentAccess(o *huma.Operation, a httpserver.Access) {
	rule := accessRule(a)
	if o.Description == "" {
		o.Description = rule
	} else {
		o.Description = strings.TrimRight(o.Description, " ") + "\n\n" + rule
	}
	if o.Extensions == nil {
		o.Extensions = map[string]any{}
	}
	switch {
	case a.Public:
		o.Extensions["x-minimum-role"] = "none"
	case a.Scope == "":
		o.Extensions["x-minimum-role"] = "signed-in"
	default:
		o.Extensions["x-minimum-role"] = a.Min.String()
	}
	if a.TokenScope != "" {
		o.Extensions["x-token-scope"] = a.TokenScope
	}
}

// accessRule is the sentence documentAccess adds.
func accessRule(a httpserver.Access) string {
	if a.Public {
		return "Access: public, no credential."
	}
	var b strings.Builder
	if a.Scope == "" {
		b.WriteString("Access: any signed-in user.")
	} else {
		b.WriteString("Minimum role: " + a.Min.String() + " in the organization of `" + a.Scope + "` (viewer < member < admin < owner; a role below it is 403 forbidden, another organization's resource 404).")
		if a.AuthorOr != 0 {
			b.WriteString(" Only the comment's author, or an " + a.AuthorOr.String() + " or higher, may do it.")
		}
	}
	if a.TokenScope != "" {
		b.WriteString(" A personal API token needs the scope " + a.TokenScope + " (else 403 insufficient-scope).")
	} else {
		b.WriteString(" Personal API tokens cannot call it: a session only.")
	}
	return b.String()
}

// access403 describes the registered operation's 403 answer by its rule.
func access403(api huma.API, o huma.Operation, a httpserver.Access) {
	if a.Public {
		return
	}
	op := registered(api, o)
	if op == nil || op.Responses["403"] == nil {
		return
	}
	why := []string{}
	if a.Scope != "" {
		why = append(why, "a role below "+a.Min.String()+" (forbidden)")
		if a.AuthorOr != 0 {
			why = append(why, "not the comment's author nor an "+a.AuthorOr.String()+" or higher (forbidden)")
		}
	}
	if a.TokenScope != "" {
		why = append(why, "a personal API token without the scope "+a.TokenScope+" (insufficient-scope)")
	} else {
		why = append(why, "a personal API token (sessions only)")
	}
	r := *op.Responses["403"]
	r.Description = "Forbidden: " + strings.Join(why, ", or ")
	if a.Scope != "" {
		r.Description += "; or an organization rule the caller does not meet (2fa-required, sso-required)"
	}
	op.Responses["403"] = &r
}
