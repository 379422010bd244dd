package otlp

import (
	"context"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	_ "google.golang.org/grpc/encoding/gzip" // clients may compress with gzip
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/errata-dev/errata/internal/httpapi"
	"github.com/errata-dev/errata/internal/ratelimit"
)

// MaxGRPCMessageBytes caps a gRPC request, compressed or not (gRPC checks
// the decompressed size too, so a gzip bomb stops there). Past it gRPC
// itself answers RESOURCE_EXHAUSTED without RetryInfo, which OTLP clients
// do not retry.
const MaxGRPCMessageBytes = httpapi.MaxIngestDecodedBytes

// NewGRPCServer returns a gRPC server offering the OTLP LogsService through
// intake, checking the nesting of requests before pdata decodes them (see
// nesting.go; a request nested too deeply fails as INTERNAL, gRPC's code for
// undecodable requests). The caller serves it on a listener and stops it (GracefulStop)
// before the intake's committer.
func NewGRPCServer(intake *httpapi.Intake, log *slog.Logger) *grpc.Server {
	s := grpc.NewServer(grpc.MaxRecvMsgSize(MaxGRPCMessageBytes), grpc.ForceServerCodecV2(newGuardedCodec()))
	plogotlp.RegisterGRPCServer(s, &grpcLogs{intake: intake, log: log})
	return s
}

// grpcLogs is opentelemetry.proto.collector.logs.v1.LogsService.
type grpcLogs struct {
	plogotlp.UnimplementedGRPCServer
	intake *httpapi.Intake
	log    *slog.Logger
}

// Export admits the request with the bearer token of its authorization
// metadata (401 → UNAUTHENTICATED, 429 → RESOURCE_EXHAUSTED and 503 →
// UNAVAILABLE, both with a RetryInfo), then maps and commits it as POST
// /v1/logs does. The RateLimit-* values travel as response headers.
func (g *grpcLogs) Export(ctx context.Context, req plogotlp.ExportRequest) (plogotlp.ExportResponse, error) {
	received := time.Now().UTC()
	p, rl, err := g.intake.Admit(ctx, RouteGRPC, bearerMD(ctx))
	if rl != nil {
		_ = grpc.SetHeader(ctx, rateLimitMD(rl))
	}
	if err != nil {
		f := classify(ctx, g.log, err)
		if f.retryAfter == 0 && rl != nil && !rl.Allowed {
			f.retryAfter = max(1, (rl.RetryAfter+time.Second-1)/time.Second) * time.Second // as Retry-After
		}
		return plogotlp.NewExportResponse(), grpcError(f)
	}
	resp, err := export(ctx, g.intake, RouteGRPC, p, req, received)
	if err != nil {
		return plogotlp.NewExportResponse(), grpcError(classify(ctx, g.log, err))
	}
	return resp, nil
}

// grpcError is f as a gRPC status; retryable ones carry a RetryInfo, which
// OTLP clients need to retry RESOURCE_EXHAUSTED at all.
func grpcError(f failure) error {
	st := status.New(f.code, f.message)
	if f.retryAfter > 0 && (f.code == codes.ResourceExhausted || f.code == codes.Unavailable) {
		if withInfo, err := st.WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(f.retryAfter)}); err == nil {
			st = withInfo
		}
	}
	return st.Err()
}

// bearerMD returns the bearer token of the authorization metadata, or "".
func bearerMD(ctx context.Context) string {
	md, _ := metadata.FromIncomingContext(ctx)
	for _, h := range md.Get("authorization") {
		if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
			return strings.TrimSpace(h[7:])
		}
	}
	return ""
}

// rateLimitMD is the RateLimit-* headers of rl as gRPC metadata.
func rateLimitMD(rl *ratelimit.Result) metadata.MD {
	reset := int((rl.Reset + time.Second - 1) / time.Second)
	return metadata.Pairs(
		"ratelimit-limit", strconv.Itoa(rl.Limit),
		"ratelimit-remaining", strconv.Itoa(rl.Remaining),
		"ratelimit-reset", strconv.Itoa(reset),
	)
}
