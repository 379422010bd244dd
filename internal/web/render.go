package web

import (
	"bytes"
	"fmt"
	"html/template"
	"net/http"
	"time"

	"github.com/errata-dev/errata/internal/httpapi"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/view"
)

// pageNames are the templates under templates/, each rendered inside
// layout.html with the shared blocks of partials.html.
var pageNames = []string{"sign-in", "error", "home", "project", "tickets", "ticket"}

// pages holds one parsed template set per page.
type pages struct{ sets map[string]*template.Template }

var funcs = template.FuncMap{"utc": utcTime}

func parsePages() (*pages, error) {
	p := &pages{sets: map[string]*template.Template{}}
	for _, name := range pageNames {
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/partials.html", "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("web: parse %s: %w", name, err)
		}
		p.sets[name] = t
	}
	return p, nil
}

// crumb is one step of the organization/project breadcrumb.
type crumb struct{ Name, URL string }

// frame is what the layout shows around every page.
type frame struct {
	Title     string
	User      *store.User
	Crumbs    []crumb
	RequestID string
	Data      any
}

// render writes page name with status; the page is built in memory first so
// a template failure becomes a clean 500.
func (d *Dashboard) render(w http.ResponseWriter, r *http.Request, status int, name string, p *httpapi.Principal, f frame) {
	if p != nil {
		f.User = &p.User
	}
	f.RequestID = httpapi.RequestID(r.Context())
	var buf bytes.Buffer
	if err := d.pages.sets[name].Execute(&buf, f); err != nil {
		d.log.Error("dashboard template failed", "request_id", f.RequestID, "page", name, "err", err)
		status, buf = http.StatusInternalServerError, *bytes.NewBufferString("internal error\n")
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	} else {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
	}
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(buf.Bytes())
	}
}

// errorData fills the error page.
type errorData struct {
	Status     int
	StatusText string
	Code       string
	Detail     string
}

func (d *Dashboard) renderError(w http.ResponseWriter, r *http.Request, p *httpapi.Principal, status int, code, detail string) {
	d.render(w, r, status, "error", p, frame{Title: http.StatusText(status),
		Data: errorData{Status: status, StatusText: http.StatusText(status), Code: code, Detail: detail}})
}

// utcTime writes t as a <time> element: machine-readable in the attribute,
// absolute UTC for the reader.
func utcTime(t time.Time) template.HTML {
	if t.IsZero() {
		return "—"
	}
	t = t.UTC()
	return template.HTML(`<time datetime="` + t.Format(view.TimeFormat) + `">` + t.Format("2006-01-02 15:04:05") + ` UTC</time>`)
}
