package httpapi

import (
	"context"
	"errors"
	"mime"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/errata-dev/errata/internal/auth"
	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/metrics"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/queue"
	"github.com/errata-dev/errata/internal/ratelimit"
	"github.com/errata-dev/errata/internal/store"
)

// Ingestion body limits (CONTRACT 3).
const (
	MaxIngestWireBytes    = 5 << 20
	MaxIngestDecodedBytes = 20 << 20
)

// Intake is what the ingestion routes need: the credential check, admission
// control and the durable queue. POST /v1/ingest, POST /v1/logs and
// OTLP/gRPC all go through it.
type Intake struct {
	Auth      *auth.Service
	Limiter   *ratelimit.Limiter // per project
	Monitor   *queue.Monitor
	Committer *queue.Committer
	Metrics   *metrics.Metrics
}

// Admit authenticates a project API key and applies the project's rate limit
// and the back-pressure thresholds, in the contract's order (401, then 429,
// then 503). The rate-limit result is returned for the RateLimit-* headers
// even when err is not nil.
func (in *Intake) Admit(ctx context.Context, route, credential string) (store.Project, *ratelimit.Result, error) {
	if credential == "" {
		in.Refuse(route, metrics.RefusedUnauthorized)
		return store.Project{}, nil, auth.Unauthorized("ingestion needs a project API key: Authorization: Bearer svc_live_…")
	}
	if !auth.IsAPIKey(credential) {
		in.Refuse(route, metrics.RefusedUnauthorized)
		return store.Project{}, nil, auth.Unauthorized("ingestion takes a project API key (svc_live_…), not a session token")
	}
	_, p, err := in.Auth.AuthenticateKey(ctx, credential)
	if err != nil {
		in.Refuse(route, metrics.RefusedUnauthorized)
		return store.Project{}, nil, err
	}
	res := in.Limiter.Allow(p.ID)
	if !res.Allowed {
		in.Refuse(route, metrics.RefusedRateLimited)
		return p, &res, problem.New("rate-limited", "the project's ingest rate limit was hit; wait Retry-After seconds and resend")
	}
	if over, why := in.Monitor.Overloaded(); over {
		in.Refuse(route, why)
		detail := "the unprocessed backlog is over its limit; resend after Retry-After seconds"
		if why == metrics.RefusedDisk {
			detail = "the server is low on disk space; resend after Retry-After seconds"
		}
		return p, &res, problem.New("overloaded", detail).RetryAfter(30 * time.Second)
	}
	return p, &res, nil
}

// payloadPool recycles queue payload buffers: once Enqueue returns, the
// database has its own copy (or never got the buffer).
var payloadPool sync.Pool

// Commit makes the batch durable and counts it.
func (in *Intake) Commit(ctx context.Context, route string, p store.Project, received time.Time, events []ingest.Event) error {
	buf, _ := payloadPool.Get().(*[]byte)
	if buf == nil {
		buf = new([]byte)
	}
	payload := ingest.AppendPayload((*buf)[:0], events)
	defer func() {
		if cap(payload) <= 2*MaxIngestDecodedBytes {
			*buf = payload
			payloadPool.Put(buf)
		}
	}()
	if _, err := in.Committer.Enqueue(ctx, store.Batch{ProjectID: p.ID, ReceivedAt: received, EventCount: len(events), Payload: payload}); err != nil {
		if errors.Is(err, queue.ErrClosed) {
			in.Refuse(route, metrics.RefusedShutdown)
			return problem.New("overloaded", "the server is shutting down; resend to another instance or shortly").RetryAfter(5 * time.Second)
		}
		in.Refuse(route, metrics.RefusedInternal)
		return err
	}
	in.Monitor.Added(len(events), len(payload))
	in.Metrics.AcceptedBatches.WithLabelValues(route).Inc()
	in.Metrics.AcceptedEvents.WithLabelValues(route).Add(float64(len(events)))
	return nil
}

// Refuse counts a refused ingestion request by route and reason.
func (in *Intake) Refuse(route, reason string) {
	in.Metrics.Refused.WithLabelValues(route, reason).Inc()
}

// ingestRoute is POST /v1/ingest, a plain handler: its checks run in the
// contract's order before any body is buffered, and the body is read with
// hard limits (a gzip bomb stops at 20 MiB decompressed).
func (s *Server) ingestRoute(w http.ResponseWriter, r *http.Request) {
	const route = "ingest"
	in := s.intake
	p, err := s.AdmitIngest(w, r, in, route)
	if err != nil {
		s.answerError(w, r, err)
		return
	}
	fail := func(reason string, pr *problem.Problem) {
		in.Refuse(route, reason)
		writeProblem(w, r, pr)
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		fail(metrics.RefusedMediaType, problem.New("unsupported-media-type", "Content-Type must be application/json"))
		return
	}
	gzipped, pr := IngestEncoding(r)
	if pr != nil {
		fail(metrics.RefusedEncoding, pr)
		return
	}
	received := time.Now().UTC()
	body, reason, pr := ReadIngestBody(r, gzipped)
	if pr != nil {
		fail(reason, pr)
		return
	}
	defer body.Release()
	events, err := ingest.Decode(body.Bytes, received)
	if err != nil {
		var pr *problem.Problem
		reason := metrics.RefusedInvalid
		if errors.As(err, &pr) && pr.Status == http.StatusBadRequest {
			reason = metrics.RefusedMalformed
		}
		in.Refuse(route, reason)
		s.answerError(w, r, err)
		return
	}
	if err := in.Commit(r.Context(), route, p, received, events); err != nil {
		s.answerError(w, r, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusAccepted)
	_, _ = w.Write([]byte(`{"accepted":` + strconv.Itoa(len(events)) + "}"))
}

// answerError writes err as a problem through the one error mapping.
func (s *Server) answerError(w http.ResponseWriter, r *http.Request, err error) {
	writeProblem(w, r, toProblem(r.Context(), http.StatusInternalServerError, "", []error{err}))
}
