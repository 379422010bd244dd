package sentry

import (
	"errors"
	"net/url"
	"strconv"
	"strings"
)

// DSN is the part of a Sentry DSN that authenticates a request:
// <scheme>://<key>@<host[:port]><base path>/<number> (CONTRACT 7).
type DSN struct {
	Key    string // the public key: an Errata API key
	Number int64  // the project's number
}

var errDSN = errors.New("sentry: not a DSN of the form <scheme>://<key>@<host>/<number>")

// ParseDSN reads a DSN, as SDKs are given it and as an envelope header may
// carry it. A legacy secret after the key ("key:secret@") is ignored.
func ParseDSN(s string) (DSN, error) {
	u, err := url.Parse(s)
	if err != nil || u.User == nil || u.User.Username() == "" || u.Host == "" {
		return DSN{}, errDSN
	}
	path := strings.TrimSuffix(u.Path, "/")
	n, err := strconv.ParseInt(path[strings.LastIndexByte(path, '/')+1:], 10, 64)
	if err != nil || n <= 0 {
		return DSN{}, errDSN
	}
	return DSN{Key: u.User.Username(), Number: n}, nil
}

// FormatDSN writes the DSN of a project for a base URL (ERRATA_BASE_URL, with
// any path, which SDKs put before /api/<number>/).
func FormatDSN(baseURL *url.URL, key string, number int64) string {
	return baseURL.Scheme + "://" + key + "@" + baseURL.Host + strings.TrimSuffix(baseURL.Path, "/") + "/" + strconv.FormatInt(number, 10)
}

// AuthKey returns the sentry_key of an X-Sentry-Auth header (or of an
// Authorization header in the same form), "Sentry sentry_version=7,
// sentry_client=…, sentry_key=<key>"; "" when it has none.
func AuthKey(header string) string {
	h := strings.TrimSpace(header)
	if len(h) >= 7 && strings.EqualFold(h[:7], "sentry ") {
		h = h[7:]
	}
	for _, part := range strings.Split(h, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if ok && strings.TrimSpace(k) == "sentry_key" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
