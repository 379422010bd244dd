package loadgen

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"io"
	"net"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/http2"
)

// dialers is how many connections a connection attack opens at once.
const dialers = 64

// connKind is one way of holding a connection open without finishing a
// request.
type connKind struct {
	name string
	addr string
	// stall is what is written before the connection goes silent.
	stall string
	// http2 reads what the server sends as HTTP/2 frames (else as an
	// HTTP/1.1 answer); handshake also sends SETTINGS and acknowledges the
	// server's, completing the HTTP/2 handshake.
	http2, handshake bool
}

// connAttack is slow-body, grpc-preface or keyless-stall: it opens c.Connections
// connections of its kinds in turn, stalls each, and waits for the server
// to close them.
type connAttack struct {
	c     *AttackConfig
	kinds []connKind
	open  atomic.Int64 // connections written to and not yet closed
	// reopen dials a connection again each time the server closes it,
	// until the attack ends (keyless-stall: an attacker keeps its
	// connections stalled); reopened counts those dials, by kind.
	reopen bool
	mu     sync.Mutex
	// answers counts, by kind, what the server answered the connections
	// it closed and that were dialed again (summarise adds the last of
	// each slot).
	reopened []int
	answers  []map[string]int
}

func newConnAttack(c *AttackConfig) *connAttack {
	a := &connAttack{c: c}
	if c.Attack == AttackGRPCPreface {
		a.kinds = []connKind{
			{name: "preface-only", addr: c.GRPCAddr, stall: http2.ClientPreface, http2: true},
			{name: "handshake-then-nothing", addr: c.GRPCAddr, stall: http2.ClientPreface, http2: true, handshake: true},
		}
		return a
	}
	u, _ := url.Parse(c.URL) // checked by Validate
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), "80")
	}
	if c.Attack == AttackKeylessStall {
		a.kinds, a.reopen = []connKind{keylessStallKind(c, host, u.Host)}, true
		a.reopened, a.answers = make([]int, 1), []map[string]int{{}}
		return a
	}
	auth := ""
	if c.Key != "" {
		auth = "Authorization: Bearer " + c.Key + "\r\n"
	}
	a.kinds = []connKind{
		{name: "ingest-chunked", addr: host, stall: "POST /v1/ingest HTTP/1.1\r\nHost: " + u.Host + "\r\n" + auth +
			"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n{"},
		{name: "sign-in-short", addr: host, stall: "POST /v1/auth/sign-in/email HTTP/1.1\r\nHost: " + u.Host +
			"\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"email\":"},
	}
	return a
}

// held is how many of the attack's connections are open now.
func (a *connAttack) held() int { return int(a.open.Load()) }

// heldConn is what became of one connection.
type heldConn struct {
	dialed      bool
	closedBy    bool          // the server closed it (else it was open at the end)
	closedAfter time.Duration // from the stall to the close
	answer      string        // the HTTP status or HTTP/2 frame the server sent, if any
}

// run opens the connections until attack ends and then closes those the
// server still holds.
func (a *connAttack) run(_, ctx context.Context) (attackResult, error) {
	conns := make([]heldConn, a.c.Connections)
	// closing ends the connections still open when the attack ends; a
	// reader that sees it set knows the close was ours.
	var closing atomic.Bool
	var mu sync.Mutex
	live := map[net.Conn]struct{}{}
	var wg sync.WaitGroup
	sem := make(chan struct{}, dialers)
	allDone := make(chan struct{})
	var pending atomic.Int64
	pending.Store(int64(len(conns)))
	finished := func() {
		if pending.Add(-1) == 0 {
			close(allDone)
		}
	}
	d := net.Dialer{Timeout: 5 * time.Second}
dial:
	for i := range conns {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			for range len(conns) - i {
				finished()
			}
			break dial
		}
		wg.Go(func() {
			k := a.kinds[i%len(a.kinds)]
		again:
			conn, err := dialStalled(ctx, &d, k)
			<-sem
			if err != nil {
				finished()
				return
			}
			stalled := time.Now()
			a.open.Add(1)
			mu.Lock()
			live[conn] = struct{}{}
			mu.Unlock()
			answer := waitClose(conn, k)
			a.open.Add(-1)
			mu.Lock()
			delete(live, conn)
			mu.Unlock()
			conns[i] = heldConn{dialed: true, closedBy: !closing.Load(), closedAfter: time.Since(stalled), answer: answer}
			_ = conn.Close()
			if a.reopen && !closing.Load() && ctx.Err() == nil {
				a.mu.Lock()
				a.answers[i%len(a.kinds)][cmp.Or(answer, "none")]++
				a.reopened[i%len(a.kinds)]++
				a.mu.Unlock()
				sem <- struct{}{}
				goto again
			}
			finished()
		})
	}
	select {
	case <-allDone:
	case <-ctx.Done():
	}
	closing.Store(true)
	mu.Lock()
	for conn := range live {
		_ = conn.Close()
	}
	mu.Unlock()
	wg.Wait()
	res := attackResult{conns: a.summarise(conns)}
	if !slices.ContainsFunc(conns, func(hc heldConn) bool { return hc.dialed }) && ctx.Err() == nil {
		return res, errNoConnections
	}
	return res, nil
}

// dialStalled opens a connection to k's address and sends k's stalled
// start (and an HTTP/2 SETTINGS frame when k takes a handshake).
func dialStalled(ctx context.Context, d *net.Dialer, k connKind) (net.Conn, error) {
	conn, err := d.DialContext(ctx, "tcp", k.addr)
	if err != nil {
		return nil, err
	}
	_, err = io.WriteString(conn, k.stall)
	if err == nil && k.handshake {
		err = http2.NewFramer(conn, nil).WriteSettings()
	}
	if err != nil {
		_ = conn.Close()
		return nil, err
	}
	return conn, nil
}

// waitClose reads conn until the server closes it and returns what it
// answered: an HTTP status code, or the HTTP/2 frame types it sent other
// than SETTINGS (which are acknowledged when k completes the handshake),
// each once, in order ("WINDOW_UPDATE+GOAWAY").
func waitClose(conn net.Conn, k connKind) string {
	if !k.http2 {
		br := bufio.NewReader(conn)
		line, err := br.ReadString('\n')
		answer := ""
		if f := strings.Fields(line); len(f) >= 2 && strings.HasPrefix(f[0], "HTTP/") {
			answer = f[1]
		}
		if err == nil {
			_, _ = io.Copy(io.Discard, br)
		}
		return answer
	}
	fr := http2.NewFramer(conn, conn)
	var seen []string
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			return strings.Join(seen, "+")
		}
		if s, ok := f.(*http2.SettingsFrame); ok {
			if k.handshake && !s.IsAck() && fr.WriteSettingsAck() != nil {
				return strings.Join(seen, "+")
			}
			continue
		}
		if t := f.Header().Type.String(); !slices.Contains(seen, t) {
			seen = append(seen, t)
		}
	}
}

// summarise is conns per kind.
func (a *connAttack) summarise(conns []heldConn) []ConnKind {
	out := make([]ConnKind, len(a.kinds))
	after := make([][]time.Duration, len(a.kinds))
	for i := range out {
		out[i] = ConnKind{Kind: a.kinds[i].name, Answers: map[string]int{}}
	}
	for i, hc := range conns {
		k := &out[i%len(a.kinds)]
		k.Attempted++
		switch {
		case !hc.dialed:
			k.Failed++
		case hc.closedBy:
			k.Opened++
			k.ClosedByServer++
			after[i%len(a.kinds)] = append(after[i%len(a.kinds)], hc.closedAfter)
		default:
			k.Opened++
			k.OpenAtEnd++
		}
		if hc.dialed {
			k.Answers[cmp.Or(hc.answer, "none")]++
		}
	}
	for i := range out {
		slices.Sort(after[i])
		out[i].ClosedAfter = latencyOf(after[i])
		if a.reopen {
			a.mu.Lock()
			out[i].Reopened = a.reopened[i]
			for answer, n := range a.answers[i] {
				out[i].Answers[answer] += n
			}
			a.mu.Unlock()
		}
	}
	return out
}

var errNoConnections = errors.New("loadgen: no connection could be opened: is the server listening there?")
