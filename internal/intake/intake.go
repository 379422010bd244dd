// Package intake is the one admission-and-commit path of every ingestion
// transport: the REST route POST /v1/ingest (package httpapi), OTLP/HTTP
// and OTLP/gRPC (package otlp) and the Sentry endpoints (package
// sentry/sentryhttp) are siblings over it. It checks the project API key, the project's rate
// limit and back-pressure, reads request bodies under hard size limits and
// a shared memory budget, and makes accepted events durable through the
// queue's group commit before any transport answers success.
package intake

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/errata-dev/errata/internal/auth"
	"github.com/errata-dev/errata/internal/clientip"
	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/metrics"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/queue"
	"github.com/errata-dev/errata/internal/ratelimit"
	"github.com/errata-dev/errata/internal/store"
)

// Ingestion body limits (CONTRACT 3).
const (
	MaxWireBytes    = 5 << 20
	MaxDecodedBytes = 20 << 20
)

// Intake is what the ingestion transports share: the credential check,
// admission control, the memory budget of bodies being decoded, and the
// durable queue.
type Intake struct {
	Auth *auth.Service
	// Limiter is the per-project rate limit of this transport.
	Limiter *ratelimit.Limiter
	// Events, when not nil, is the per-project bucket of POST /v1/ingest
	// (ERRATA_INGEST_RATE_LIMIT) that a transport whose own Limiter counts
	// requests also takes events from (TakeEvents): the Sentry routes.
	Events *ratelimit.Limiter
	// Callers is the per-address limiter of the management API: a request
	// refused before its project is known answers with its bucket.
	Callers   *ratelimit.Limiter
	ClientIP  *clientip.Resolver
	Monitor   *queue.Monitor
	Committer *queue.Committer
	Metrics   *metrics.Metrics
	// Memory bounds the bytes of request bodies held for decoding at one
	// moment (ERRATA_INGEST_MEMORY).
	Memory *Budget
	// Decoder decodes POST /v1/ingest bodies with the configured redaction.
	Decoder *ingest.Decoder
	// Now is the clock of receipt times (default time.Now).
	Now func() time.Time
}

// Received is the time of receipt of a request arriving now, in UTC.
func (in *Intake) Received() time.Time {
	if in.Now == nil {
		return time.Now().UTC()
	}
	return in.Now().UTC()
}

// WithLimiter returns a copy of in that rate-limits with l instead: the
// Sentry endpoints have a per-project limit of their own.
func (in *Intake) WithLimiter(l *ratelimit.Limiter) *Intake {
	c := *in
	c.Limiter = l
	return &c
}

// Admit authenticates a project API key and applies the project's rate limit
// and the back-pressure thresholds, in the contract's order (401, then 429,
// then 503). The rate-limit result is returned for the RateLimit-* headers
// even when err is not nil; it is nil when the project is not known.
func (in *Intake) Admit(ctx context.Context, route, credential string) (store.Project, *ratelimit.Result, error) {
	return in.admit(ctx, route, credential, "", 0)
}

// ErrOriginRefused refuses a browser request (one with an Origin header)
// whose key does not allow its origin (the key's allowed_origins, CONTRACT 8).
// Only the Sentry endpoints check origins, and answer it 403 themselves.
var ErrOriginRefused = errors.New("this API key does not accept requests from the Origin of this request: add it to the key's allowed_origins")

// ErrOtherProject refuses a valid key of another project than the one a
// request's path names (the Sentry endpoints). It is refused before the
// key's origins, rate limit and load are looked at, so that the answer
// tells nothing of the key's project.
var ErrOtherProject = errors.New("the API key is not one of the project in the path")

// admit is Admit for a request a browser sent from origin ("" for none):
// a valid key that does not allow origin is ErrOriginRefused; with number
// not 0, a valid key of a project whose number is another is
// ErrOtherProject, with no project or limiter state.
func (in *Intake) admit(ctx context.Context, route, credential, origin string, number int64) (store.Project, *ratelimit.Result, error) {
	if credential == "" {
		in.Refuse(route, metrics.RefusedUnauthorized)
		return store.Project{}, nil, auth.Unauthorized("ingestion needs a project API key: Authorization: Bearer svc_live_…")
	}
	if !auth.IsAPIKey(credential) {
		in.Refuse(route, metrics.RefusedUnauthorized)
		return store.Project{}, nil, auth.Unauthorized("ingestion takes a project API key (svc_live_…); the credential sent is not one (session and personal tokens are for the management API)")
	}
	k, p, err := in.Auth.AuthenticateKey(ctx, credential)
	if err != nil {
		if store.IsUnavailable(err) {
			in.Refuse(route, metrics.RefusedUnavailable)
		} else {
			in.Refuse(route, metrics.RefusedUnauthorized)
		}
		return store.Project{}, nil, err
	}
	if number != 0 && p.Number != number {
		in.Refuse(route, metrics.RefusedUnauthorized)
		return store.Project{}, nil, ErrOtherProject
	}
	if !auth.OriginAllowed(k.AllowedOrigins, origin) {
		in.Refuse(route, metrics.RefusedUnauthorized)
		return store.Project{}, nil, ErrOriginRefused
	}
	res := in.Limiter.Allow(p.ID)
	if !res.Allowed {
		in.Refuse(route, metrics.RefusedRateLimited)
		return p, &res, problem.New("rate-limited", "the project's ingest rate limit was hit; wait Retry-After seconds and resend")
	}
	if over, why := in.Monitor.Overloaded(p.ID); over {
		in.Refuse(route, why)
		return p, &res, overloaded(why)
	}
	return p, &res, nil
}

// EventsPerToken is how many events of one request one token of the
// /v1/ingest bucket pays for: a /v1/ingest batch holds at most 1,000.
const EventsPerToken = ingest.MaxEvents

// TakeEvents takes from project p's /v1/ingest bucket one token per
// EventsPerToken events (rounded up), so that a transport whose own limit
// counts requests lets a project send no more events than /v1/ingest does
// (CONTRACT 8). Without an Events bucket, or without events, it takes
// nothing. A refusal is counted and answers 429 rate-limited, with the
// bucket's state for the answer's headers.
func (in *Intake) TakeEvents(route string, p store.Project, events int) (ratelimit.Result, error) {
	if in.Events == nil || events == 0 {
		return ratelimit.Result{Allowed: true}, nil
	}
	res := in.Events.AllowN(p.ID, (events+EventsPerToken-1)/EventsPerToken)
	if !res.Allowed {
		in.Refuse(route, metrics.RefusedRateLimited)
		return res, problem.New("rate-limited", "the project's event rate limit (ERRATA_INGEST_RATE_LIMIT, shared with /v1/ingest) was hit; wait Retry-After seconds and resend")
	}
	return res, nil
}

// TakeMoreEvents charges a request of events that its admission paid one
// token of in.Limiter for (OTLP: up to 64,000 records a request) one more
// token per further EventsPerToken events, as a /v1/ingest batch of that
// many would have cost: a project sends no more events on one route than on
// another (CONTRACT 8). A request costs at most the bucket's burst in all,
// so that a retry of a large one can pass once the bucket is full. The
// refusal is 429 with Retry-After; the result (nil when nothing more was
// taken) is the bucket after it, for the RateLimit-* headers.
func (in *Intake) TakeMoreEvents(route string, p store.Project, events int) (*ratelimit.Result, error) {
	extra := (events - 1) / EventsPerToken
	if extra <= 0 {
		return nil, nil
	}
	extra = min(extra, in.Limiter.Peek(p.ID).Limit-1) // the admission took one
	if extra <= 0 {
		return nil, nil
	}
	res := in.Limiter.AllowN(p.ID, extra)
	if !res.Allowed {
		in.Refuse(route, metrics.RefusedRateLimited)
		return &res, problem.Newf("rate-limited", "%d records take %d tokens of the project's event rate limit (ERRATA_INGEST_RATE_LIMIT, one per %d records, at most its burst); wait Retry-After seconds and resend",
			events, extra+1, EventsPerToken).RetryAfter(res.RetryAfter)
	}
	return &res, nil
}

// overloaded is the 503 of back-pressure, why being a metrics reason.
func overloaded(why string) *problem.Problem {
	detail := "the unprocessed backlog is over its limit; resend after Retry-After seconds"
	switch why {
	case metrics.RefusedProjectBacklog:
		detail = "this project's unprocessed backlog is over its limit; resend after Retry-After seconds"
	case metrics.RefusedDisk:
		detail = "the server is low on disk space; resend after Retry-After seconds"
	case metrics.RefusedMemory:
		detail = "the server is decoding as many request bodies as its memory budget allows; resend after Retry-After seconds"
	}
	return problem.New("overloaded", detail).RetryAfter(30 * time.Second)
}

// payloadPool recycles queue payload buffers: once Enqueue returns, the
// database has its own copy (or never got the buffer).
var payloadPool sync.Pool

// maxPooledPayload keeps the occasional huge payload out of the pool.
const maxPooledPayload = 8 << 20

func getPayloadBuf() *[]byte {
	if buf, _ := payloadPool.Get().(*[]byte); buf != nil {
		return buf
	}
	return new([]byte)
}

// putPayloadBuf gives b, the buffer last held in buf, back to the pool.
func putPayloadBuf(buf *[]byte, b []byte) {
	if cap(b) <= maxPooledPayload {
		*buf = b
		payloadPool.Put(buf)
	}
}

// Commit makes the events durable as one queued batch per 1,000 events,
// all in one commit, and counts them. Each batch's payload is compressed
// (ingest.CompressPayload) here, in the request's goroutine, so that the
// one commit writer only writes. Whatever the transport, U+0000 in
// any string becomes U+FFFD first, and a timestamp more than five minutes
// ahead of received becomes received, the sent value kept in the attribute
// original_timestamp (CONTRACT 7).
func (in *Intake) Commit(ctx context.Context, route string, p store.Project, received time.Time, events []ingest.Event) error {
	ingest.ScrubNUL(events)
	ingest.ClampFuture(events, received)
	batches := make([]store.Batch, 0, (len(events)+ingest.MaxEvents-1)/ingest.MaxEvents)
	bufs := make([]*[]byte, 0, cap(batches))
	plain := getPayloadBuf()
	defer func() {
		putPayloadBuf(plain, *plain)
		for i, buf := range bufs {
			putPayloadBuf(buf, batches[i].Payload)
		}
	}()
	for rest := events; len(rest) > 0; {
		n := fillPayload(plain, rest, ingest.MaxPayloadBytes)
		buf := getPayloadBuf()
		bufs = append(bufs, buf)
		batches = append(batches, store.Batch{ProjectID: p.ID, ReceivedAt: received, EventCount: n, Payload: ingest.CompressPayload((*buf)[:0], *plain)})
		rest = rest[n:]
	}
	if err := in.Committer.Enqueue(ctx, batches...); err != nil {
		switch {
		case errors.Is(err, queue.ErrClosed):
			in.Refuse(route, metrics.RefusedShutdown)
			return problem.New("overloaded", "the server is shutting down; resend to another instance or shortly").RetryAfter(5 * time.Second)
		case errors.Is(err, queue.ErrDiskLow):
			in.Refuse(route, metrics.RefusedDisk)
			return overloaded(metrics.RefusedDisk)
		case store.IsUnavailable(err):
			in.Refuse(route, metrics.RefusedUnavailable)
		case errors.Is(err, store.ErrNotFound):
			// The project was deleted after its key was checked: the key
			// no longer names one, as the next request would be told.
			in.Refuse(route, metrics.RefusedUnauthorized)
			return problem.New("unauthorized", "the API key's project was deleted")
		default:
			in.Refuse(route, metrics.RefusedInternal)
		}
		return err
	}
	for _, b := range batches {
		in.Monitor.Added(p.ID, b.EventCount, len(b.Payload))
	}
	in.Metrics.AcceptedBatches.WithLabelValues(route).Add(float64(len(batches)))
	in.Metrics.AcceptedEvents.WithLabelValues(route).Add(float64(len(events)))
	return nil
}

// fillPayload encodes into *plain the payload of the most events of rest, up to
// ingest.MaxEvents, that fits in max bytes (at least one event), and
// returns how many it took.
func fillPayload(plain *[]byte, rest []ingest.Event, max int) int {
	n := min(len(rest), ingest.MaxEvents)
	for {
		*plain = ingest.AppendPayload((*plain)[:0], rest[:n])
		if len(*plain) <= max || n == 1 {
			return n
		}
		n = (n + 1) / 2
	}
}

// Refuse counts a refused ingestion request by route and reason.
func (in *Intake) Refuse(route, reason string) {
	in.Metrics.Refused.WithLabelValues(route, reason).Inc()
}
