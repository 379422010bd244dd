// Package web is the dashboard: server-rendered html/template pages with
// embedded assets, mounted on the process's HTTP server (internal/httpserver)
// outside /v1. It signs people in with the errata_session cookie and checks
// every page through the server's authentication and authorization, the
// API operations' own (httpserver.Server.Authenticate and Authorize), so a
// page and the API operation on the same resource always decide alike.
package web

import (
	"embed"
	"io/fs"
	"log/slog"
	"net/http"
	"time"

	"github.com/errata-dev/errata/internal/auth"
	"github.com/errata-dev/errata/internal/httpserver"
	"github.com/errata-dev/errata/internal/notify"
	"github.com/errata-dev/errata/internal/notify/digest"
	"github.com/errata-dev/errata/internal/org"
	"github.com/errata-dev/errata/internal/sso"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/tickets"
)

//go:embed templates
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Options are the dashboard's dependencies.
type Options struct {
	DB      *store.DB
	Auth    *auth.Service
	Orgs    *org.Service
	Tickets *tickets.Service
	Notify  *notify.Service
	Digests *digest.Service
	// BaseURL is the API's public URL, shown in ingest snippets.
	BaseURL string
	Log     *slog.Logger
	// Now is the clock (time.Now when nil).
	Now func() time.Time
	// SSO signs people in through OpenID Connect (nil: not configured);
	// SSOName labels its button; AutoJoin are ERRATA_OIDC_AUTO_JOIN.
	SSO      *sso.Client
	SSOName  string
	AutoJoin []auth.AutoJoin
	// NoEmail says the server sends no email (ERRATA_SMTP_URL is empty):
	// the channel forms say so.
	NoEmail bool
}

// Dashboard serves the pages; handlers are its methods.
type Dashboard struct {
	api     *httpserver.Server // its Authenticate, Authorize, CheckOrigin, cookies and cursors
	db      *store.DB
	auth    *auth.Service
	orgs    *org.Service
	tickets *tickets.Service
	notify  *notify.Service
	digests *digest.Service
	baseURL string
	log     *slog.Logger
	now     func() time.Time
	pages   *pages

	sso      *sso.Client
	ssoName  string
	autoJoin []auth.AutoJoin
	noEmail  bool
}

// Mount builds the dashboard and registers its routes on api's router, and
// its HTML 404 for browsers' unknown addresses.
func Mount(api *httpserver.Server, o Options) (*Dashboard, error) {
	p, err := parsePages()
	if err != nil {
		return nil, err
	}
	d := &Dashboard{api: api, db: o.DB, auth: o.Auth, orgs: o.Orgs, tickets: o.Tickets, notify: o.Notify, digests: o.Digests, baseURL: o.BaseURL,
		log: o.Log, now: o.Now, pages: p, sso: o.SSO, ssoName: o.SSOName, autoJoin: o.AutoJoin, noEmail: o.NoEmail}
	if d.now == nil {
		d.now = time.Now
	}
	if d.log == nil {
		d.log = slog.Default()
	}
	d.routes(api.Mux())
	api.HandlePageNotFound(secure(http.HandlerFunc(d.notFound)))
	return d, nil
}

// routes is the dashboard's route table.
func (d *Dashboard) routes(mux *http.ServeMux) {
	static, _ := fs.Sub(staticFS, "static")
	mux.Handle("GET /static/", assets(http.StripPrefix("/static", http.FileServerFS(static))))
	// Browsers ask for /favicon.ico on every page, the served docs' too: the
	// same icon, so that none logs a 404.
	mux.Handle("GET /favicon.ico", assets(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/svg+xml")
		http.ServeFileFS(w, r, static, "icon.svg")
	})))

	mux.Handle("GET /sign-in", secure(http.HandlerFunc(d.signInForm)))
	mux.Handle("POST /sign-in", secure(d.sameOrigin(http.HandlerFunc(d.signIn))))
	mux.Handle("GET /sign-up", secure(http.HandlerFunc(d.signUpForm)))
	mux.Handle("POST /sign-up", secure(d.sameOrigin(http.HandlerFunc(d.signUp))))
	mux.Handle("POST /sign-out", secure(d.sameOrigin(http.HandlerFunc(d.signOut))))

	mux.Handle("GET /{$}", secure(d.page(d.home)))
	mux.Handle("GET /projects/{project_id}", secure(d.page(d.project)))
	mux.Handle("GET /projects/{project_id}/tickets", secure(d.page(d.ticketList)))
	mux.Handle("GET /tickets/{ticket_id}", secure(d.page(d.ticket)))
	mux.Handle("POST /tickets/{ticket_id}/resolve", secure(d.sameOrigin(d.page(d.setStatus(store.TicketResolved)))))
	mux.Handle("POST /tickets/{ticket_id}/reopen", secure(d.sameOrigin(d.page(d.setStatus(store.TicketOpen)))))

	d.accountRoutes(mux)   // account.go: sign-up from an invitation, organizations, members, invitations, keys
	d.insightRoutes(mux)   // insight.go: error groups, INFO summaries, charts
	d.channelRoutes(mux)   // channels.go: channels, deliveries, notification settings
	d.emailLinkRoutes(mux) // email_links.go: the confirmation and unsubscribe links of emails
	d.securityRoutes(mux)  // account_security.go: sessions, two-factor sign-in, password; audit_log.go
	d.ssoRoutes(mux)       // sso.go: OpenID Connect sign-in
}

// get registers a signed-in page; post a signed-in form action, refused
// cross-origin.
func (d *Dashboard) get(mux *http.ServeMux, pattern string, h pageFunc) {
	mux.Handle("GET "+pattern, secure(d.page(h)))
}

func (d *Dashboard) post(mux *http.ServeMux, pattern string, h pageFunc) {
	mux.Handle("POST "+pattern, secure(d.sameOrigin(d.page(h))))
}
