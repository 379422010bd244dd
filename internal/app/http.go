package app

import (
	"github.com/errata-dev/errata/internal/auth"
	"github.com/errata-dev/errata/internal/clientip"
	"github.com/errata-dev/errata/internal/config"
	"github.com/errata-dev/errata/internal/httpapi"
	"github.com/errata-dev/errata/internal/httpserver"
	"github.com/errata-dev/errata/internal/intake"
	"github.com/errata-dev/errata/internal/otlp"
	"github.com/errata-dev/errata/internal/ratelimit"
	"github.com/errata-dev/errata/internal/sentry/sentryapi"
	"github.com/errata-dev/errata/internal/sentry/sentryhttp"
	"github.com/errata-dev/errata/internal/sso"
	"github.com/errata-dev/errata/internal/tickets"
	"github.com/errata-dev/errata/internal/web"
)

// httpTransports are the parts build made that the HTTP server and its
// transports share.
type httpTransports struct {
	cursorKey []byte
	clientIP  *clientip.Resolver
	callers   *ratelimit.Limiter // the management API's per-caller limit
	ingest    *intake.Intake     // POST /v1/ingest and OTLP
	sentry    *intake.Intake     // the Sentry endpoints: their own rate limit
}

// buildHTTP builds the process's HTTP server and mounts every transport
// on it, each with its own dependencies: the REST API, OTLP/HTTP, the
// Sentry endpoints, Sentry's web API under /api/0/, the operational
// endpoints and the dashboard.
func (a *App) buildHTTP(t httpTransports) error {
	cfg := a.opts.Serve
	srv, err := httpserver.New(a.DB, a.Auth, httpserver.Config{
		BaseURL: cfg.BaseURL, AppURL: cfg.AppURL, DocsURL: cfg.DocsURL, Callers: t.callers, ClientIP: t.clientIP,
	}, t.cursorKey, a.log)
	if err != nil {
		return err
	}
	a.HTTP = srv
	httpapi.Mount(srv, httpapi.Deps{DB: a.DB, Auth: a.Auth, Orgs: a.Orgs, Notify: a.Notify, Digests: a.Digests, Intake: t.ingest,
		AppURL: cfg.AppURL, ReadTimeout: cfg.ReadTimeout, Now: a.opts.Now, Log: a.log})
	otlp.Mount(srv, t.ingest, a.log)
	sentryhttp.Mount(srv, t.sentry, a.log)
	sentryapi.Mount(srv, a.DB, a.log, a.opts.Now).OnUpload = a.symbolicator.Forget
	srv.DocumentRateLimits()
	srv.MountOps(a.Metrics.Handler(), a.ready)
	_, err = web.Mount(srv, a.dashboardOptions())
	return err
}

// dashboardOptions are the dashboard's dependencies.
func (a *App) dashboardOptions() web.Options {
	cfg := a.opts.Serve
	dashTickets := tickets.NewService(a.DB, a.opts.Now)
	dashTickets.UseMailer(a.Notify)
	wo := web.Options{DB: a.DB, Auth: a.Auth, Orgs: a.Orgs, Tickets: dashTickets, Notify: a.Notify, Digests: a.Digests, BaseURL: cfg.BaseURL, Log: a.log,
		Now: a.opts.Now, NoEmail: cfg.SMTPURL == ""}
	if cfg.OIDCIssuer != "" {
		wo.SSO = sso.New(sso.Options{Issuer: cfg.OIDCIssuer, ClientID: cfg.OIDCClientID, ClientSecret: cfg.OIDCClientSecret, AppURL: cfg.AppURL})
		wo.SSOName = cfg.OIDCName
		for _, e := range cfg.OIDCAutoJoin {
			j, _ := config.ParseAutoJoin(e) // Validate checked it
			wo.AutoJoin = append(wo.AutoJoin, auth.AutoJoin{Domain: j.Domain, OrgID: j.OrgID, Role: j.Role})
		}
	}
	return wo
}
