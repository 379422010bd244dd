package loadgen

import (
	"context"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// AttackGRPCIdle keeps Concurrency OTLP/gRPC Export calls open with Key,
// each sending its headers and never its message, and opens another as
// the server ends one: what once held Errata's memory budget until the
// read timeout (an Export reserved room for the largest message before it
// arrived), so that the gRPC exports of Key's organization waited and got
// UNAVAILABLE. Each call's answer is the gRPC code the server ended it
// with; a server that holds nothing for them ends them at its read
// timeout only.
const AttackGRPCIdle = "grpc-idle"

const defaultGRPCIdleCalls = 8

// grpcIdle is the grpc-idle attack: calls spread over connections of at
// most a few calls each, as separate exporters would open them.
type grpcIdle struct {
	c     *AttackConfig
	conns []*grpc.ClientConn
}

// idleCallsPerConn is how many of the attack's calls share a connection.
const idleCallsPerConn = 4

func (a *grpcIdle) run(ctx, attack context.Context) (attackResult, error) {
	conns, err := dialGRPC(a.c.GRPCAddr, (a.c.Concurrency+idleCallsPerConn-1)/idleCallsPerConn)
	if err != nil {
		return attackResult{}, err
	}
	a.conns = conns
	defer a.close()
	var o outcomes
	var wg sync.WaitGroup
	for w := range a.c.Concurrency {
		wg.Go(func() {
			for attack.Err() == nil && ctx.Err() == nil {
				t0 := time.Now()
				if answer, ok := a.call(attack, w); ok {
					o.add(answer, time.Since(t0))
				}
			}
		})
	}
	wg.Wait()
	return attackResult{requests: o.requests()}, nil
}

// call opens one idle Export call on worker w's connection and waits for
// the server to end it. It reports false when the attack ended first (the
// call was cancelled: not an answer of the server).
func (a *grpcIdle) call(attack context.Context, w int) (string, bool) {
	// The call has no deadline of its own (gRPC would send the attack's
	// as a grpc-timeout, and the server would end the call for it); it is
	// cancelled when the attack ends.
	ctx, cancel := context.WithCancel(metadata.AppendToOutgoingContext(context.WithoutCancel(attack), "authorization", "Bearer "+a.c.Key))
	defer cancel()
	defer context.AfterFunc(attack, cancel)()
	stream, err := a.conns[w/idleCallsPerConn].NewStream(ctx, &grpc.StreamDesc{StreamName: "Export", ClientStreams: true},
		exportMethod, grpc.ForceCodecV2(rawCodec{}))
	if err == nil {
		var reply []byte
		err = stream.RecvMsg(&reply)
	}
	if ctx.Err() != nil {
		return "", false
	}
	return status.Code(err).String(), true
}

func (a *grpcIdle) close() { closeGRPC(a.conns) }

// dialGRPC makes n client connections to addr (they connect on first use).
func dialGRPC(addr string, n int) ([]*grpc.ClientConn, error) {
	conns := make([]*grpc.ClientConn, 0, n)
	for range n {
		cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			closeGRPC(conns)
			return nil, err
		}
		conns = append(conns, cc)
	}
	return conns, nil
}

func closeGRPC(conns []*grpc.ClientConn) {
	for _, cc := range conns {
		_ = cc.Close()
	}
}
