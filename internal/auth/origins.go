package auth

import (
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"

	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/text"
)

// MaxAllowedOrigins is the most origins one key lists.
const MaxAllowedOrigins = 50

// maxOriginLen is the longest origin accepted.
const maxOriginLen = 300

// CheckOrigins checks a key's allowed_origins and returns them normalised
// (the scheme and host lower-cased, a default port dropped, duplicates
// removed, in their order): each is "*", every origin, or an origin as
// browsers send it, scheme://host[:port] with nothing after, whose host
// may start with "*." for every subdomain of the rest. A bad one is 422
// validation-failed naming allowed_origins[i].
func CheckOrigins(origins []string) ([]string, error) {
	if len(origins) > MaxAllowedOrigins {
		return nil, problem.Newf("validation-failed", "allowed_origins: at most %d origins", MaxAllowedOrigins)
	}
	for i, o := range origins { // control characters first, whatever else is wrong
		if err := text.Check(fmt.Sprintf("allowed_origins[%d]", i), o); err != nil {
			return nil, err
		}
	}
	out := make([]string, 0, len(origins))
	for i, o := range origins {
		n, ok := normalOrigin(strings.TrimSpace(o), true)
		if !ok {
			return nil, problem.Newf("validation-failed",
				"allowed_origins[%d]: %q is not an origin: want scheme://host[:port] with no path (https://app.example.com, https://*.example.com) or *", i, o)
		}
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out, nil
}

// OriginAllowed reports whether a request carrying the Origin header origin
// may use a key allowing allowed: always when the request has no Origin
// (a server SDK) or the key allows "*"; else when the origin is one of
// them, or a subdomain of a "*." entry's domain.
func OriginAllowed(allowed []string, origin string) bool {
	if origin == "" || slices.Contains(allowed, "*") {
		return true
	}
	o, ok := normalOrigin(origin, false)
	if !ok {
		return false
	}
	for _, a := range allowed {
		if a == o {
			return true
		}
		scheme, rest, found := strings.Cut(a, "://*.")
		if found && strings.HasPrefix(o, scheme+"://") {
			host := strings.TrimPrefix(o, scheme+"://")
			if strings.HasSuffix(host, "."+rest) {
				return true
			}
		}
	}
	return false
}

// normalOrigin returns origin as scheme://host[:port], lower-case and
// without a default port, when it is one ("*" too, and a "*." host, when
// pattern).
func normalOrigin(origin string, pattern bool) (string, bool) {
	if pattern && origin == "*" {
		return origin, true
	}
	if len(origin) == 0 || len(origin) > maxOriginLen {
		return "", false
	}
	wild := false
	if pattern {
		if scheme, rest, ok := strings.Cut(origin, "://*."); ok {
			origin, wild = scheme+"://"+rest, true
		}
	}
	u, err := url.Parse(origin)
	if err != nil || u.Scheme == "" || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" ||
		u.ForceQuery || (u.Path != "" && u.Path != "/") || u.Opaque != "" {
		return "", false
	}
	host, port := u.Hostname(), u.Port()
	if host == "" || strings.ContainsAny(host, "*%") || (wild && !strings.Contains(host, ".")) {
		return "", false
	}
	scheme := strings.ToLower(u.Scheme)
	if (scheme == "https" && port == "443") || (scheme == "http" && port == "80") {
		port = ""
	}
	host = strings.ToLower(host)
	if wild {
		host = "*." + host
	}
	if strings.Contains(host, ":") { // IPv6
		host = "[" + host + "]"
	}
	if port != "" {
		host = net.JoinHostPort(strings.Trim(host, "[]"), port)
	}
	return scheme + "://" + host, true
}
