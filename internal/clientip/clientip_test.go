package clientip_test

import (
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/clientip"
)

func prefixes(t testing.TB, cidrs ...string) []netip.Prefix {
	t.Helper()
	var out []netip.Prefix
	for _, c := range cidrs {
		out = append(out, netip.MustParsePrefix(c))
	}
	return out
}

// TestIP resolves the client address of requests from trusted and
// untrusted peers: only a trusted peer's X-Forwarded-For counts, read from
// the nearest hop outwards past every trusted proxy; what a client wrote
// further left, and anything after a hop that is not an address, is
// ignored.
func TestIP(t *testing.T) {
	t.Parallel()
	// A load balancer in 10.0.0.0/8 in front of a local proxy.
	trusted := clientip.New(prefixes(t, "127.0.0.1/32", "::1/128", "10.0.0.0/8"))
	for _, tc := range []struct {
		name   string
		res    *clientip.Resolver
		remote string
		xff    []string // one X-Forwarded-For header line each
		want   string
	}{
		{"no proxy trusted: the peer", clientip.New(nil), "192.0.2.1:5000", []string{"203.0.113.9"}, "192.0.2.1"},
		{"zero resolver: the peer", nil, "192.0.2.1:5000", []string{"203.0.113.9"}, "192.0.2.1"},
		{"untrusted peer spoofing its address", trusted, "192.0.2.1:5000", []string{"203.0.113.9"}, "192.0.2.1"},
		{"untrusted peer spoofing a trusted chain", trusted, "192.0.2.1:5000", []string{"203.0.113.9, 10.0.0.2, 127.0.0.1"}, "192.0.2.1"},
		{"trusted peer, no header", trusted, "127.0.0.1:5000", nil, "127.0.0.1"},
		{"trusted peer, empty header", trusted, "127.0.0.1:5000", []string{""}, "127.0.0.1"},
		{"trusted peer forwarding a client", trusted, "127.0.0.1:5000", []string{"203.0.113.9"}, "203.0.113.9"},
		{"client-written hops left of the real one are ignored", trusted, "127.0.0.1:5000", []string{"198.51.100.1, 203.0.113.9"}, "203.0.113.9"},
		{"chain of trusted proxies", trusted, "127.0.0.1:5000", []string{"198.51.100.1, 203.0.113.9, 10.1.2.3, 10.0.0.2"}, "203.0.113.9"},
		{"spaces around hops", trusted, "127.0.0.1:5000", []string{" 203.0.113.9 ,10.0.0.2 "}, "203.0.113.9"},
		{"several header lines, read as one list", trusted, "127.0.0.1:5000", []string{"198.51.100.1", "203.0.113.9, 10.0.0.2"}, "203.0.113.9"},
		{"several header lines, client in the first", trusted, "127.0.0.1:5000", []string{"203.0.113.9", "10.0.0.2"}, "203.0.113.9"},
		{"every hop trusted: the farthest", trusted, "127.0.0.1:5000", []string{"10.0.0.3, 10.0.0.2"}, "10.0.0.3"},
		{"garbage nearest: the trusted peer itself", trusted, "127.0.0.1:5000", []string{"203.0.113.9, not-an-ip"}, "127.0.0.1"},
		{"garbage behind a trusted hop: that hop", trusted, "127.0.0.1:5000", []string{"203.0.113.9, <script>, 10.0.0.2"}, "10.0.0.2"},
		{"garbage left of the client: ignored", trusted, "127.0.0.1:5000", []string{"garbage, 203.0.113.9"}, "203.0.113.9"},
		{"empty hop counts as garbage", trusted, "127.0.0.1:5000", []string{"203.0.113.9,,10.0.0.2"}, "10.0.0.2"},
		{"a hop with a port, as some proxies write it", trusted, "127.0.0.1:5000", []string{"203.0.113.9:443"}, "203.0.113.9"},
		{"a bracketed IPv6 hop with a port", trusted, "127.0.0.1:5000", []string{"[2001:db8:1:2::7]:1234"}, "2001:db8:1:2::7"},
		{"a bracketed IPv6 hop", trusted, "127.0.0.1:5000", []string{"[2001:db8:1:2::7]"}, "2001:db8:1:2::7"},
		{"a port without an address is garbage", trusted, "127.0.0.1:5000", []string{":443"}, "127.0.0.1"},
		{"IPv6 peer and client", trusted, "[::1]:5000", []string{"2001:db8::7"}, "2001:db8::7"},
		{"IPv6 client behind an IPv4 proxy", trusted, "10.0.0.2:5000", []string{"2001:db8::7"}, "2001:db8::7"},
		{"untrusted IPv6 peer", trusted, "[2001:db8::1]:5000", []string{"203.0.113.9"}, "2001:db8::1"},
		{"IPv4-mapped peer is trusted as IPv4", trusted, "[::ffff:127.0.0.1]:5000", []string{"203.0.113.9"}, "203.0.113.9"},
		{"IPv4-mapped peer, untrusted, shown as IPv4", trusted, "[::ffff:192.0.2.1]:5000", []string{"203.0.113.9"}, "192.0.2.1"},
		{"IPv4-mapped client shown as IPv4", trusted, "127.0.0.1:5000", []string{"::ffff:203.0.113.9"}, "203.0.113.9"},
		{"IPv4-mapped trusted hop", trusted, "127.0.0.1:5000", []string{"203.0.113.9, ::ffff:10.0.0.2"}, "203.0.113.9"},
		{"remote address without a port", trusted, "192.0.2.1", []string{"203.0.113.9"}, "192.0.2.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tc.remote
			for _, v := range tc.xff {
				r.Header.Add("X-Forwarded-For", v)
			}
			if got := tc.res.IP(r); got != tc.want {
				t.Errorf("IP = %q, want %q", got, tc.want)
			}
		})
	}
}

// FuzzIP: whatever the header says, the answer is the peer or one of the
// header's hops, never a hop a client wrote left of the first untrusted
// one, and a peer that is not trusted is always the answer.
func FuzzIP(f *testing.F) {
	f.Add("127.0.0.1:5000", "203.0.113.9, 10.0.0.2")
	f.Add("192.0.2.1:5000", "127.0.0.1")
	f.Add("[::ffff:127.0.0.1]:1", "::ffff:203.0.113.9,,x")
	f.Add("[::1]:5000", "2001:db8::7, fe80::1%eth0")
	res := clientip.New(prefixes(f, "127.0.0.0/8", "::1/128", "10.0.0.0/8"))
	f.Fuzz(func(t *testing.T, remote, xff string) {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = remote
		r.Header.Set("X-Forwarded-For", xff)
		got := res.IP(r)
		peer := clientip.New(nil).IP(r)
		if got == peer {
			return
		}
		if !trustedAddr(res, peer) {
			t.Fatalf("IP = %q from the untrusted peer %q, want the peer", got, peer)
		}
		hops := strings.Split(xff, ",")
		for i := len(hops) - 1; i >= 0; i-- {
			a, err := clientip.ParseHop(strings.TrimSpace(hops[i]))
			if err != nil {
				break
			}
			if a.Unmap().String() == got {
				return
			}
			if !trustedAddr(res, a.Unmap().String()) {
				break
			}
		}
		t.Fatalf("IP = %q, neither the peer %q nor a hop reached through trusted ones in %q", got, peer, xff)
	})
}

// trustedAddr asks res whether ip is a trusted proxy: a request from it
// with a forwarded client answers that client.
func trustedAddr(res *clientip.Resolver, ip string) bool {
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = netip.AddrPortFrom(netip.MustParseAddr(ip), 1).String()
	r.Header.Set("X-Forwarded-For", "192.0.2.200")
	return res.IP(r) == "192.0.2.200"
}

// TestKey groups IPv6 addresses by their network (ERRATA_IPV6_PREFIX,
// default 64) and leaves IPv4 addresses as they are.
func TestKey(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		bits   int
		remote string
		want   string
	}{
		{0, "[2001:db8:1:2:3:4:5:6]:443", "2001:db8:1:2::/64"},
		{64, "[2001:db8:1:2:ffff::1]:443", "2001:db8:1:2::/64"},
		{48, "[2001:db8:1:2:3:4:5:6]:443", "2001:db8:1::/48"},
		{128, "[2001:db8::7]:443", "2001:db8::7/128"},
		{64, "[fe80::1%eth0]:443", "fe80::/64"},
		{64, "192.0.2.1:5000", "192.0.2.1"},
		{64, "[::ffff:192.0.2.1]:5000", "192.0.2.1"},
	} {
		res := clientip.New(nil)
		if tc.bits != 0 {
			res = res.WithIPv6Prefix(tc.bits)
		}
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = tc.remote
		if got := res.Key(r); got != tc.want {
			t.Errorf("/%d: Key(%s) = %s, want %s", tc.bits, tc.remote, got, tc.want)
		}
	}
	var none *clientip.Resolver
	if got := none.Group("2001:db8:1:2::9"); got != "2001:db8:1:2::/64" {
		t.Errorf("zero resolver: Group = %s, want the /64", got)
	}
}
