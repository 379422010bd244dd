package sentryhttp

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/errata-dev/errata/internal/auth"
	"github.com/errata-dev/errata/internal/intake"
	"github.com/errata-dev/errata/internal/metrics"
	"github.com/errata-dev/errata/internal/ratelimit"
	"github.com/errata-dev/errata/internal/sentry"
	"github.com/errata-dev/errata/internal/store"
)

// forbidden is the one answer to every failed key check: it does not say
// whether the key was missing, unknown, revoked or of another project.
const forbidden = "the request is not authorized for this project: send a valid API key of it as sentry_key"

// errForbidden refuses a request whose key is not a valid API key of the
// project in its path.
var errForbidden = auth.Unauthorized(forbidden)

// requestKey returns the key a request carries outside its body: the
// sentry_key query parameter (the JavaScript SDKs), else the sentry_key of
// X-Sentry-Auth, or of an Authorization header in the same form (server
// SDKs); "" when it has none.
func requestKey(r *http.Request) string {
	if q := r.URL.RawQuery; strings.Contains(q, "sentry_key=") {
		if v, err := url.ParseQuery(q); err == nil && v.Get("sentry_key") != "" {
			return v.Get("sentry_key")
		}
	}
	if k := sentry.AuthKey(r.Header.Get("X-Sentry-Auth")); k != "" {
		return k
	}
	if a := r.Header.Get("Authorization"); len(a) > 7 && strings.EqualFold(a[:7], "sentry ") {
		return sentry.AuthKey(a)
	}
	return ""
}

// admit runs the intake's admission for key, which must be one of project
// number's. A key of another project is refused as any bad key is, with
// the caller's address's RateLimit-* headers, before its own project's
// origins, rate limit or load are looked at: the answer does not tell
// that the key is valid (CONTRACT 7). addr, when not nil, is the token the
// caller's address paid already (keyless).
func (h *Handler) admit(w http.ResponseWriter, r *http.Request, number int64, key string, addr *ratelimit.Result) (store.Project, error) {
	p, err := h.intake.AdmitProject(w, r, Route, key, number, addr)
	if errors.Is(err, intake.ErrOtherProject) {
		return store.Project{}, errForbidden
	}
	return p, err
}

// admitByDSN authenticates a request by the dsn of its envelope's header,
// read from the first line of the body (ReadHead): envelopes that
// authenticate themselves (CONTRACT 7). The DSN must name project number.
func (h *Handler) admitByDSN(w http.ResponseWriter, r *http.Request, number int64, body []byte, addr ratelimit.Result) (store.Project, error) {
	if !h.store || isEnvelopeStore(r) {
		if hd, err := sentry.ParseHeader(body); err == nil && hd.DSN != "" {
			if dsn, err := sentry.ParseDSN(hd.DSN); err == nil && dsn.Number == number {
				return h.admit(w, r, number, dsn.Key, &addr)
			}
		}
	}
	h.intake.Refuse(Route, metrics.RefusedUnauthorized)
	return store.Project{}, errForbidden
}
