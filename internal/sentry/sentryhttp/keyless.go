package sentryhttp

import (
	"net/http"

	"github.com/errata-dev/errata/internal/intake"
	"github.com/errata-dev/errata/internal/metrics"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/ratelimit"
	"github.com/errata-dev/errata/internal/store"
)

// readKeyless reads the body of a request that carries no key outside it,
// an envelope whose header names its DSN (CONTRACT 8): the caller's
// address must be within the per-address limit of requests not yet
// authenticated (ERRATA_API_RATE_LIMIT, the management API's), then only
// the first line (64 KiB decoded at most) is read, under the sixteenth of
// the memory budget that unauthenticated reads share, and the DSN in it
// must be a key of project number; only then is the rest read, under the
// share of the key's organization. A store request that is not an
// envelope has nowhere to carry a key and is refused unread. ok is false
// when the request was answered.
func (h *Handler) readKeyless(w http.ResponseWriter, r *http.Request, number int64, dec *intake.Decoding, res ratelimit.Result) (body *intake.Body, p store.Project, ok bool) {
	in := h.intake
	if h.store && !isEnvelopeStore(r) {
		in.Refuse(Route, metrics.RefusedUnauthorized)
		h.fail(w, r, errForbidden)
		return nil, p, false
	}
	ctx := r.Context()
	k, reason, pr := in.ReadHead(ctx, r, limits, dec)
	if pr != nil {
		// The rest of the body stays unread: closing the connection
		// answers at once, where the server would first read (or wait
		// for) up to 256 KiB of it to keep the connection.
		w.Header().Set("Connection", "close")
		in.Refuse(Route, reason)
		if reason == metrics.RefusedUnauthorized {
			pr = errForbidden // a first line too long to carry a key: the one 403 (CONTRACT 2)
		}
		h.fail(w, r, pr)
		return nil, p, false
	}
	p, err := h.admitByDSN(w, r, number, k.Head(), res)
	if err != nil {
		k.Release()
		h.fail(w, r, err)
		return nil, p, false
	}
	body, reason, pr = k.Finish(ctx, p.OrgID)
	if pr != nil {
		in.Refuse(Route, reason)
		h.fail(w, r, pr)
		return nil, p, false
	}
	return body, p, true
}

// admitAddress takes a token of the client address's bucket for a request
// without a key, before anything else is checked, so that every answer to
// it carries the bucket's RateLimit-* headers (until the project's replace
// them); past the bucket it answers 429 and reports false in Allowed.
func (h *Handler) admitAddress(w http.ResponseWriter, r *http.Request) ratelimit.Result {
	in := h.intake
	res := in.Callers.Allow("ip:" + in.ClientIP.Key(r))
	res.SetHeaders(w.Header())
	if !res.Allowed {
		in.Refuse(Route, metrics.RefusedRateLimited)
		h.fail(w, r, problem.New("rate-limited", "too many requests without a key from this address; send the key in the query (sentry_key) or X-Sentry-Auth, or wait Retry-After seconds"))
	}
	return res
}
