package webhook

import (
	"context"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"golang.org/x/net/dns/dnsmessage"
)

// dnsServer is a real DNS responder on loopback UDP. Each name answers A and
// AAAA from a function of how many queries of that type it has seen, so a
// test can make a name "rebind" between look-ups.
type dnsServer struct {
	addr    string
	mu      sync.Mutex
	records map[string]func(n int) []string // lower-case name without trailing dot
	queries map[string]int                  // "name type" -> count
}

func fixed(addrs ...string) func(int) []string { return func(int) []string { return addrs } }

func startDNS(t *testing.T, records map[string]func(n int) []string) *dnsServer {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen dns: %v", err)
	}
	s := &dnsServer{addr: pc.LocalAddr().String(), records: records, queries: map[string]int{}}
	t.Cleanup(func() { pc.Close() })
	go s.serve(pc)
	return s
}

func (s *dnsServer) serve(pc net.PacketConn) {
	buf := make([]byte, 1500)
	for {
		n, from, err := pc.ReadFrom(buf)
		if err != nil {
			return
		}
		if out := s.answer(buf[:n]); out != nil {
			pc.WriteTo(out, from)
		}
	}
}

func (s *dnsServer) answer(msg []byte) []byte {
	var p dnsmessage.Parser
	h, err := p.Start(msg)
	if err != nil {
		return nil
	}
	q, err := p.Question()
	if err != nil {
		return nil
	}
	name := strings.TrimSuffix(strings.ToLower(q.Name.String()), ".")
	s.mu.Lock()
	rec, known := s.records[name]
	var addrs []string
	if known && (q.Type == dnsmessage.TypeA || q.Type == dnsmessage.TypeAAAA) {
		key := name + " " + q.Type.String()
		addrs = rec(s.queries[key])
		s.queries[key]++
	}
	s.mu.Unlock()

	rh := dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true, RecursionAvailable: true}
	if !known {
		rh.RCode = dnsmessage.RCodeNameError
	}
	b := dnsmessage.NewBuilder(nil, rh)
	b.StartQuestions()
	b.Question(q)
	b.StartAnswers()
	for _, a := range addrs {
		ip := netip.MustParseAddr(a)
		rhdr := dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 1}
		switch {
		case q.Type == dnsmessage.TypeA && ip.Is4():
			b.AResource(rhdr, dnsmessage.AResource{A: ip.As4()})
		case q.Type == dnsmessage.TypeAAAA && ip.Is6():
			b.AAAAResource(rhdr, dnsmessage.AAAAResource{AAAA: ip.As16()})
		}
	}
	out, err := b.Finish()
	if err != nil {
		return nil
	}
	return out
}

// count returns how many queries of any type name has received.
func (s *dnsServer) count(name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.queries[name+" TypeA"] + s.queries[name+" TypeAAAA"]
}

// resolver sends every query to this server, never to the system's.
func (s *dnsServer) resolver() *net.Resolver {
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp", s.addr)
	}}
}

// testDNS is the zone the URL and client tests share.
func testDNS(t *testing.T) *dnsServer {
	return startDNS(t, map[string]func(int) []string{
		"public.errata.test":    fixed("93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"),
		"private.errata.test":   fixed("10.0.0.5"),
		"loopback.errata.test":  fixed("127.0.0.1"),
		"mixed.errata.test":     fixed("93.184.215.14", "192.168.1.20"),
		"metadata.errata.test":  fixed("169.254.169.254"),
		"v6private.errata.test": fixed("fd00::1"),
		"v6mapped.errata.test":  fixed("::ffff:10.0.0.1"),
		"empty.errata.test":     fixed(),
		"other.errata.test":     fixed("127.0.0.1"), // not in the receiver's certificate
		// Public for the first A query (CheckURL at creation), loopback after.
		"rebind.errata.test": func(n int) []string {
			if n == 0 {
				return []string{"93.184.215.14"}
			}
			return []string{"127.0.0.1"}
		},
	})
}
