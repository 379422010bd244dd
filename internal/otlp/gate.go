package otlp

import (
	"bytes"
	"context"
	"encoding/binary"
	"net"
	"sync"

	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/tap"
)

// The gate lets an Export see its request's bytes arrive, which gRPC does
// not: it reads a message in one call. Every connection the gRPC server
// accepts is wrapped (gateConn) so that the frames it reads are followed as
// they are handed to gRPC, and each new stream is linked to its call by
// gRPC's InTapHandle, which runs on the connection's reader goroutine right
// after the stream's header block was read: the wrapper never hands gRPC
// bytes past a header block's end in one Read, so when the tap runs, the
// last block handed over is that stream's. The call can then wait for its
// message's 5-byte prefix before it reserves memory, and reserve what the
// prefix declares (docs/decisions.md, "Idle gRPC calls").
type gate struct {
	mu    sync.Mutex
	conns map[string]*gateConn
}

func newGate() *gate { return &gate{conns: map[string]*gateConn{}} }

// connKey names a connection by its two ends, as gRPC's peer does.
func connKey(local, remote net.Addr) string {
	if local == nil || remote == nil {
		return ""
	}
	return local.String() + "|" + remote.String()
}

// listener wraps every connection ln accepts.
func (g *gate) listener(ln net.Listener) net.Listener { return &gateListener{Listener: ln, g: g} }

type gateListener struct {
	net.Listener
	g *gate
}

func (l *gateListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return c, err
	}
	gc := &gateConn{Conn: c, g: l.g, key: connKey(c.LocalAddr(), c.RemoteAddr()), f: newFrameReader(),
		streams: map[uint32]*arrival{}}
	l.g.mu.Lock()
	l.g.conns[gc.key] = gc
	l.g.mu.Unlock()
	return gc, nil
}

// tap links a new stream to the call gRPC is about to start for it: the
// context it returns carries the stream's arrival.
func (g *gate) tap(ctx context.Context, _ *tap.Info) (context.Context, error) {
	p, ok := peer.FromContext(ctx)
	if !ok {
		return ctx, nil
	}
	g.mu.Lock()
	c := g.conns[connKey(p.LocalAddr, p.Addr)]
	g.mu.Unlock()
	if c == nil || c.lastBlock == 0 {
		return ctx, nil
	}
	a := &arrival{prefixed: make(chan struct{}), conn: c, stream: c.lastBlock}
	if c.lastEnded {
		a.end()
	} else {
		c.mu.Lock()
		c.streams[a.stream] = a
		c.mu.Unlock()
		// Whatever the call does (a refused one never waits for its
		// message), the stream is forgotten when it is over.
		a.forgetLater(ctx)
	}
	return context.WithValue(ctx, arrivalKey{}, a), nil
}

// gateConn follows the frames of one gRPC connection as gRPC reads them.
// Read runs on the connection's reader goroutine only, as does the tap
// that reads lastBlock.
type gateConn struct {
	net.Conn
	g    *gate
	key  string
	once sync.Once

	pending []byte // bytes read from the socket, not handed to gRPC yet
	rerr    error  // the socket's error, returned once pending is handed over
	f       frameReader
	// lastBlock is the stream of the last header block handed to gRPC,
	// lastEnded whether that block also ended the stream's request.
	lastBlock uint32
	lastEnded bool

	mu      sync.Mutex
	streams map[uint32]*arrival
}

// Read reads from the socket into p and hands gRPC what the frame reader
// passes: everything, unless a header block ends first, in which case the
// rest waits in pending for the next Read. A connection keeps no buffer of
// its own otherwise (gRPC's reader has one already, and thousands of idle
// connections would hold thousands).
func (c *gateConn) Read(p []byte) (int, error) {
	if len(c.pending) == 0 {
		if c.rerr != nil {
			err := c.rerr
			c.rerr = nil
			return 0, err
		}
		n, err := c.Conn.Read(p)
		if n == 0 {
			return 0, err
		}
		cut := c.f.pass(p[:n], c)
		if cut == n {
			return n, err
		}
		c.pending, c.rerr = bytes.Clone(p[cut:n]), err
		return cut, nil
	}
	src := c.pending[:min(len(p), len(c.pending))]
	cut := c.f.pass(src, c)
	copy(p, src[:cut])
	if c.pending = c.pending[cut:]; len(c.pending) == 0 {
		c.pending = nil
	}
	return cut, nil
}

func (c *gateConn) Close() error {
	c.once.Do(func() {
		c.g.mu.Lock()
		if c.g.conns[c.key] == c {
			delete(c.g.conns, c.key)
		}
		c.g.mu.Unlock()
		c.mu.Lock()
		for _, a := range c.streams {
			a.end()
		}
		clear(c.streams)
		c.mu.Unlock()
	})
	return c.Conn.Close()
}

func (c *gateConn) stream(id uint32) *arrival {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.streams[id]
}

func (c *gateConn) data(stream uint32, p []byte) {
	if a := c.stream(stream); a != nil {
		a.add(p)
	}
}

func (c *gateConn) ended(stream uint32) {
	c.mu.Lock()
	a := c.streams[stream]
	delete(c.streams, stream)
	c.mu.Unlock()
	if a != nil {
		a.end()
	}
}

func (c *gateConn) headerBlock(stream uint32, endStream bool) {
	c.lastBlock, c.lastEnded = stream, endStream
	if endStream {
		c.ended(stream) // trailers of a stream already open
	}
}

// arrivalKey is the context key of a call's arrival.
type arrivalKey struct{}

// arrivalOf is the arrival the gate linked to the call of ctx, or nil.
func arrivalOf(ctx context.Context) *arrival {
	a, _ := ctx.Value(arrivalKey{}).(*arrival)
	return a
}

// arrival is what has arrived of one call's request message.
type arrival struct {
	conn   *gateConn
	stream uint32

	mu     sync.Mutex
	prefix [5]byte
	got    int64
	done   bool
	// prefixed is closed once the message's 5-byte prefix has arrived, or
	// the request ended without it.
	prefixed chan struct{}
}

func (a *arrival) add(p []byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.got < int64(len(a.prefix)) {
		copy(a.prefix[a.got:], p)
		if a.got+int64(len(p)) >= int64(len(a.prefix)) && !a.done {
			a.done = true
			close(a.prefixed)
		}
	}
	a.got += int64(len(p))
}

func (a *arrival) end() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.done {
		a.done = true
		close(a.prefixed)
	}
}

// header is the message's prefix, once it has arrived: whether the
// message is compressed and how long it is on the wire.
func (a *arrival) header() (compressed bool, length int64, ok bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.got < int64(len(a.prefix)) {
		return false, 0, false
	}
	return a.prefix[0] != 0, int64(binary.BigEndian.Uint32(a.prefix[1:])), true
}

// forgetLater stops following the call's stream once ctx, the stream's,
// ends (gRPC cancels it when the stream is over), if the stream's end or
// its connection's close has not already.
func (a *arrival) forgetLater(ctx context.Context) {
	context.AfterFunc(ctx, func() {
		a.conn.mu.Lock()
		if a.conn.streams[a.stream] == a {
			delete(a.conn.streams, a.stream)
		}
		a.conn.mu.Unlock()
	})
}
