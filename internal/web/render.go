package web

import (
	"bytes"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/errata-dev/errata/internal/httpserver"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/view"
)

// Every templates/*.html but layout.html is a page, rendered inside
// layout.html with the shared blocks of templates/parts/*.html.

// pages holds one parsed template set per page.
type pages struct{ sets map[string]*template.Template }

// funcs are the template functions; a file of the package adds its own in
// an init function.
var funcs = template.FuncMap{"utc": utcTime, "lower": strings.ToLower}

func parsePages() (*pages, error) {
	p := &pages{sets: map[string]*template.Template{}}
	files, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		name := strings.TrimSuffix(path.Base(f), ".html")
		if name == "layout" {
			continue
		}
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/parts/*.html", f)
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
	Title  string
	User   *store.User
	Crumbs []crumb
	// Project, when set, shows the project's tabs; Tab names the current one
	// ("overview", "tickets", "groups", "summaries", "channels",
	// "notifications", "keys").
	Project   *store.Project
	Tab       string
	RequestID string
	Data      any
	// Orgs are the signed-in user's organizations for the header's switcher
	// (account.go fills them); OrgID marks the current one, defaulting to the
	// Project's.
	Orgs  []store.Org
	OrgID string
	// BaseURLWarning, when set, is the loopback base URL a person who
	// opened the dashboard from another machine is warned about.
	BaseURLWarning string
}

// render writes page name with status; the page is built in memory first so
// a template failure becomes a clean 500.
func (d *Dashboard) render(w http.ResponseWriter, r *http.Request, status int, name string, p *httpserver.Principal, f frame) {
	if p != nil {
		f.User = &p.User
		if f.Orgs == nil { // pages that read them already pass them
			f.Orgs = d.switcherOrgs(r, p)
		}
		f.BaseURLWarning = d.unreachableBaseURL(r)
	}
	if f.OrgID == "" && f.Project != nil {
		f.OrgID = f.Project.OrgID
	}
	f.RequestID = httpserver.RequestID(r.Context())
	var buf bytes.Buffer
	set, ok := d.pages.sets[name]
	if !ok {
		panic("web: no page template " + name)
	}
	if err := set.Execute(&buf, f); err != nil {
		d.log.Error("dashboard template failed", "request_id", f.RequestID, "page", name, "err", err)
		status, buf = http.StatusInternalServerError, *bytes.NewBufferString("internal error; request id " + f.RequestID + "\n")
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
	// SignedOut offers the sign-in form as the way back (a 404 for a
	// visitor without a session); Project, when set, links back to the
	// project the address was under.
	SignedOut bool
	Project   *store.Project
	// Back is the dashboard page a refused form was sent from (its
	// Referer, when it is one of this server's pages), the way back to it.
	Back string
	// SSOName labels the single sign-on way in an sso-required page offers;
	// SSONext is the page to come back to after it.
	SSOName, SSONext string
}

func (d *Dashboard) renderError(w http.ResponseWriter, r *http.Request, p *httpserver.Principal, status int, code, detail string) {
	data := errorData{Status: status, StatusText: http.StatusText(status), Code: code, Detail: detail, Back: backTo(r),
		SignedOut: p == nil} // a public page's visitor (an invitation, an email link) signs in to go on
	// The API's words name its operations; a page names what to do.
	switch code {
	case "2fa-required":
		data.Detail = "This organization requires two-factor sign-in: turn it on for your account to reach its resources."
	case "sso-required":
		data.Detail = "This organization requires single sign-on: sign in through it to reach its resources."
		if d.ssoName != "" {
			data.SSOName, data.SSONext = d.ssoName, "/"
			if r.Method == http.MethodGet {
				data.SSONext = safeNext(r.URL.RequestURI())
			}
		}
	}
	d.render(w, r, status, "error", p, frame{Title: http.StatusText(status), Data: data})
}

// backTo is the path (and query) of the page a form was sent from, when
// the request's Referer is a page of this server; "" otherwise.
func backTo(r *http.Request) string {
	if r.Method == http.MethodGet || r.Method == http.MethodHead {
		return ""
	}
	ref, err := url.Parse(r.Header.Get("Referer"))
	if err != nil || ref.Host != r.Host {
		return ""
	}
	if back := ref.RequestURI(); safeNext(back) == back { // the same rule as sign-in's next
		return back
	}
	return ""
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
