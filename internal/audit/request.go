// Package audit records who did what in an organization (CONTRACT 8: the
// audit log) and carries, in a request's context, the client and actor
// every entry and every new session names.
package audit

import (
	"context"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Request is what an entry knows of the request that made it: the client's
// address and user agent, and the signed-in user once authentication has
// found one. The HTTP layer puts one in every request's context and fills
// in the actor after authenticating.
type Request struct {
	IP, UserAgent string
	// UserID and Email name the actor; empty before authentication and
	// for requests nobody signed (a failed sign-in names its own).
	UserID, Email string
}

type requestKey struct{}

// WithRequest returns ctx carrying r.
func WithRequest(ctx context.Context, r *Request) context.Context {
	return context.WithValue(ctx, requestKey{}, r)
}

// From returns the Request of ctx: an empty one outside a request (the
// command line, workers).
func From(ctx context.Context) *Request {
	if r, ok := ctx.Value(requestKey{}).(*Request); ok {
		return r
	}
	return &Request{}
}

// maxUserAgent bounds the user agent kept in sessions and entries.
const maxUserAgent = 512

// Agent makes a User-Agent header what is kept: valid UTF-8 without control
// characters (a NUL would not even reach PostgreSQL), at most 512 bytes.
func Agent(ua string) string {
	ua = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return -1
		}
		return r
	}, strings.ToValidUTF8(ua, ""))
	if len(ua) <= maxUserAgent {
		return ua
	}
	n := maxUserAgent // cut on a rune boundary
	for n > 0 && !utf8.RuneStart(ua[n]) {
		n--
	}
	return ua[:n]
}
