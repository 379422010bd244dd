package httpapi

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
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
		in.refuse(route, metrics.RefusedUnauthorized)
		return store.Project{}, nil, auth.Unauthorized("ingestion needs a project API key: Authorization: Bearer svc_live_…")
	}
	if !auth.IsAPIKey(credential) {
		in.refuse(route, metrics.RefusedUnauthorized)
		return store.Project{}, nil, auth.Unauthorized("ingestion takes a project API key (svc_live_…), not a session token")
	}
	_, p, err := in.Auth.AuthenticateKey(ctx, credential)
	if err != nil {
		in.refuse(route, metrics.RefusedUnauthorized)
		return store.Project{}, nil, err
	}
	res := in.Limiter.Allow(p.ID)
	if !res.Allowed {
		in.refuse(route, metrics.RefusedRateLimited)
		return p, &res, problem.New("rate-limited", "the project's ingest rate limit was hit; wait Retry-After seconds and resend")
	}
	if over, why := in.Monitor.Overloaded(); over {
		in.refuse(route, why)
		detail := "the unprocessed backlog is over its limit; resend after Retry-After seconds"
		if why == metrics.RefusedDisk {
			detail = "the server is low on disk space; resend after Retry-After seconds"
		}
		return p, &res, problem.New("overloaded", detail).RetryAfter(30 * time.Second)
	}
	return p, &res, nil
}

// Commit makes the batch durable and counts it.
func (in *Intake) Commit(ctx context.Context, route string, p store.Project, received time.Time, events []ingest.Event) error {
	payload, err := ingest.EncodePayload(events)
	if err != nil {
		in.refuse(route, metrics.RefusedInternal)
		return err
	}
	if _, err := in.Committer.Enqueue(ctx, store.Batch{ProjectID: p.ID, ReceivedAt: received, EventCount: len(events), Payload: payload}); err != nil {
		if errors.Is(err, queue.ErrClosed) {
			in.refuse(route, metrics.RefusedShutdown)
			return problem.New("overloaded", "the server is shutting down; resend to another instance or shortly").RetryAfter(5 * time.Second)
		}
		in.refuse(route, metrics.RefusedInternal)
		return err
	}
	in.Monitor.Added(len(events), len(payload))
	in.Metrics.AcceptedBatches.WithLabelValues(route).Inc()
	in.Metrics.AcceptedEvents.WithLabelValues(route).Add(float64(len(events)))
	return nil
}

func (in *Intake) refuse(route, reason string) {
	in.Metrics.Refused.WithLabelValues(route, reason).Inc()
}

var bufPool = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// ingestRoute is POST /v1/ingest, a plain handler: its checks run in the
// contract's order before any body is buffered, and the body is read with
// hard limits (a gzip bomb stops at 20 MiB decompressed).
func (s *Server) ingestRoute(w http.ResponseWriter, r *http.Request) {
	const route = "ingest"
	in := s.intake
	p, rl, err := in.Admit(r.Context(), route, bearer(r))
	if rl == nil { // refused before the project was known: limit by address
		res := s.callers.Allow("ip:" + clientIP(r))
		rl = &res
	}
	rl.SetHeaders(w.Header())
	if err != nil {
		s.answerError(w, r, err)
		return
	}
	fail := func(reason string, pr *problem.Problem) {
		in.refuse(route, reason)
		writeProblem(w, r, pr)
	}
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		fail(metrics.RefusedMediaType, problem.New("unsupported-media-type", "Content-Type must be application/json"))
		return
	}
	enc := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding")))
	if enc != "" && enc != "identity" && enc != "gzip" {
		fail(metrics.RefusedEncoding, problem.Newf("unsupported-encoding", "Content-Encoding %q is not supported; send gzip or no encoding", enc))
		return
	}
	if r.ContentLength > MaxIngestWireBytes {
		fail(metrics.RefusedTooLarge, problem.New("payload-too-large", "the body is over 5 MiB; send fewer events per batch"))
		return
	}
	received := time.Now().UTC()
	wire := bufPool.Get().(*bytes.Buffer)
	defer putBuf(wire)
	if n, err := wire.ReadFrom(io.LimitReader(r.Body, MaxIngestWireBytes+1)); err != nil {
		fail(metrics.RefusedMalformed, problem.New("malformed-body", "the body could not be read"))
		return
	} else if n > MaxIngestWireBytes {
		fail(metrics.RefusedTooLarge, problem.New("payload-too-large", "the body is over 5 MiB; send fewer events per batch"))
		return
	}
	body := wire.Bytes()
	if enc == "gzip" {
		plain := bufPool.Get().(*bytes.Buffer)
		defer putBuf(plain)
		if reason, pr := gunzip(plain, body); pr != nil {
			fail(reason, pr)
			return
		}
		body = plain.Bytes()
	}
	events, err := ingest.Decode(body, received)
	if err != nil {
		var pr *problem.Problem
		reason := metrics.RefusedInvalid
		if errors.As(err, &pr) && pr.Status == http.StatusBadRequest {
			reason = metrics.RefusedMalformed
		}
		in.refuse(route, reason)
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

var gzPool sync.Pool

// gunzip decompresses src into dst, stopping at the decoded limit.
func gunzip(dst *bytes.Buffer, src []byte) (string, *problem.Problem) {
	bad := problem.New("malformed-body", "the body is not valid gzip")
	zr, _ := gzPool.Get().(*gzip.Reader)
	var err error
	if zr == nil {
		zr, err = gzip.NewReader(bytes.NewReader(src))
	} else {
		err = zr.Reset(bytes.NewReader(src))
	}
	if err != nil {
		return metrics.RefusedMalformed, bad
	}
	defer gzPool.Put(zr)
	n, err := dst.ReadFrom(io.LimitReader(zr, MaxIngestDecodedBytes+1))
	if n > MaxIngestDecodedBytes {
		return metrics.RefusedTooLarge, problem.New("payload-too-large", "the body is over 20 MiB decompressed; send fewer events per batch")
	}
	if err != nil {
		return metrics.RefusedMalformed, bad
	}
	return "", nil
}

func putBuf(b *bytes.Buffer) {
	if b.Cap() <= 2*MaxIngestDecodedBytes {
		b.Reset()
		bufPool.Put(b)
	}
}

// answerError writes err as a problem through the one error mapping.
func (s *Server) answerError(w http.ResponseWriter, r *http.Request, err error) {
	writeProblem(w, r, toProblem(r.Context(), http.StatusInternalServerError, "", []error{err}))
}
