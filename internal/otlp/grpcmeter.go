package otlp

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"

	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/peer"
)

// A call's message is charged to the memory budget as its bytes arrive
// (CONTRACT 8), not by the largest message up front: gRPC reads a message
// in one call, so the handler watches what the call's connection delivers
// instead (meteredConn), and grows the call's reservation a step ahead of
// it. An Export stream that opens and sends nothing holds one step.

// meterStep is how far a call's reservation runs ahead of the bytes its
// connection delivered, and how often a connection tells its calls that
// more arrived.
const meterStep = 256 << 10

// meteredCreds are insecure (plaintext) transport credentials that count
// what each connection reads: the handshake wraps the connection in a
// meteredConn and hands it on as the connection's AuthInfo, which every
// call's peer carries (meterOf).
type meteredCreds struct {
	credentials.TransportCredentials
}

// ServerHandshake wraps conn in a meteredConn.
func (c meteredCreds) ServerHandshake(conn net.Conn) (net.Conn, credentials.AuthInfo, error) {
	m := &meteredConn{Conn: conn, next: make(chan struct{})}
	out, info, err := c.TransportCredentials.ServerHandshake(m)
	if err != nil {
		return nil, nil, err
	}
	return out, meteredInfo{AuthInfo: info, conn: m}, nil
}

// Clone keeps the metering.
func (c meteredCreds) Clone() credentials.TransportCredentials {
	return meteredCreds{c.TransportCredentials.Clone()}
}

// meteredInfo is a connection's AuthInfo with its meter.
type meteredInfo struct {
	credentials.AuthInfo
	conn *meteredConn
}

// meteredConn counts the bytes read from a connection and, each time the
// count passes a multiple of meterStep, wakes whoever waits on changed.
type meteredConn struct {
	net.Conn
	read atomic.Int64
	mu   sync.Mutex
	next chan struct{} // closed and replaced at each step
}

func (c *meteredConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		after := c.read.Add(int64(n))
		if (after-int64(n))/meterStep != after/meterStep {
			c.mu.Lock()
			close(c.next)
			c.next = make(chan struct{})
			c.mu.Unlock()
		}
	}
	return n, err
}

// total is the bytes read from the connection so far.
func (c *meteredConn) total() int64 { return c.read.Load() }

// changed is closed when the connection has read past the next multiple
// of meterStep.
func (c *meteredConn) changed() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.next
}

// meterOf is the meter of the connection a call came on, nil when it has
// none (a server built without meteredCreds).
func meterOf(ctx context.Context) *meteredConn {
	p, ok := peer.FromContext(ctx)
	if !ok {
		return nil
	}
	if info, ok := p.AuthInfo.(meteredInfo); ok {
		return info.conn
	}
	return nil
}

// keptGzip is the server's gzip "decompressor": it hands a compressed
// message on as it arrived, for the Export handler to inflate into
// buffers reserved in the memory budget chunk by chunk before they are
// taken (intake.Inflate). gRPC's own would inflate up to the message limit
// (20 MiB) unreserved: a few KiB of a gzip bomb per call.
type keptGzip struct{}

// Do returns the compressed message, which must start as gzip does.
func (keptGzip) Do(r io.Reader) ([]byte, error) {
	keptGzipCalls.Add(1)
	b, err := io.ReadAll(r)
	if err == nil && !isGzip(b) {
		err = errNotGzip
	}
	return b, err
}

var errNotGzip = errors.New("the message is not gzip")

// Type is the grpc-encoding keptGzip serves.
func (keptGzip) Type() string { return "gzip" }

// keptGzipCalls counts the compressed messages gRPC handed on (tests).
var keptGzipCalls atomic.Int64

// isGzip reports whether b starts as a gzip stream does (RFC 1952). A
// protobuf message cannot: 0x1f would be a field of wire type 7, which
// does not exist.
func isGzip(b []byte) bool { return len(b) >= 2 && b[0] == 0x1f && b[1] == 0x8b }
