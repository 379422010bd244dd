package web

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/errata-dev/errata/internal/httpserver"
	"github.com/errata-dev/errata/internal/org"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/text"
)

// ContentSecurityPolicy allows only this origin's scripts, styles and images
// (no inline script), no framing, no <base> and forms posting only here.
const ContentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

// ReferrerPolicy keeps dashboard addresses, which name tickets and filters,
// from other origins: they get no Referer at all.
const ReferrerPolicy = "same-origin"

// secure sets the security headers every dashboard answer carries.
func secure(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", ContentSecurityPolicy)
		h.Set("Referrer-Policy", ReferrerPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY") // frame-ancestors for old browsers
		h.Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

// assets serves the embedded static files with the security headers and a
// short cache lifetime (their names carry no version yet).
func assets(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/") { // no directory listings
			http.NotFound(w, r)
			return
		}
		h := w.Header()
		h.Set("Content-Security-Policy", ContentSecurityPolicy)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Cache-Control", "public, max-age=3600")
		next.ServeHTTP(w, r)
	})
}

// sameOrigin refuses cross-origin form posts before anything else, signed in
// or not (a forged sign-in is as bad as a forged change), through the API's
// http.CrossOriginProtection: 403 csrf-origin-rejected as an HTML page.
func (d *Dashboard) sameOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := d.api.CheckOrigin(r); err != nil {
			d.fail(w, r, nil, err)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxForm)
		next.ServeHTTP(w, r)
	})
}

// maxForm bounds a dashboard form's body as the API bounds its bodies
// (CONTRACT 6: 1 MiB). A form's fields are percent-encoded, up to nine
// bytes a character: a comment of 10,000 characters in any script, or
// grouping rules of 64 KiB a field, must fit.
const maxForm = 1 << 20

// readForm parses a posted form: 413 payload-too-large past maxForm, 400
// malformed-body for a body that is not a form.
func readForm(r *http.Request) error {
	err := r.ParseForm()
	if err == nil {
		return nil
	}
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
		return problem.New("payload-too-large", "the form is over the 1 MiB limit")
	}
	return problem.New("malformed-body", "the form could not be read")
}

// pageFunc is a handler of a signed-in page.
type pageFunc func(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error

// page authenticates the request as the API does and runs h; signed-out
// visitors are sent to the sign-in form, which brings them back.
func (d *Dashboard) page(h pageFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := d.api.Authenticate(r)
		if err == nil {
			err = queryText(r)
		}
		if err == nil {
			err = h(w, r, p)
		}
		if err != nil {
			d.fail(w, r, p, err)
		}
	})
}

// queryText applies the control rule (text.Check) to every parameter of
// the address, as the API's decoder does to its query strings: the
// dashboard's list filters reach the same store queries (a NUL would reach
// PostgreSQL). A refusal is the error page's 422 naming the parameter.
func queryText(r *http.Request) error {
	q := r.URL.Query()
	for _, k := range slices.Sorted(maps.Keys(q)) {
		if err := text.Check("query parameter", k); err != nil {
			return err
		}
		for _, v := range q[k] {
			if err := text.Check(k, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// authorize checks p's access to the resource id of kind scope exactly as the
// API operation on it would.
func (d *Dashboard) authorize(r *http.Request, p *httpserver.Principal, scope string, min org.Role) error {
	return d.api.Authorize(r.Context(), p, httpserver.Access{Scope: scope, Min: min}, r.PathValue(scope))
}

// fail answers err as a page: a missing or expired session goes to the
// sign-in form; problems keep their status and code; anything else is a
// logged 500 that leaks nothing.
func (d *Dashboard) fail(w http.ResponseWriter, r *http.Request, p *httpserver.Principal, err error) {
	if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
		// The browser went away (a closed tab, a second click): no one
		// reads the answer, and nothing failed on our side.
		d.log.Debug("dashboard request abandoned by its client", "request_id", httpserver.RequestID(r.Context()), "path", r.URL.Path)
		return
	}
	pr := problem.From(err) // the one mapping, as for the API and OTLP
	switch {
	case pr.Code() == "unauthorized":
		if c, cerr := r.Cookie(httpserver.SessionCookie); cerr == nil && c.Value != "" {
			http.SetCookie(w, d.api.SessionCookie("", d.now()))
		}
		target := "/sign-in"
		if r.Method == http.MethodGet || r.Method == http.MethodHead {
			if r.URL.Path != "/" {
				target += "?next=" + url.QueryEscape(r.URL.RequestURI())
			}
		}
		http.Redirect(w, r, target, http.StatusSeeOther)
	case pr.IsInternal():
		d.log.Error("dashboard page failed", "request_id", httpserver.RequestID(r.Context()), "path", r.URL.Path, "err", err)
		d.renderError(w, r, p, http.StatusInternalServerError, "internal", "Something went wrong on our side; the request id identifies it in the server log.")
	case pr.Code() == "not-found":
		d.renderError(w, r, p, http.StatusNotFound, "not-found", "There is no such page, or it is not yours to see.")
	default:
		passRetryAfter(w, pr)
		d.renderError(w, r, p, pr.Status, pr.Code(), pr.Detail)
	}
}

// safeNext returns next when it is a path on this site, else "/": only
// relative references starting with one slash are followed after sign-in.
func safeNext(next string) string {
	if next == "" || next[0] != '/' || strings.HasPrefix(next, "//") || strings.ContainsAny(next, "\\\r\n\t") {
		return "/"
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil {
		return "/"
	}
	return next
}

// passRetryAfter sends the Retry-After of a refusal (a rate limit) with the
// page that shows it, and returns it ("" when it has none).
func passRetryAfter(w http.ResponseWriter, pr *problem.Problem) string {
	ra := pr.GetHeaders().Get("Retry-After")
	if ra != "" {
		w.Header().Set("Retry-After", ra)
	}
	return ra
}
