package httpserver

// The transports share the session, authorization and cross-origin checks
// of the API's operations through these methods (the dashboard, Sentry's web
// API), so that a page and the API operation on the same resource decide
// alike: one authorization path.

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/errata-dev/errata/internal/problem"
)

// Authenticate finds the caller of r exactly as API operations do: a bearer
// session token, else the errata_session cookie; a cookie-authenticated
// change (not GET, HEAD or OPTIONS) must pass CheckOrigin.
func (s *Server) Authenticate(r *http.Request) (*Principal, error) { return s.authenticate(r) }

// Authorize checks that p may act on value, a resource id of the kind
// a.Scope names ("project_id", "ticket_id", …), with at least a.Min: 404
// not-found when the resource is absent or in another organization, 403
// forbidden below the role. On success p.Member is the caller's membership.
func (s *Server) Authorize(ctx context.Context, p *Principal, a Access, value string) error {
	return s.authorize(ctx, a, value, p)
}

// SignInRules answers 403 sso-required or 2fa-required when p's way of
// signing in does not meet the organization's rules (CONTRACT 8), as every
// organization-scoped operation checks them: for routes that authorize on
// their own (Sentry's web API, /api/0/).
func (s *Server) SignInRules(ctx context.Context, orgID string, p *Principal) error {
	return s.signInRules(ctx, orgID, p)
}

// CheckOrigin refuses a cross-origin state change (http.CrossOriginProtection,
// trusting the app URL's origin) with 403 csrf-origin-rejected.
func (s *Server) CheckOrigin(r *http.Request) error {
	if err := s.cop.Check(r); err != nil || !s.fromPage(r) {
		return problem.New("csrf-origin-rejected", "cookie-authenticated changes must come from the dashboard; scripts should send the session token as a bearer token")
	}
	return nil
}

// fromPage reports whether a request that passed the cross-origin check
// shows that a page sent it: http.CrossOriginProtection lets through a
// request with neither Sec-Fetch-Site nor Origin (it cannot be a browser's
// cross-origin request), but the interface (section 5) rejects every
// cookie-authenticated change that does not come from the web application.
// Every browser sends one of the two with a POST; without them, a Referer
// of the dashboard's origin or the request's own host still counts.
func (s *Server) fromPage(r *http.Request) bool {
	if r.Header.Get("Sec-Fetch-Site") != "" || r.Header.Get("Origin") != "" {
		return true // checked by s.cop
	}
	ref, err := url.Parse(r.Referer())
	if err != nil || ref.Host == "" {
		return false
	}
	return ref.Host == r.Host || ref.Scheme+"://"+ref.Host == s.appOrigin
}

// SessionCookie is the errata_session cookie carrying token until expires, as
// sign-in sets it; an empty token gives the cookie that clears it.
func (s *Server) SessionCookie(token string, expires time.Time) *http.Cookie {
	c := &http.Cookie{Name: SessionCookie, Value: token, Path: "/", HttpOnly: true, Secure: s.secure, SameSite: http.SameSiteLaxMode}
	if token == "" {
		c.MaxAge = -1
	} else {
		c.Expires = expires
	}
	return c
}

// RemoteIP is the client address of the request of ctx
// (ERRATA_TRUSTED_PROXIES); limits key on ClientKey instead.
func RemoteIP(ctx context.Context) string { return remoteIP(ctx) }

// ClientKey is what per-address limits count the dashboard request of ctx
// under: its client address, or that address's IPv6 network.
func ClientKey(ctx context.Context) string { return clientKey(ctx) }

// HandlePageNotFound answers unknown routes outside /v1 and /docs with h (the
// dashboard's HTML 404) instead of a problem, for browsers: requests whose
// Accept header names text/html. Everything else still gets a problem.
func (s *Server) HandlePageNotFound(h http.Handler) { s.pageNotFound = h }

func (s *Server) wantsPage(r *http.Request) bool {
	p := r.URL.Path
	return s.pageNotFound != nil && p != "/v1" && !strings.HasPrefix(p, "/v1/") && !strings.HasPrefix(p, "/docs/") &&
		strings.Contains(r.Header.Get("Accept"), "text/html")
}

// EncodeCursor is the signed cursor of the page after lastID in the list
// scope, as next_cursor of the API's lists.
func (s *Server) EncodeCursor(scope, lastID string) string { return s.cursors.Encode(scope, lastID) }

// DecodeCursor returns the last id a cursor of the list scope carries ("" for
// no cursor); a tampered cursor, or one of another list or filter, is the
// API's 422 validation-failed naming cursor.
func (s *Server) DecodeCursor(scope, cursor string) (string, error) {
	return s.cursors.Decode(scope, cursor)
}
