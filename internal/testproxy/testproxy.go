// Package testproxy is a TCP proxy for tests that make a dependency fail
// for real: Errata talks to PostgreSQL through it, and Cut drops every
// connection and refuses new ones until Restore, as a database restart
// would; Freeze lets every connection go silent, open but carrying nothing,
// as a network partition or a stopped server would; Strand lets the
// connections open now go silent for good while new ones work, as a hung
// pooler or a backend stopped behind a live kernel would. Tests never stop
// the shared PostgreSQL server.
package testproxy

import (
	"bytes"
	"net"
	"net/url"
	"sync"
	"testing"
)

// Proxy forwards loopback connections to a target address.
type Proxy struct {
	target string
	ln     net.Listener

	mu     sync.Mutex
	cut    bool
	frozen chan struct{} // closed when not frozen; Freeze makes a new one
	conns  map[net.Conn]struct{}
	wg     sync.WaitGroup
	// gen counts Strand's calls: a connection made before the last one is
	// stranded. closing is closed when the proxy closes.
	gen     int
	closing chan struct{}
	// marker, when set, is what a connection must send before its next
	// commit is delivered and the connection then closed (CutAtCommitAfter).
	marker []byte
}

// Start proxies a free loopback port to target ("host:port") until the
// test ends.
func Start(t testing.TB, target string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("testproxy: listen: %v", err)
	}
	p := &Proxy{target: target, ln: ln, conns: map[net.Conn]struct{}{}, frozen: make(chan struct{}), closing: make(chan struct{})}
	close(p.frozen)
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.close)
	return p
}

// Addr is the proxy's own address.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// URL returns u (a database URL) with its host and port replaced by the
// proxy's, and without a connect_timeout (storetest's URLs carry a long
// one), so a connection through the proxy waits the server's default.
func (p *Proxy) URL(t testing.TB, u string) string {
	t.Helper()
	pu, err := url.Parse(u)
	if err != nil {
		t.Fatalf("testproxy: %v", err)
	}
	pu.Host = p.Addr()
	if q := pu.Query(); q.Has("connect_timeout") { // outage tests measure the server's default
		q.Del("connect_timeout")
		pu.RawQuery = q.Encode()
	}
	return pu.String()
}

// Cut closes every proxied connection and refuses new ones.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = true
	for c := range p.conns {
		_ = c.Close()
	}
}

// Freeze stops carrying bytes, either way, on every connection, and
// accepts new ones without connecting them, until Restore: the peers see
// connections that stay open and answer nothing.
func (p *Proxy) Freeze() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.frozen:
		p.frozen = make(chan struct{})
	default: // frozen already
	}
}

// Strand lets every connection open now go silent until the test ends,
// carrying nothing either way, while new connections work.
func (p *Proxy) Strand() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.gen++
}

// stranded reports whether a connection made in generation gen is.
func (p *Proxy) stranded(gen int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return gen < p.gen
}

// CutAtCommitAfter arms the proxy once: the first connection that sends
// marker (a statement's text) has its next COMMIT delivered to the
// database and is then closed before the answer comes back, as a
// connection lost in the middle of a commit would be: the database
// commits, and the client cannot know it did.
func (p *Proxy) CutAtCommitAfter(marker string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.marker = []byte(marker)
}

// commitSeen decides, for a chunk a client sent, whether the connection is
// to be closed once the chunk is delivered; marked is the connection's
// state (marker seen).
func (p *Proxy) commitSeen(chunk []byte, marked *bool) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.marker == nil {
		return false
	}
	if !*marked && bytes.Contains(chunk, p.marker) {
		*marked = true
		return false
	}
	if *marked && bytes.Contains(bytes.ToLower(chunk), []byte("commit\x00")) {
		p.marker = nil
		return true
	}
	return false
}

// Restore lets connections through again, the frozen ones included.
func (p *Proxy) Restore() {
	p.mu.Lock()
	p.cut = false
	select {
	case <-p.frozen:
	default:
		close(p.frozen)
	}
	p.mu.Unlock()
}

// thawed waits until the proxy is not frozen.
func (p *Proxy) thawed() {
	p.mu.Lock()
	f := p.frozen
	p.mu.Unlock()
	<-f
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.cut {
			p.mu.Unlock()
			_ = c.Close()
			continue
		}
		p.mu.Unlock()
		p.wg.Add(1)
		go p.serve(c)
	}
}

func (p *Proxy) serve(c net.Conn) {
	defer p.wg.Done()
	p.thawed()
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		_ = c.Close()
		return
	}
	p.mu.Lock()
	if p.cut {
		p.mu.Unlock()
		_ = c.Close()
		_ = up.Close()
		return
	}
	p.conns[c], p.conns[up] = struct{}{}, struct{}{}
	gen := p.gen
	p.mu.Unlock()
	var done sync.WaitGroup
	done.Add(2)
	var marked bool // c sent the marker (CutAtCommitAfter)
	pipe := func(dst, src net.Conn) {
		defer done.Done()
		buf := make([]byte, 32<<10)
		for { // a cut or either side's close ends it
			n, err := src.Read(buf)
			if n > 0 {
				p.thawed()
				if p.stranded(gen) {
					<-p.closing
					break
				}
				cut := src == c && p.commitSeen(buf[:n], &marked)
				if _, werr := dst.Write(buf[:n]); werr != nil {
					break
				}
				if cut {
					// Only the client's side is closed now: closing the
					// database's while its answer is on the way could
					// reset the connection before the COMMIT is read.
					// The other direction closes it when the answer finds
					// no client to take it, so the commit is made.
					_ = src.Close()
					return
				}
			}
			if err != nil {
				break
			}
		}
		_ = dst.Close()
		_ = src.Close()
	}
	go pipe(up, c)
	go pipe(c, up)
	done.Wait()
	p.mu.Lock()
	delete(p.conns, c)
	delete(p.conns, up)
	p.mu.Unlock()
}

func (p *Proxy) close() {
	close(p.closing)
	_ = p.ln.Close()
	p.Cut()
	p.mu.Lock()
	select { // frozen pipes and connections go on, to their end
	case <-p.frozen:
	default:
		close(p.frozen)
	}
	p.mu.Unlock()
	p.wg.Wait()
}
