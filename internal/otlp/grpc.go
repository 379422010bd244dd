package otlp

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"strconv"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	_ "google.golang.org/grpc/encoding/gzip" // clients may compress with gzip
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/errata-dev/errata/internal/httpserver"
	"github.com/errata-dev/errata/internal/intake"
	"github.com/errata-dev/errata/internal/metrics"
	"github.com/errata-dev/errata/internal/ratelimit"
	"github.com/errata-dev/errata/internal/store"
)

// MaxGRPCMessageBytes caps a gRPC request, compressed or not (gRPC checks
// the decompressed size too, so a gzip bomb stops there). Past it gRPC
// itself answers RESOURCE_EXHAUSTED without RetryInfo, which OTLP clients
// do not retry.
const MaxGRPCMessageBytes = intake.MaxDecodedBytes

// grpcReceiveBytes is what reading the largest message holds at once:
// gRPC decompresses it into its own pooled chunks, and the codec copies
// those into one contiguous slice before they are given back (heap
// profiles of gzip bombs with a valid key show both, each as large as the
// message).
const grpcReceiveBytes = 2 * MaxGRPCMessageBytes

// Flow-control windows: what a client may send before the server reads it.
// Fixed (gRPC's dynamic window would grow to 16 MiB a connection), so that
// streams waiting for the memory budget hold at most this much each.
const (
	grpcStreamWindow = 1 << 20
	grpcConnWindow   = 4 << 20
	// grpcMaxStreams caps concurrent calls per connection.
	grpcMaxStreams = 32
)

// GRPCOptions tune the OTLP/gRPC server.
type GRPCOptions struct {
	// ReadTimeout closes connections that send nothing for this long
	// (ERRATA_READ_TIMEOUT) and fails a call whose message has not arrived
	// in it.
	ReadTimeout time.Duration
}

// NewGRPCServer returns a gRPC server offering the OTLP LogsService
// through in. Export is served as a stream handler, so that it runs before
// gRPC reads the request message: the API key from the metadata is checked
// first (an unauthenticated call never has its message decompressed or
// decoded), then the rate limit and back-pressure; once the message's
// prefix has arrived (the gate, gate.go, sees it) room in the memory
// budget is reserved, and only then is the message read (its nesting
// checked before pdata decodes it, see nesting.go). The caller serves it
// on a listener (Serve) and stops it (GracefulStop) before the intake's
// committer.
func NewGRPCServer(in *intake.Intake, log *slog.Logger, opts GRPCOptions) *GRPCServer {
	if opts.ReadTimeout <= 0 {
		opts.ReadTimeout = time.Minute
	}
	g := newGate()
	s := grpc.NewServer(
		grpc.InTapHandle(g.tap),
		grpc.MaxRecvMsgSize(MaxGRPCMessageBytes),
		grpc.ForceServerCodecV2(newGuardedCodec()),
		grpc.ConnectionTimeout(opts.ReadTimeout),
		grpc.KeepaliveParams(keepalive.ServerParameters{MaxConnectionIdle: opts.ReadTimeout}),
		grpc.InitialWindowSize(grpcStreamWindow),
		grpc.InitialConnWindowSize(grpcConnWindow),
		grpc.MaxConcurrentStreams(grpcMaxStreams),
	)
	logs := &grpcLogs{intake: in, log: log, readTimeout: opts.ReadTimeout}
	s.RegisterService(&logsService, logs)
	return &GRPCServer{Server: s, gate: g, logs: logs}
}

// GRPCServer is the OTLP/gRPC server: a grpc.Server whose connections go
// through the gate (gate.go), which lets an Export see its message arrive.
type GRPCServer struct {
	*grpc.Server
	gate *gate
	logs *grpcLogs
}

// AwaitingMessage is how many admitted Export calls wait, holding no
// memory, for their message to begin to arrive
// (errata_ingest_grpc_calls_awaiting_message in /metrics).
func (s *GRPCServer) AwaitingMessage() int64 { return s.logs.awaiting.Load() }

// Serve serves OTLP/gRPC on ln until the server stops.
func (s *GRPCServer) Serve(ln net.Listener) error { return s.Server.Serve(s.gate.listener(ln)) }

// logsService is opentelemetry.proto.collector.logs.v1.LogsService with
// Export as a stream handler: on the wire a unary call and a stream of one
// message each way are the same, and a stream handler reads the request
// itself, after admission.
var logsService = grpc.ServiceDesc{
	ServiceName: "opentelemetry.proto.collector.logs.v1.LogsService",
	HandlerType: (*any)(nil),
	Streams: []grpc.StreamDesc{{
		StreamName: "Export",
		Handler:    func(srv any, stream grpc.ServerStream) error { return srv.(*grpcLogs).export(stream) },
	}},
	Metadata: "opentelemetry/proto/collector/logs/v1/logs_service.proto",
}

// grpcLogs serves LogsService/Export.
type grpcLogs struct {
	intake      *intake.Intake
	log         *slog.Logger
	readTimeout time.Duration
	awaiting    atomic.Int64 // calls in awaitPrefix's wait
}

// export admits the call with the bearer token of its authorization
// metadata (401 → UNAUTHENTICATED, 429 → RESOURCE_EXHAUSTED and 503 →
// UNAVAILABLE, both with a RetryInfo), waits for its message to begin to
// arrive, reserves room in the memory budget to read it (what its prefix
// declares, or the largest message's when it is compressed), reads it,
// keeps what decoding it needs (refusing the call with UNAVAILABLE when
// the budget has no room for either), then maps and commits it as POST
// /v1/logs does. The RateLimit-* values travel as response headers.
func (g *grpcLogs) export(stream grpc.ServerStream) error {
	ctx := store.AsRequest(stream.Context()) // its database work is bounded (ERRATA_DB_TIMEOUT)
	in := g.intake
	received := in.Received()
	p, rl, err := in.Admit(ctx, RouteGRPC, bearerMD(ctx))
	if rl != nil {
		_ = stream.SetHeader(rateLimitMD(rl))
	}
	if err != nil {
		f := classify(ctx, g.log, err)
		if f.retryAfter == 0 && rl != nil && !rl.Allowed {
			f.retryAfter = max(1, (rl.RetryAfter+time.Second-1)/time.Second) * time.Second // as Retry-After
		}
		return grpcError(f)
	}
	// Nothing is reserved until the message begins to arrive: its 5-byte
	// prefix says how long it is on the wire. A compressed message's
	// inflated size is unknown until it is read: reserve what the largest
	// one holds while gRPC reads it (see grpcReceiveBytes).
	deadline := time.Now().Add(g.readTimeout)
	reading, err := g.awaitPrefix(ctx, deadline)
	if err != nil {
		return err
	}
	res := in.Memory.ReserveFor(p.OrgID)
	defer res.Release()
	if err := res.Grow(ctx, reading); err != nil {
		return g.overloaded()
	}
	// While the message has not arrived, a request that waits for room
	// may take the reservation back (intake/preempt.go): calls that send a
	// prefix and stall cannot lock the budget.
	preempted, settle := res.Preemptible(grpcPreemptGrace)
	var msg rawMessage
	err = g.receive(stream, &msg, deadline, preempted)
	settle()
	if err != nil {
		return err
	}
	if msg.err != nil {
		in.Refuse(RouteGRPC, metrics.RefusedMalformed)
		return status.Error(codes.InvalidArgument, "the message is not a valid ExportLogsServiceRequest: "+msg.err.Error())
	}
	// The message's size is known now: keep what decoding it needs, and
	// decode nothing that the budget has no room for.
	need := int64(len(msg.b)) + decodeReserve(len(msg.b))
	if need < res.Held() {
		res.Shrink(res.Held() - need)
	} else if err := res.Grow(ctx, need-res.Held()); err != nil {
		return g.overloaded()
	}
	req := plogotlp.NewExportRequest()
	if err := req.UnmarshalProto(msg.b); err != nil {
		in.Refuse(RouteGRPC, metrics.RefusedMalformed)
		return status.Error(codes.InvalidArgument, "the message is not a valid ExportLogsServiceRequest: "+err.Error())
	}
	msg.b = nil
	resp, _, err := export(ctx, in, RouteGRPC, p, req, received) // the headers went with the admission
	if err != nil {
		return grpcError(classify(ctx, g.log, err))
	}
	out, err := marshalResponse(resp, false)
	if err != nil {
		return grpcError(classify(ctx, g.log, err))
	}
	return stream.SendMsg(&rawMessage{b: out})
}

// awaitPrefix waits, holding no memory, until the call's message has
// begun to arrive (the gate saw its 5-byte prefix) or its request ended,
// and returns what reading the message will hold: twice its length when
// it is not compressed (gRPC's buffers, then the codec's copy), else
// grpcReceiveBytes. A call the gate did not link is charged
// grpcReceiveBytes at once. Past deadline the call ends
// DEADLINE_EXCEEDED, which OTLP clients retry.
func (g *grpcLogs) awaitPrefix(ctx context.Context, deadline time.Time) (int64, error) {
	a := arrivalOf(ctx)
	if a == nil {
		return grpcReceiveBytes, nil
	}
	g.awaiting.Add(1)
	defer g.awaiting.Add(-1)
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-a.prefixed:
	case <-ctx.Done():
		return 0, status.FromContextError(ctx.Err()).Err()
	case <-t.C:
		g.intake.Refuse(RouteGRPC, metrics.RefusedMalformed)
		return 0, status.Errorf(codes.DeadlineExceeded, "the request message did not arrive within %s", g.readTimeout)
	}
	compressed, length, ok := a.header()
	switch {
	case !ok: // the request ended without a message: RecvMsg says so
		return 0, nil
	case compressed:
		return grpcReceiveBytes, nil
	}
	return min(2*length, grpcReceiveBytes), nil
}

// grpcPreemptGrace is how long an export's reservation is kept for a
// message that has not arrived while another request waits for room:
// half the budget's one-second wait, so that a request behind calls that
// sent a prefix and stalled is served within its wait. A message that
// takes longer to arrive keeps its room until the read timeout when
// nobody waits.
const grpcPreemptGrace = 500 * time.Millisecond

// receive reads the call's one message, giving up after the read timeout
// (DEADLINE_EXCEEDED, which OTLP clients retry): a client that opens a
// call and stalls holds its slot no longer than that (deadline, shared
// with the wait for the message's prefix), and its room in the memory
// budget no longer than another request can wait for it (preempted is
// closed: UNAVAILABLE with a RetryInfo).
func (g *grpcLogs) receive(stream grpc.ServerStream, msg *rawMessage, deadline time.Time, preempted <-chan struct{}) error {
	done := make(chan error, 1)
	go func() { done <- stream.RecvMsg(msg) }()
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case err := <-done:
		return g.received(err)
	case <-t.C:
		g.intake.Refuse(RouteGRPC, metrics.RefusedMalformed)
		return status.Errorf(codes.DeadlineExceeded, "the request message did not arrive within %s", g.readTimeout)
	case <-preempted:
		select {
		case err := <-done: // it arrived as its room was taken: keep it
			return g.received(err)
		default:
		}
		g.intake.Refuse(RouteGRPC, metrics.RefusedMemory)
		return grpcError(failure{code: codes.Unavailable, retryAfter: 5 * time.Second,
			message: fmt.Sprintf("the request message had not arrived %s after memory was reserved for it, and other requests were waiting for that memory; retry after the RetryInfo delay", grpcPreemptGrace)})
	}
}

// received is the outcome of RecvMsg: nil, or the status to end the call
// with, counted as a refusal.
func (g *grpcLogs) received(err error) error {
	if err == nil {
		return nil
	}
	if st, ok := status.FromError(err); ok && st.Code() != codes.Unknown {
		if st.Code() == codes.InvalidArgument || st.Code() == codes.Internal {
			g.intake.Refuse(RouteGRPC, metrics.RefusedMalformed)
		} else if st.Code() == codes.ResourceExhausted {
			g.intake.Refuse(RouteGRPC, metrics.RefusedTooLarge)
		}
		return err
	}
	g.intake.Refuse(RouteGRPC, metrics.RefusedMalformed)
	return status.Error(codes.InvalidArgument, err.Error())
}

// overloaded refuses a call the memory budget has no room for:
// UNAVAILABLE with a RetryInfo, which OTLP clients retry.
func (g *grpcLogs) overloaded() error {
	g.intake.Refuse(RouteGRPC, metrics.RefusedMemory)
	return grpcError(failure{code: codes.Unavailable, retryAfter: 30 * time.Second,
		message: "the server is decoding as many requests as its memory budget allows; retry after the RetryInfo delay"})
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
		if tok := httpserver.BearerToken(h); tok != "" {
			return tok
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
