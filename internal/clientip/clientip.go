// Package clientip tells which address a request came from: the peer of
// the connection, or, when that peer is a trusted reverse proxy, the
// address the proxy reports in X-Forwarded-For. Rate limits and sign-in
// limits key on it, so a client must not be able to choose it.
package clientip

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// DefaultIPv6Prefix is how many leading bits of an IPv6 address name one
// caller by default: a /64 is what one subscriber or host is given, and it
// holds 2^64 addresses (CONTRACT 8, ERRATA_IPV6_PREFIX).
const DefaultIPv6Prefix = 64

// Resolver finds a request's client address. The zero Resolver trusts no
// proxy: the connection's peer is the client.
type Resolver struct {
	trusted []netip.Prefix
	ipv6    int // the IPv6 prefix length of Key; 0 means DefaultIPv6Prefix
}

// New returns a Resolver that believes X-Forwarded-For only from peers in
// trusted (ERRATA_TRUSTED_PROXIES).
func New(trusted []netip.Prefix) *Resolver { return &Resolver{trusted: trusted} }

// WithIPv6Prefix makes Key group IPv6 addresses by their network of bits
// leading bits (ERRATA_IPV6_PREFIX, 32 to 128) and returns res.
func (res *Resolver) WithIPv6Prefix(bits int) *Resolver {
	res.ipv6 = bits
	return res
}

// Key returns what rate limits keyed by client address count r under: its
// client address (IP) when IPv4, and its IPv6 network of the configured
// prefix length otherwise ("2001:db8:1:2::/64"), since a client holds a
// whole network of IPv6 addresses and could otherwise have a bucket for
// each.
func (res *Resolver) Key(r *http.Request) string { return res.Group(res.IP(r)) }

// Group returns the rate-limit key of a client address found by IP: see Key.
func (res *Resolver) Group(ip string) string {
	a, err := netip.ParseAddr(ip)
	if err != nil || !a.Is6() || a.Is4In6() {
		return ip
	}
	bits := DefaultIPv6Prefix
	if res != nil && res.ipv6 != 0 {
		bits = res.ipv6
	}
	p, err := a.WithZone("").Prefix(bits)
	if err != nil {
		return ip
	}
	return p.String()
}

// IP returns the client address of r. Behind trusted proxies it walks
// X-Forwarded-For from the right (the nearest hop) past every trusted
// address and returns the first one that is not trusted: entries further
// left were written by the client and prove nothing.
func (res *Resolver) IP(r *http.Request) string {
	peer := peerAddr(r.RemoteAddr)
	if res == nil || len(res.trusted) == 0 || !res.isTrusted(peer) {
		return peer
	}
	hops := r.Header.Values("X-Forwarded-For")
	client := peer
	for i := len(hops) - 1; i >= 0; i-- {
		parts := strings.Split(hops[i], ",")
		for j := len(parts) - 1; j >= 0; j-- {
			a, err := ParseHop(strings.TrimSpace(parts[j]))
			if err != nil {
				return client // a garbled hop: stop at the last address we can vouch for
			}
			client = a.Unmap().String()
			if !res.isTrusted(client) {
				return client
			}
		}
	}
	return client
}

// ParseHop reads one X-Forwarded-For entry: an address, or an address
// with a port as some proxies write it ("203.0.113.7:5120",
// "[2001:db8::7]:5120"), or a bracketed IPv6 address without one.
func ParseHop(hop string) (netip.Addr, error) {
	if a, err := netip.ParseAddr(hop); err == nil {
		return a, nil
	}
	if ap, err := netip.ParseAddrPort(hop); err == nil {
		return ap.Addr(), nil
	}
	return netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(hop, "["), "]"))
}

func (res *Resolver) isTrusted(ip string) bool {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return false
	}
	a = a.Unmap()
	for _, p := range res.trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// peerAddr is the host part of a connection's remote address.
func peerAddr(remote string) string {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		return remote
	}
	if a, err := netip.ParseAddr(host); err == nil {
		return a.Unmap().String()
	}
	return host
}
