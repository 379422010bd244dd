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

// Resolver finds a request's client address. The zero Resolver trusts no
// proxy: the connection's peer is the client.
type Resolver struct {
	trusted []netip.Prefix
}

// New returns a Resolver that believes X-Forwarded-For only from peers in
// trusted (ERRATA_TRUSTED_PROXIES).
func New(trusted []netip.Prefix) *Resolver { return &Resolver{trusted: trusted} }

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
			a, err := netip.ParseAddr(strings.TrimSpace(parts[j]))
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
