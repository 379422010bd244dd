package web

import (
	"net/http"
	"strings"

	"github.com/errata-dev/errata/internal/httpserver"
	"github.com/errata-dev/errata/internal/org"
)

// notFound is the HTML 404 of an address no route matches. It leads back:
// to the sign-in form for a visitor without a session; home for a signed-in
// one, and to the project when the address was under one they may see
// (/projects/{id}/no-such-tab).
func (d *Dashboard) notFound(w http.ResponseWriter, r *http.Request) {
	data := errorData{Status: http.StatusNotFound, StatusText: http.StatusText(http.StatusNotFound), Code: "not-found",
		Detail: "There is no page at this address."}
	p, err := d.api.Authenticate(r)
	if err != nil {
		p, data.SignedOut = nil, true
	} else if id, ok := projectOfPath(r.URL.Path); ok {
		if d.api.Authorize(r.Context(), p, httpserver.Access{Scope: "project_id", Min: org.Viewer}, id) == nil {
			if prj, err := d.db.Read().ProjectByID(r.Context(), id); err == nil {
				data.Project = &prj
			}
		}
	}
	d.render(w, r, http.StatusNotFound, "error", p, frame{Title: data.StatusText, Data: data})
}

// projectOfPath is the project id of an address under /projects/{id}/.
func projectOfPath(path string) (string, bool) {
	rest, ok := strings.CutPrefix(path, "/projects/")
	if !ok {
		return "", false
	}
	id, _, _ := strings.Cut(rest, "/")
	return id, strings.HasPrefix(id, "prj_")
}
