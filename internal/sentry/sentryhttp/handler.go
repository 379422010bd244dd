// Package sentryhttp serves the Sentry SDK endpoints, POST
// /api/{number}/envelope/ and POST /api/{number}/store/ (CONTRACT 7,
// docs/sentry.md): a transport beside POST /v1/ingest and OTLP over the one
// admission-and-commit path (package intake), with the protocol itself in
// package sentry. It answers as Sentry does, 200 {"id": …} once the events
// are durable and {"detail": …} bodies for failures, with
// Access-Control-Allow-Origin: * so that browser SDKs can read them.
package sentryhttp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"strconv"

	"github.com/errata-dev/errata/internal/httpserver"
	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/intake"
	"github.com/errata-dev/errata/internal/metrics"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/ratelimit"
	"github.com/errata-dev/errata/internal/sentry"
	"github.com/errata-dev/errata/internal/store"
)

// Route is the metrics label of both endpoints.
const Route = metrics.RouteSentry

// Paths of the endpoints, as SDKs derive them from a DSN (with the trailing
// slash; also served without it).
const (
	EnvelopePath = "/api/{number}/envelope/"
	StorePath    = "/api/{number}/store/"
)

// limits are Sentry's own (CONTRACT 7): 20 MiB as sent, 100 MiB
// decompressed; items are capped at 1 MiB by sentry.ParseEnvelope.
var limits = intake.Limits{Wire: sentry.MaxBodyBytes, Decoded: sentry.MaxDecodedBytes}

// mapFactor is what mapping holds besides the body, in multiples of the
// bytes of the event and log items it reads: the decoded events, their
// rendered stacks and attributes, and the queue payload; the payload's
// compressed copy is reserved besides (ingest.CompressBound).
const mapFactor = 3

// Handler serves one of the two endpoints.
type Handler struct {
	intake  *intake.Intake
	metrics *metrics.Metrics
	log     *slog.Logger
	store   bool // POST /api/{number}/store/: the body is one event
}

// Mount serves the endpoints on srv through in (whose Limiter is the
// Sentry one, ERRATA_SENTRY_RATE_LIMIT), outside the per-caller limit of
// the management API, with their CORS preflights.
func Mount(srv *httpserver.Server, in *intake.Intake, log *slog.Logger) {
	mux := srv.Mux()
	for _, h := range []*Handler{{intake: in, metrics: in.Metrics, log: log}, {intake: in, metrics: in.Metrics, log: log, store: true}} {
		path := EnvelopePath
		if h.store {
			path = StorePath
		}
		for _, p := range []string{path + "{$}", path[:len(path)-1]} {
			mux.Handle("POST "+p, h)
			// Outside the caller limit, these carry its RateLimit-*
			// headers as every answer does (interface section 8): a
			// preflight spends nothing, another method a token.
			mux.HandleFunc("OPTIONS "+p, func(w http.ResponseWriter, r *http.Request) {
				srv.PeekCallerLimit(w, r)
				preflight(w, r)
			})
			mux.HandleFunc(p, func(w http.ResponseWriter, r *http.Request) {
				if !srv.TakeCallerToken(w, r) {
					rateLimited(w) // past the bucket, a 429 as on every route
					return
				}
				notAllowed(w, r) // any other method: 405, readable by a browser SDK too
			})
		}
	}
	srv.ExemptFromCallerLimit("/api/")
}

// ServeHTTP checks, in order, the key (403), the project's Sentry rate
// limit (429) and back-pressure (503), the Content-Encoding (415), the
// sizes (413) and the framing of the body (400), maps the items, takes
// their events from the project's /v1/ingest bucket (429, one token per
// 1,000 events) and commits them before answering 200 {"id": …}. Without a key in the
// query or the X-Sentry-Auth header, only the envelope's first line is read
// before its header's dsn authenticates the request (readKeyless). A
// nested Content-Encoding is 400, after the 415 of an unsupported coding
// and the 413 of a declared length over the limit.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	allowOrigin(w.Header())
	ctx := r.Context()
	in := h.intake
	number, err := strconv.ParseInt(r.PathValue("number"), 10, 64)
	if err != nil || number <= 0 {
		number = -1 // no project has it: the key check below refuses (0 would admit any project's key)
	}
	key := requestKey(r)
	var p store.Project
	var addr ratelimit.Result
	if key != "" {
		if p, err = h.admit(w, r, number, key, nil); err != nil {
			h.fail(w, r, err)
			return
		}
	} else if addr = h.admitAddress(w, r); !addr.Allowed {
		return
	}
	// CONTRACT 6's order: an unsupported coding (415), a declared length
	// over the limit (413), then a nested encoding (400).
	encoding := intake.ContentEncoding(r)
	encErr := sentry.CheckEncoding(encoding)
	if errors.Is(encErr, sentry.ErrUnsupportedEncoding) {
		h.refuse(w, metrics.RefusedEncoding, http.StatusUnsupportedMediaType, "Content-Encoding must be gzip, deflate, br, zstd or none")
		return
	}
	if intake.Nested(encoding) || encErr != nil { // too many codings, known ones: a malformed header
		if r.ContentLength > limits.Wire {
			h.refuse(w, metrics.RefusedTooLarge, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is over %d MiB as sent", limits.Wire>>20))
			return
		}
		h.refuse(w, metrics.RefusedEncoding, http.StatusBadRequest, intake.NestedProblem(encoding).Detail)
		return
	}
	received := in.Received()
	var dec *intake.Decoding
	if mem := sentry.DecoderMemory(encoding); mem > 0 {
		dec = &intake.Decoding{Memory: mem, Open: func(body io.Reader) (io.ReadCloser, error) { return sentry.Decompressor(encoding, body) },
			Declared: func(prefix []byte) (int64, bool) { return sentry.DeclaredMemory(encoding, prefix) }}
	}
	var body *intake.Body
	if key == "" {
		var ok bool
		if body, p, ok = h.readKeyless(w, r, number, dec, addr); !ok {
			return
		}
	} else {
		var reason string
		var pr *problem.Problem
		if body, reason, pr = in.ReadDecoded(ctx, r, p.OrgID, limits, dec); pr != nil {
			in.Refuse(Route, reason)
			h.fail(w, r, pr)
			return
		}
	}
	defer body.Release()
	env, err := h.parse(r, body.Bytes)
	if err != nil {
		status, reason := http.StatusBadRequest, metrics.RefusedMalformed
		if errors.Is(err, sentry.ErrItemTooLarge) {
			status, reason = http.StatusRequestEntityTooLarge, metrics.RefusedTooLarge
		}
		h.refuse(w, reason, status, err.Error())
		return
	}
	mapped := mappedBytes(env)
	if reason, pr := body.Reserve(ctx, mapFactor*mapped+int64(ingest.CompressBound(int(mapped)))); pr != nil {
		in.Refuse(Route, reason)
		h.fail(w, r, pr)
		return
	}
	res := sentry.Map(env, sentry.Options{Service: p.Name, ReceivedAt: received, Redact: in.Decoder.Redact, UserAgent: r.UserAgent()})
	h.count(ctx, &res)
	if rl, err := in.TakeEvents(Route, p, len(res.Events)); err != nil {
		rl.SetHeaders(w.Header())
		h.fail(w, r, err)
		return
	}
	if len(res.Events) > 0 {
		if err := in.Commit(ctx, Route, p, received, res.Events); err != nil {
			h.fail(w, r, err)
			return
		}
	}
	writeID(w, res.EventID)
}

// parse frames the body: an envelope, or for the store endpoint one event
// (or an envelope, when its Content-Type says so).
func (h *Handler) parse(r *http.Request, body []byte) (*sentry.Envelope, error) {
	if h.store {
		return sentry.ParseStore(r.Header.Get("Content-Type"), body)
	}
	return sentry.ParseEnvelope(body)
}

// mappedBytes is the size of the items Map decodes: events and logs.
func mappedBytes(env *sentry.Envelope) int64 {
	var n int64
	for _, it := range env.Items {
		if it.Type == sentry.TypeEvent || it.Type == sentry.TypeLog {
			n += int64(len(it.Payload))
		}
	}
	return n
}

// count records the dropped and malformed items in /metrics, and logs why
// items were malformed (at debug level: clients send them, the server
// cannot fix them).
func (h *Handler) count(ctx context.Context, res *sentry.Result) {
	for typ, n := range res.Dropped {
		h.metrics.DroppedSentryItems(typ, n)
	}
	if len(res.Malformed) == 0 {
		return
	}
	h.metrics.SentryMalformed.Add(float64(len(res.Malformed)))
	first := res.Malformed[0]
	h.log.DebugContext(ctx, "Sentry items dropped as malformed", "request_id", httpserver.RequestID(ctx), "count", len(res.Malformed),
		"first_item", first.Item, "first_type", first.Type, "first_reason", first.Reason)
}

// isEnvelopeStore reports whether a store request's body is an envelope.
func isEnvelopeStore(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && mt == "application/x-sentry-envelope"
}

// fail answers err through the one mapping from errors to problems
// (problem.From), in Sentry's form: every failed key check is 403 alike,
// internal errors are logged and not shown.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	pr := problem.From(err)
	status := pr.Status
	switch {
	case errors.Is(err, intake.ErrOriginRefused):
		writeDetail(w, http.StatusForbidden, err.Error())
		return
	case pr.IsInternal():
		h.log.ErrorContext(r.Context(), "Sentry request failed", "request_id", httpserver.RequestID(r.Context()), "err", err)
		writeDetail(w, http.StatusInternalServerError, "an internal error occurred")
		return
	case status == http.StatusUnauthorized || status == http.StatusForbidden || status == http.StatusNotFound:
		writeDetail(w, http.StatusForbidden, forbidden)
		return
	}
	for k, vs := range pr.GetHeaders() {
		for _, v := range vs {
			w.Header().Set(k, v)
		}
	}
	if status == http.StatusTooManyRequests {
		setRateLimits(w.Header())
	}
	writeDetail(w, status, pr.Detail)
}

// refuse counts a refusal of the request's body and answers it.
func (h *Handler) refuse(w http.ResponseWriter, reason string, status int, detail string) {
	h.intake.Refuse(Route, reason)
	writeDetail(w, status, detail)
}
