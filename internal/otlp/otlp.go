// Package otlp receives OpenTelemetry logs and maps them onto ingestion:
// POST /v1/logs (OTLP/HTTP, protobuf or JSON, optional gzip) and the OTLP/gRPC
// LogsService/Export. Both take a project API key as a bearer token, go
// through the same admission control and durable commit as POST /v1/ingest
// (package intake), and answer as the OTLP specification prescribes rather
// than with RFC 9457 problems (CONTRACT 6): partial_success for rejected
// records, google.rpc.Status bodies for failures.
package otlp

import (
	"context"
	"log/slog"
	"time"

	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"google.golang.org/grpc/codes"

	"github.com/errata-dev/errata/internal/httpserver"
	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/intake"
	"github.com/errata-dev/errata/internal/metrics"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/ratelimit"
	"github.com/errata-dev/errata/internal/store"
)

// Route labels of the ingestion metrics.
const (
	RouteHTTP = metrics.RouteOTLPHTTP
	RouteGRPC = metrics.RouteOTLPGRPC
)

// failure is a refusal in transport-neutral terms: the HTTP status, the
// gRPC code, the message of the google.rpc.Status and, for retryable ones,
// how long to wait.
type failure struct {
	status     int
	code       codes.Code
	message    string
	retryAfter time.Duration
}

// decodeFactor is what the budget reserves for decoding an OTLP request,
// in multiples of its decompressed bytes, besides the compressed copy of
// the queue payload (decodeReserve): pdata's records, the mapped events and
// the queue payload take several times the protobuf's size.
const decodeFactor = 3

// decodeReserve is what the budget reserves for decoding n decompressed
// bytes of an OTLP request.
func decodeReserve(n int) int64 { return int64(decodeFactor*n + ingest.CompressBound(n)) }

// classify turns an error of the intake into a failure through the one
// mapping from errors to problems (problem.From). Internal errors are
// logged, never shown.
func classify(ctx context.Context, log *slog.Logger, err error) failure {
	pr := problem.From(err)
	if pr.IsInternal() {
		log.ErrorContext(ctx, "OTLP export failed", "request_id", httpserver.RequestID(ctx), "err", err)
		return failure{status: 500, code: codes.Internal, message: "an internal error occurred"}
	}
	f := failure{status: pr.Status, message: pr.Detail}
	switch pr.Status {
	case 401:
		f.code = codes.Unauthenticated
	case 429:
		f.code = codes.ResourceExhausted
	case 503:
		f.code = codes.Unavailable
	case 400, 413, 415, 422:
		f.code = codes.InvalidArgument
	default:
		f.code = codes.Internal
	}
	if ra := pr.GetHeaders().Get("Retry-After"); ra != "" {
		if d, perr := time.ParseDuration(ra + "s"); perr == nil {
			f.retryAfter = d
		}
	}
	return f
}

// export maps a decoded request and commits the accepted events: the part
// both transports share once a request is admitted and decoded. The
// result, when not nil, is the rate limit after the tokens its records
// took beyond the admission's.
func export(ctx context.Context, in *intake.Intake, route string, p store.Project, req plogotlp.ExportRequest, received time.Time) (plogotlp.ExportResponse, *ratelimit.Result, error) {
	res := Map(req.Logs(), received, in.Decoder.Redact)
	resp := plogotlp.NewExportResponse()
	if res.Rejected > 0 {
		ps := resp.PartialSuccess()
		ps.SetRejectedLogRecords(res.Rejected)
		ps.SetErrorMessage(res.Reason)
		if len(res.Events) == 0 {
			in.Refuse(route, metrics.RefusedInvalid)
		}
	}
	var rl *ratelimit.Result
	if len(res.Events) > 0 {
		var err error
		if rl, err = in.TakeMoreEvents(route, p, len(res.Events)); err != nil {
			return resp, rl, err
		}
		if err := in.Commit(ctx, route, p, received, res.Events); err != nil {
			return resp, rl, err
		}
	}
	return resp, rl, nil
}

// marshalResponse encodes an export's answer. A full success leaves
// partial_success unset, as the OTLP specification requires: an empty
// message ({} in JSON, no bytes in protobuf), where pdata would write the
// field empty.
func marshalResponse(resp plogotlp.ExportResponse, isJSON bool) ([]byte, error) {
	if ps := resp.PartialSuccess(); ps.RejectedLogRecords() == 0 && ps.ErrorMessage() == "" {
		if isJSON {
			return []byte("{}"), nil
		}
		return []byte{}, nil
	}
	if isJSON {
		return resp.MarshalJSON()
	}
	return resp.MarshalProto()
}
