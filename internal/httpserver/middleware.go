package httpserver

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"path"
	"runtime/debug"
	"strings"
	"time"

	"github.com/errata-dev/errata/internal/audit"
	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/secret"
	"github.com/errata-dev/errata/internal/store"
)

// RequestIDHeader carries the req_ id of every answer; error bodies repeat it
// as their instance.
const RequestIDHeader = "Request-Id"

type reqInfoKey struct{}

// reqInfo travels in every request's context.
type reqInfo struct {
	id      string
	docsURL string
	log     *slog.Logger
	ip      string
	// key is what per-address limits count the request under: ip, or its
	// IPv6 network (clientip.Resolver.Key).
	key string
}

func info(ctx context.Context) *reqInfo {
	if ri, ok := ctx.Value(reqInfoKey{}).(*reqInfo); ok {
		return ri
	}
	return &reqInfo{id: "", log: slog.Default()}
}

func remoteIP(ctx context.Context) string { return info(ctx).ip }

// clientKey is what per-address limits count the request of ctx under:
// its client address, or that address's IPv6 network (ERRATA_IPV6_PREFIX).
func clientKey(ctx context.Context) string { return info(ctx).key }

// RequestID returns the request id of ctx ("" outside a request).
func RequestID(ctx context.Context) string { return info(ctx).id }

// WriteProblem sends p as the answer to r, with the request's id as its
// instance and the docs URL in its type.
func WriteProblem(w http.ResponseWriter, r *http.Request, p *problem.Problem) {
	ri := info(r.Context())
	p.Write(w, ri.docsURL, ri.id)
}

// statusRecorder remembers the status written through it.
type statusRecorder struct {
	http.ResponseWriter
	status int
	body   *stalledBody
	// callerBucket is set when the RateLimit-* headers are the caller
	// bucket's (TakeCallerToken, PeekCallerLimit), not those of a limit
	// of the route's own (ingestion's per project).
	callerBucket bool
}

func (s *statusRecorder) WriteHeader(code int) {
	abortIfStalled(s.body, code)
	if code == http.StatusTooManyRequests && s.callerBucket {
		refusedHeaders(s.Header())
	}
	if s.status == 0 {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the real writer.
func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// withRequest gives each request its id, a logger carrying it, panic
// recovery (500 internal, logged, nothing leaked) and an access log line.
func (s *Server) withRequest(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rid := id.New(id.Request)
		ri := &reqInfo{id: rid, docsURL: s.docsURL, log: s.log.With("request_id", rid), ip: s.clientIP.IP(r)}
		ri.key = s.clientIP.Group(ri.ip)
		w.Header().Set(RequestIDHeader, rid)
		ctx := audit.WithRequest(context.WithValue(r.Context(), reqInfoKey{}, ri), &audit.Request{IP: ri.ip, UserAgent: audit.Agent(r.UserAgent())})
		ctx = store.AsRequest(ctx) // its database work is bounded (ERRATA_DB_TIMEOUT)
		r = r.WithContext(ctx)
		// The body is wrapped in the handlers' copy of the request only:
		// net/http decides from its own request's body whether a handler
		// left the body unread or closed it early, and then closes the
		// connection instead of reading what remains as the next request.
		var body *stalledBody
		if r.Body != nil && r.Body != http.NoBody {
			body = &stalledBody{ReadCloser: r.Body}
			r.Body = body
		}
		rec := &statusRecorder{ResponseWriter: w, body: body}
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				ri.log.Error("panic", "panic", v, "stack", string(debug.Stack()))
				if rec.status == 0 {
					WriteProblem(rec, r, problem.New("internal", "an internal error occurred; the instance identifies it in the server log"))
				}
			}
			ri.log.Debug("request", "method", r.Method, "path", r.URL.Path, "status", rec.status, "duration_ms", time.Since(start).Milliseconds())
		}()
		next.ServeHTTP(rec, r)
	})
}

// withRateLimit applies the per-caller limit of the management API and puts
// the RateLimit-* headers on every answer. A caller is its credential (so a
// script's limit follows its token) or else its IP address. Ingestion routes
// take their own per-project limit instead (see Server.ExemptFromCallerLimit).
func (s *Server) withRateLimit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.probes[r.URL.Path] {
			// Never refused, but every answer carries the RateLimit-*
			// headers (interface section 8): the caller's bucket as it is.
			s.PeekCallerLimit(w, r)
			next.ServeHTTP(w, r)
			return
		}
		if s.skipCallerLimit(r) {
			next.ServeHTTP(w, r)
			return
		}
		if !s.TakeCallerToken(w, r) {
			WriteProblem(w, r, problem.New("rate-limited", "too many requests; wait Retry-After seconds"))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// refusedHeaders makes the caller bucket's RateLimit-* headers on a 429
// describe the refusal: a limit of its own (sign-ins, invitations, a channel test, a
// digest) refuses while the caller's bucket, whose headers every answer
// carries, still holds requests, and RateLimit-Remaining 99 beside
// Retry-After would tell a client to retry at once. None is left until
// Retry-After.
func refusedHeaders(h http.Header) {
	ra := h.Get("Retry-After")
	if ra == "" || h.Get("RateLimit-Limit") == "" || h.Get("RateLimit-Remaining") == "0" {
		return
	}
	h.Set("RateLimit-Remaining", "0")
	h.Set("RateLimit-Reset", ra)
}

// PeekCallerLimit puts the RateLimit-* headers of the caller's bucket, as
// it is, on an answer that takes nothing from it (a CORS preflight).
func (s *Server) PeekCallerLimit(w http.ResponseWriter, r *http.Request) {
	res := s.callers.Peek(callerKey(r))
	res.Allowed = true
	res.SetHeaders(w.Header())
	markCallerBucket(w)
}

// markCallerBucket notes that w's RateLimit-* headers are the caller
// bucket's (refusedHeaders).
func markCallerBucket(w http.ResponseWriter) {
	if rec, ok := w.(*statusRecorder); ok {
		rec.callerBucket = true
	}
}

// TakeCallerToken takes a token from the caller's bucket of the management
// API's limit (ERRATA_API_RATE_LIMIT; the caller is its credential, else
// its address) and puts the RateLimit-* headers, and Retry-After when it
// refuses, on w. Routes under an exempted prefix that answer in a shape of
// their own (Sentry's web API, /api/0/) call it themselves.
func (s *Server) TakeCallerToken(w http.ResponseWriter, r *http.Request) bool {
	res := s.callers.Allow(callerKey(r))
	res.SetHeaders(w.Header())
	markCallerBucket(w)
	return res.Allowed
}

// callerKey runs inside withRequest, which found the client address.
func callerKey(r *http.Request) string {
	if tok := Bearer(r); tok != "" {
		return "t:" + string(secret.Hash(tok))
	}
	if c, err := r.Cookie(SessionCookie); err == nil && c.Value != "" {
		return "t:" + string(secret.Hash(c.Value))
	}
	return "ip:" + info(r.Context()).key
}

// withRouteProblems turns the mux's plain-text 404 and 405 answers into
// problems: a request no pattern matches is routed to a recorder first.
func (s *Server) withRouteProblems(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if p := r.URL.Path; strings.HasPrefix(p, "/v1/") && !cleanPath(p) {
			// The mux would redirect to the cleaned path: an empty id
			// (/v1/projects//channels) to another resource
			// (/v1/projects/channels, a project "channels"), and a
			// POST's 307 to nothing an API client follows. The API has
			// no such path: 404, as any other path without a route.
			if w.Header().Get("RateLimit-Limit") == "" {
				s.TakeCallerToken(w, r) // as below
			}
			WriteProblem(w, r, problem.Newf("not-found", "no route %s %s", r.Method, requestPath(r)))
			return
		}
		h, pattern := mux.Handler(r)
		if pattern != "" {
			mux.ServeHTTP(w, r) // the mux, not h: it sets the path values
			return
		}
		rec := &discardRecorder{header: http.Header{}}
		h.ServeHTTP(rec, r)
		if w.Header().Get("RateLimit-Limit") == "" {
			// An exempted path's own limit never saw the request (a GET of
			// /v1/ingest): the caller's limit counts it, so that every
			// answer carries the RateLimit-* headers (interface section 8).
			s.TakeCallerToken(w, r)
		}
		if strings.HasPrefix(r.URL.Path, "/api/") && (rec.status == http.StatusMethodNotAllowed || rec.status == http.StatusNotFound) {
			// Sentry's routes answer in Sentry's form, {"detail": …}, which
			// sentry-cli and the SDKs read (docs/sourcemaps.md).
			detail := "no route " + r.Method + " " + r.URL.Path
			if rec.status == http.StatusMethodNotAllowed {
				w.Header().Set("Allow", rec.header.Get("Allow"))
				detail = r.Method + " is not allowed on " + r.URL.Path + "; allowed: " + rec.header.Get("Allow")
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(rec.status)
			_ = json.NewEncoder(w).Encode(map[string]string{"detail": detail})
			return
		}
		switch rec.status {
		case http.StatusMethodNotAllowed:
			w.Header().Set("Allow", rec.header.Get("Allow"))
			WriteProblem(w, r, problem.Newf("method-not-allowed", "%s is not allowed on %s; allowed: %s", r.Method, requestPath(r), rec.header.Get("Allow")))
		case http.StatusMovedPermanently, http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
			w.Header().Set("Location", rec.header.Get("Location"))
			w.WriteHeader(rec.status)
		default:
			if s.wantsPage(r) {
				s.pageNotFound.ServeHTTP(w, r)
				return
			}
			WriteProblem(w, r, problem.Newf("not-found", "no route %s %s", r.Method, requestPath(r)))
		}
	})
}

type discardRecorder struct {
	header http.Header
	status int
}

func (d *discardRecorder) Header() http.Header         { return d.header }
func (d *discardRecorder) Write(b []byte) (int, error) { return len(b), nil }
func (d *discardRecorder) WriteHeader(code int)        { d.status = code }

// cleanPath reports whether p is as the mux keeps it: no empty, "." or
// ".." segment (a trailing slash allowed).
func cleanPath(p string) bool {
	c := path.Clean(p)
	if strings.HasSuffix(p, "/") && c != "/" {
		c += "/"
	}
	return c == p
}
