// Package sentryapi serves the subset of Sentry's web API under /api/0/
// that sentry-cli and Sentry's bundler plugins use for releases, deploys
// and source maps (CONTRACT 8, docs/sourcemaps.md): chunk upload, artifact
// bundle assembly, releases, deploys and legacy release files. Callers
// authenticate with a personal API token (or a session token) as
// Authorization: Bearer; answers and errors are Sentry's shapes
// ({"detail": "…"}), which sentry-cli reads.
package sentryapi

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/errata-dev/errata/internal/httpserver"
	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/org"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/text"
)

// Limits of uploads (CONTRACT 8).
const (
	MaxFileSize   = 100 << 20 // one file of a bundle
	MaxBundleSize = 1 << 30   // one assembled bundle
	ChunkSize     = 8 << 20
	// chunksPerRequest and maxRequestSize bound one chunk-upload request.
	chunksPerRequest = 4
	maxRequestSize   = chunksPerRequest*ChunkSize + 1<<20
)

// API serves /api/0/.
type API struct {
	srv *httpserver.Server
	db  *store.DB
	log *slog.Logger
	now func() time.Time
	// OnUpload, when set, is told of each project that files were
	// uploaded to (the symbolicator forgets its misses for it).
	OnUpload func(projectID string)
}

// uploaded tells OnUpload of the projects files were uploaded to.
func (a *API) uploaded(projectIDs ...string) {
	if a.OnUpload == nil {
		return
	}
	for _, id := range projectIDs {
		a.OnUpload(id)
	}
}

// Mount adds the /api/0/ routes to srv; now is the clock of the times they
// store.
func Mount(srv *httpserver.Server, db *store.DB, log *slog.Logger, now func() time.Time) *API {
	a := &API{srv: srv, db: db, log: log, now: now}
	mux := srv.Mux()
	h := func(pattern string, fn func(http.ResponseWriter, *http.Request, *caller) error, scope string) {
		mux.HandleFunc(pattern, a.handle(fn, scope))
	}
	const orgs = "/api/0/organizations/{org}/"
	mux.HandleFunc("GET /api/0/{$}", a.handle(a.authInfo, ""))
	h("GET "+orgs+"chunk-upload/{$}", a.chunkOptions, scopeRead)
	h("POST "+orgs+"chunk-upload/{$}", a.uploadChunks, scopeReleases)
	h("POST "+orgs+"artifactbundle/assemble/{$}", a.assemble, scopeReleases)
	h("POST "+orgs+"releases/{$}", a.newRelease, scopeReleases)
	h("GET "+orgs+"releases/{version}/{$}", a.getRelease, scopeRead)
	h("PUT "+orgs+"releases/{version}/{$}", a.updateRelease, scopeReleases)
	h("GET "+orgs+"releases/{version}/deploys/{$}", a.listDeploys, scopeRead)
	h("POST "+orgs+"releases/{version}/deploys/{$}", a.newDeploy, scopeReleases)
	// sentry-cli 2.x names the project in the path for one-project releases.
	const projects = "/api/0/projects/{org}/{project}/"
	h("POST "+projects+"releases/{$}", a.newRelease, scopeReleases)
	h("GET "+projects+"releases/{version}/{$}", a.getRelease, scopeRead)
	h("PUT "+projects+"releases/{version}/{$}", a.updateRelease, scopeReleases)
	h("POST "+projects+"releases/{version}/files/{$}", a.uploadReleaseFile, scopeReleases)
	h("POST "+orgs+"releases/{version}/files/{$}", a.uploadReleaseFile, scopeReleases)
	return a
}

const (
	scopeRead     = "read"
	scopeReleases = "project:releases"
)

// caller is an authenticated request's user and organization.
type caller struct {
	p   *httpserver.Principal
	org store.Org
}

// apiError is an answer other than 2xx, written as Sentry's {"detail"}.
type apiError struct {
	status int
	detail string
}

func (e *apiError) Error() string { return e.detail }

func fail(status int, detail string) error { return &apiError{status, detail} }

// handle authenticates, resolves {org} (a slug or an org_ id) to an
// organization the caller belongs to, checks the role and the token's
// scope, and runs fn. Organizations the caller cannot see are 404.
func (a *API) handle(fn func(http.ResponseWriter, *http.Request, *caller) error, scope string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		err := a.serve(w, r, fn, scope)
		if err == nil {
			return
		}
		var ae *apiError
		switch {
		case errors.As(err, &ae):
		case errors.Is(err, store.ErrNotFound):
			ae = &apiError{http.StatusNotFound, "The requested resource does not exist"}
		default:
			p := problem.From(err)
			ae = &apiError{p.Status, p.Detail}
			if p.IsInternal() {
				a.log.Error("sentry web API failed", "path", r.URL.Path, "err", err)
			}
			for name, values := range p.GetHeaders() { // Retry-After of a 503 or 429
				for _, v := range values {
					w.Header().Add(name, v)
				}
			}
		}
		writeJSON(w, ae.status, map[string]string{"detail": ae.detail})
	}
}

func (a *API) serve(w http.ResponseWriter, r *http.Request, fn func(http.ResponseWriter, *http.Request, *caller) error, scope string) error {
	// /api/ is exempt from the server's per-caller limit (the Sentry
	// ingestion routes are limited per project); /api/0/ takes the
	// management API's, before any other work.
	if !a.srv.TakeCallerToken(w, r) {
		return fail(http.StatusTooManyRequests, "You are attempting to use this endpoint too frequently; retry after "+w.Header().Get("Retry-After")+" seconds")
	}
	// Tools send a bearer token; the dashboard's cookie is not a
	// credential here, for reads as for writes (and is not looked up).
	if httpserver.Bearer(r) == "" {
		return fail(http.StatusUnauthorized, "Authentication credentials were not provided or are invalid: send Authorization: Bearer <API token>")
	}
	p, err := a.srv.Authenticate(r)
	if err != nil {
		// A database that cannot check the token is 503 with
		// Retry-After, which tools retry; only a credential refused is
		// 401, which they take for a bad token.
		if pr := problem.From(err); pr.Status != http.StatusUnauthorized {
			return err
		}
		return fail(http.StatusUnauthorized, "Authentication credentials were not provided or are invalid: send Authorization: Bearer <API token>")
	}
	c := &caller{p: p}
	// A name no store holds (a NUL, invalid UTF-8, a control character)
	// names nothing, as on either database, before a look-up PostgreSQL
	// would refuse (500).
	for _, seg := range [...]struct{ name, noun string }{{"org", "organization"}, {"project", "project"}, {"version", "release"}} {
		if v := r.PathValue(seg.name); v != "" && text.Fault(v) != "" {
			return fail(http.StatusNotFound, seg.noun+" "+strconv.QuoteToASCII(v)+" does not exist")
		}
	}
	if r.PathValue("org") == "" {
		return fn(w, r, c)
	}
	ctx := r.Context()
	c.org, err = a.orgOf(ctx, r.PathValue("org"))
	if err == nil {
		p.Member, err = a.db.Read().MemberOf(ctx, c.org.ID, p.User.ID)
	}
	if errors.Is(err, store.ErrNotFound) {
		return fail(http.StatusNotFound, "organization "+r.PathValue("org")+" does not exist")
	}
	if err != nil {
		return err
	}
	if err := a.srv.SignInRules(ctx, c.org.ID, p); err != nil { // sso_required, require_2fa, as on /v1
		pr := problem.From(err)
		if pr.Status != http.StatusForbidden {
			return err
		}
		return fail(http.StatusForbidden, pr.Code()+": "+pr.Detail)
	}
	role, _ := org.ParseRole(p.Member.Role)
	if scope == scopeReleases && !role.AtLeast(org.MemberRole) {
		return fail(http.StatusForbidden, "releases and uploads take the member role or higher; yours is "+role.String())
	}
	if t := p.Token; t != nil {
		ok := slices.Contains(t.Scopes, scopeReleases)
		if scope == scopeRead {
			ok = ok || slices.Contains(t.Scopes, "project:read")
		}
		if !ok {
			return fail(http.StatusForbidden, "insufficient-scope: this token needs the project:releases scope")
		}
	}
	return fn(w, r, c)
}

func (a *API) orgOf(ctx context.Context, ref string) (store.Org, error) {
	if id.Valid(id.Org, ref) {
		return a.db.Read().OrgByID(ctx, ref)
	}
	return a.db.Read().OrgBySlug(ctx, ref)
}

// projects resolves project slugs (or prj_ ids) of the caller's
// organization; an unknown one is 404.
func (a *API) projects(ctx context.Context, c *caller, refs []string) ([]store.Project, error) {
	out := make([]store.Project, 0, len(refs))
	for _, ref := range refs {
		p, err := store.Project{}, store.ErrNotFound // no project is named with a control character
		if text.Fault(ref) == "" {
			p, err = a.lookupProject(ctx, c, ref)
		}
		if errors.Is(err, store.ErrNotFound) {
			// A body's list names it, not the path: 400, as Sentry answers
			// invalid project slugs (a 404 here reads as "organization not
			// found" to sentry-cli).
			return nil, fail(http.StatusBadRequest, "projects: project "+ref+" does not exist in organization "+c.org.Slug)
		}
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// projectOf is the project ref (a slug or an id) of the caller's
// organization that a path names: 404 when there is none.
func (a *API) projectOf(ctx context.Context, c *caller, ref string) (store.Project, error) {
	p, err := a.lookupProject(ctx, c, ref)
	if errors.Is(err, store.ErrNotFound) {
		return p, fail(http.StatusNotFound, "project "+ref+" does not exist in organization "+c.org.Slug)
	}
	return p, err
}

func (a *API) lookupProject(ctx context.Context, c *caller, ref string) (store.Project, error) {
	var p store.Project
	var err error
	if id.Valid(id.Project, ref) {
		p, err = a.db.Read().ProjectByID(ctx, ref)
		if err == nil && p.OrgID != c.org.ID {
			err = store.ErrNotFound
		}
	} else {
		p, err = a.db.Read().ProjectBySlug(ctx, c.org.ID, ref)
	}
	return p, err
}

// authInfo answers GET /api/0/: who the token is (sentry-cli info).
func (a *API) authInfo(w http.ResponseWriter, _ *http.Request, c *caller) error {
	out := map[string]any{"user": map[string]string{"id": c.p.User.ID, "email": c.p.User.Email, "name": c.p.User.Name}}
	if c.p.Token != nil {
		out["auth"] = map[string]any{"scopes": c.p.Token.Scopes}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func decode(r *http.Request, v any) error {
	if err := json.NewDecoder(http.MaxBytesReader(nil, r.Body, 1<<20)).Decode(v); err != nil {
		return fail(http.StatusBadRequest, "the body is not the JSON this endpoint takes: "+err.Error())
	}
	return nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
