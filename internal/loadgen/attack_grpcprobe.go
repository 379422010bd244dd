package loadgen

import (
	"context"
	"time"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// probesGRPC reports whether the watch of attack c also makes one-record
// OTLP/gRPC exports with the key: for the attacks on the gRPC port.
func probesGRPC(c *AttackConfig) bool {
	return c.Key != "" && (c.Attack == AttackGRPCBomb || c.Attack == AttackGRPCIdle || c.Attack == AttackGRPCStall || c.Attack == AttackGRPCPreface)
}

// grpcProbeMessage is a one-record ExportLogsServiceRequest.
func grpcProbeMessage() []byte {
	logs := plog.NewLogs()
	rec := logs.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
	rec.SetSeverityText("ERROR")
	rec.Body().SetStr("loadgen probe")
	b, err := plogotlp.NewExportRequestFromLogs(logs).MarshalProto()
	if err != nil {
		panic(err) // a one-record request always marshals
	}
	return b
}

// probeGRPC makes one OTLP/gRPC export of msg with the key over a
// connection of its own, as a new exporter would, and records its answer
// (the gRPC code).
func (w *watch) probeGRPC(ctx context.Context, msg []byte) {
	p := func() probe {
		cc, err := grpc.NewClient(w.c.GRPCAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			return probe{answer: "network error"}
		}
		defer cc.Close()
		ctx, cancel := context.WithTimeout(metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+w.c.Key), probeTimeout)
		defer cancel()
		t0 := time.Now()
		var reply []byte
		err = cc.Invoke(ctx, exportMethod, &msg, &reply, grpc.ForceCodecV2(rawCodec{}))
		return probe{latency: time.Since(t0), answer: status.Code(err).String(), ok: err == nil}
	}()
	w.mu.Lock()
	w.grpc = append(w.grpc, p)
	w.mu.Unlock()
}
