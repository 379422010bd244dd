package web

import (
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/errata-dev/errata/internal/httpserver"
)

// A server started without ERRATA_BASE_URL gives keys' DSNs and the links of
// emails and webhooks its listening address, http://127.0.0.1:8080 by
// default, which no other machine reaches (issue 29). The layout warns of it
// when the page was asked from elsewhere: from a client address that is not
// loopback, or through a host name that is not (a proxy on the same machine).

// unreachableBaseURL is the base URL when it names a loopback or unspecified
// address and r did not come from this machine through a loopback address;
// "" otherwise.
func (d *Dashboard) unreachableBaseURL(r *http.Request) string {
	u, err := url.Parse(d.baseURL)
	if err != nil || !localOnly(u.Hostname()) {
		return ""
	}
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if localOnly(strings.Trim(host, "[]")) && localOnly(httpserver.RemoteIP(r.Context())) {
		return ""
	}
	return d.baseURL
}

// localOnly reports whether host is localhost, a loopback address, or the
// unspecified address (0.0.0.0, ::), which only this machine can reach.
func localOnly(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	ip = ip.Unmap()
	return ip.IsLoopback() || ip.IsUnspecified()
}
