package sentryhttp

import (
	"encoding/json"
	"net/http"
	"unicode/utf8"
)

// CORS of the endpoints. Browser SDKs send their key in the query and a
// text/plain body, which needs no preflight, but an application may add
// headers (sentry-trace and baggage from tracing, X-Sentry-Auth from a
// custom transport); the answer's rate-limit headers must be readable by
// the SDK's script.
const (
	corsMethods = "POST, OPTIONS"
	corsHeaders = "Content-Type, Content-Encoding, X-Sentry-Auth, Authorization, Sentry-Trace, Baggage, " +
		"X-Requested-With, Accept, Origin, Referer"
	corsExposed = "X-Sentry-Error, X-Sentry-Rate-Limits, Retry-After"
	corsMaxAge  = "3600"
)

// allowOrigin lets any origin read an answer: the endpoints take no cookie,
// only a key that browser applications embed anyway.
func allowOrigin(h http.Header) {
	h.Set("Access-Control-Allow-Origin", "*")
	h.Set("Access-Control-Expose-Headers", corsExposed)
}

// preflight answers a CORS preflight (OPTIONS) of either endpoint.
func preflight(w http.ResponseWriter, _ *http.Request) {
	h := w.Header()
	allowOrigin(h)
	h.Set("Access-Control-Allow-Methods", corsMethods)
	h.Set("Access-Control-Allow-Headers", corsHeaders)
	h.Set("Access-Control-Max-Age", corsMaxAge)
	h.Set("Content-Length", "0")
	w.WriteHeader(http.StatusOK)
}

// notAllowed answers a method the endpoints do not take, with CORS as
// every answer of theirs.
func notAllowed(w http.ResponseWriter, r *http.Request) {
	allowOrigin(w.Header())
	w.Header().Set("Allow", corsMethods)
	writeDetail(w, http.StatusMethodNotAllowed, "method "+r.Method+" not allowed: send POST")
}

// rateLimited answers a request past the caller's bucket (its headers and
// Retry-After already set), with CORS as every answer of theirs.
func rateLimited(w http.ResponseWriter) {
	allowOrigin(w.Header())
	writeDetail(w, http.StatusTooManyRequests, "too many requests; wait Retry-After seconds")
}

// setRateLimits adds X-Sentry-Rate-Limits to a 429 whose Retry-After is
// set: "<seconds>::project", relay's form (retry after, categories, scope),
// with no category, which SDKs read as every kind of data. Errata's limit
// is the project's request rate (ERRATA_SENTRY_RATE_LIMIT) or its event
// rate, shared with /v1/ingest (ERRATA_INGEST_RATE_LIMIT).
func setRateLimits(h http.Header) {
	secs := h.Get("Retry-After")
	if secs == "" {
		secs = "1"
		h.Set("Retry-After", secs)
	}
	h.Set("X-Sentry-Rate-Limits", secs+"::project")
}

// maxDetail caps a detail: some name what the client sent (an item type).
const maxDetail = 300

// writeDetail answers a failure as Sentry does: {"detail": "…"}.
func writeDetail(w http.ResponseWriter, status int, detail string) {
	if len(detail) > maxDetail {
		cut := maxDetail
		for cut > 0 && !utf8.RuneStart(detail[cut]) {
			cut--
		}
		detail = detail[:cut] + "…"
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	b, _ := json.Marshal(struct {
		Detail string `json:"detail"`
	}{detail})
	_, _ = w.Write(b)
}

// writeID answers an accepted request: {"id": "<event id>"}, or {} when the
// envelope named no event (sessions or logs alone).
func writeID(w http.ResponseWriter, eventID string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	if eventID == "" {
		_, _ = w.Write([]byte("{}"))
		return
	}
	_, _ = w.Write([]byte(`{"id":"` + eventID + `"}`)) // 32 hexadecimal digits (sentry.Map)
}
