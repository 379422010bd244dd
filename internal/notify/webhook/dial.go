package webhook

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http/httptrace"
	"net/netip"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// blockedError is a dial refused by the address or port rule (class blocked-address).
type blockedError struct {
	detail string
	err    error // the ssrf sentinel, when the guardian refused
}

func (e *blockedError) Error() string { return e.detail }
func (e *blockedError) Unwrap() error { return e.err }

// tlsError is a failed TLS handshake (class tls).
type tlsError struct{ err error }

func (e *tlsError) Error() string { return tlsDetail(e.err) }
func (e *tlsError) Unwrap() error { return e.err }

// timeoutError is a dial that did not finish within ConnectTimeout (class timeout).
type timeoutError struct{ msg string }

func (e *timeoutError) Error() string   { return e.msg }
func (e *timeoutError) Timeout() bool   { return true }
func (e *timeoutError) Temporary() bool { return true }

var errConnExpired = errors.New("webhook: pooled connection older than MaxConnAge")

// conn is a TLS connection that remembers when it was dialed. Once marked
// expired it refuses to write: the transport sees a reused connection on
// which nothing was written and retries the request on a fresh, checked
// dial (net/http does so for any request whose body can be rewound).
type conn struct {
	*tls.Conn
	dialedAt time.Time
	expired  atomic.Bool
}

func (c *conn) Write(b []byte) (int, error) {
	if c.expired.Load() {
		return 0, errConnExpired
	}
	return c.Conn.Write(b)
}

// maxIdleReuse is how long a pooled connection may sit idle and still be
// reused. Many receivers drop idle connections after 5s (Node's default); a
// POST sent on one they are closing fails and net/http does not resend it.
const maxIdleReuse = 4 * time.Second

// refuseIfExpired runs when the transport hands a connection to a request,
// before anything is written, so the age is judged once per request and a
// request is never cut in the middle.
func (c *Client) refuseIfExpired(info httptrace.GotConnInfo) {
	cn, ok := info.Conn.(*conn)
	if !ok || !info.Reused {
		return
	}
	if time.Since(cn.dialedAt) >= c.opts.MaxConnAge || info.IdleTime >= maxIdleReuse {
		cn.expired.Store(true)
	}
}

func refusePlainDial(context.Context, string, string) (net.Conn, error) {
	return nil, &blockedError{detail: "webhook URL must use https"}
}

// dialTLS resolves, checks every address, connects and completes the TLS
// handshake, all within ConnectTimeout.
func (c *Client) dialTLS(ctx context.Context, _, addr string) (net.Conn, error) {
	host, portText, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, &blockedError{detail: "invalid address " + addr, err: err}
	}
	port, err := strconv.ParseUint(portText, 10, 16)
	if err != nil || !portAllowed(uint16(port)) {
		return nil, &blockedError{detail: fmt.Sprintf("port %s is not allowed: use 443 or 1024-65535", portText)}
	}
	ctx, cancel := context.WithTimeout(ctx, c.opts.ConnectTimeout)
	defer cancel()
	addrs, err := c.lookup(ctx, host)
	if err != nil {
		return nil, c.dialFailure(ctx, "dns lookup", err)
	}
	dialedAt := time.Now()
	raw, err := c.dialAny(ctx, addrs, uint16(port))
	if err != nil {
		return nil, c.dialFailure(ctx, "connect", err)
	}
	cfg := c.tlsConfig.Clone()
	cfg.ServerName = host
	tc := tls.Client(raw, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		raw.Close()
		return nil, c.dialFailure(ctx, "tls handshake", handshakeError(err))
	}
	return &conn{Conn: tc, dialedAt: dialedAt}, nil
}

func (c *Client) dialFailure(ctx context.Context, phase string, err error) error {
	var b *blockedError
	if !errors.As(err, &b) && ctx.Err() != nil {
		return &timeoutError{msg: fmt.Sprintf("%s: timed out after %s", phase, c.opts.ConnectTimeout)}
	}
	return err
}

// lookup returns the addresses of host, refusing them all if any is not
// public: the same judgement as CheckURL, made again at every dial.
func (c *Client) lookup(ctx context.Context, host string) ([]netip.Addr, error) {
	t, err := parseHost(host, strings.Contains(host, ":"))
	if err != nil {
		return nil, &blockedError{detail: err.Error(), err: err}
	}
	addrs := []netip.Addr{t.addr}
	if !t.addr.IsValid() {
		if t.localhost && !c.opts.AllowPrivate {
			return nil, &blockedError{detail: fmt.Sprintf("host %s always means loopback, not a public address", host)}
		}
		if addrs, err = c.opts.resolver().LookupNetIP(ctx, "ip", host); err != nil {
			return nil, err
		}
		if len(addrs) == 0 {
			return nil, &net.DNSError{Err: "no addresses", Name: host, IsNotFound: true}
		}
	}
	for i, a := range addrs {
		if !c.opts.AllowPrivate && !publicAddr(a) {
			if t.addr.IsValid() {
				return nil, &blockedError{detail: fmt.Sprintf("address %s is %s, not public", a.Unmap(), addrKind(a))}
			}
			return nil, &blockedError{detail: fmt.Sprintf("host %s resolves to %s address %s", host, addrKind(a), a.Unmap())}
		}
		addrs[i] = a.Unmap()
	}
	return addrs, nil
}

// dialAny tries the addresses in turn, sharing the connect deadline among
// them as net.Dialer does, so one black-holed address cannot use it all.
func (c *Client) dialAny(ctx context.Context, addrs []netip.Addr, port uint16) (net.Conn, error) {
	var first error
	for i, a := range addrs {
		dctx, cancel := ctx, context.CancelFunc(func() {})
		if deadline, ok := ctx.Deadline(); ok && len(addrs)-i > 1 {
			share := max(time.Until(deadline)/time.Duration(len(addrs)-i), 2*time.Second)
			dctx, cancel = context.WithTimeout(ctx, share)
		}
		cn, err := c.dialer.DialContext(dctx, "tcp", netip.AddrPortFrom(a, port).String())
		cancel()
		if err == nil {
			return cn, nil
		}
		if first == nil {
			first = err
		}
		var b *blockedError
		if ctx.Err() != nil || errors.As(err, &b) {
			break
		}
	}
	return nil, first
}

// control runs on every socket before it connects, whatever resolved the
// address: the port rule always, the ssrf address lists unless AllowPrivate.
func (c *Client) control(network, address string, rc syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &blockedError{detail: "invalid address " + address, err: err}
	}
	if !portAllowed(ap.Port()) {
		return &blockedError{detail: fmt.Sprintf("port %d is not allowed: use 443 or 1024-65535", ap.Port())}
	}
	if c.opts.AllowPrivate {
		return nil
	}
	if err := guard.Safe(network, address, rc); err != nil {
		a := ap.Addr().Unmap()
		return &blockedError{detail: fmt.Sprintf("address %s is %s, not public", a, addrKind(a)), err: err}
	}
	return nil
}

// handshakeError keeps time-outs and transport failures as they are and marks
// everything else as a TLS failure. A TLS alert from the receiver arrives as
// a net.OpError "remote error", which is a TLS failure too.
func handshakeError(err error) error {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	var op *net.OpError
	if errors.As(err, &op) && op.Op != "remote error" {
		return err
	}
	return &tlsError{err: err}
}
