package httpserver

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/danielgtaylor/huma/v2"

	"github.com/errata-dev/errata/internal/problem"
)

// DocumentRateLimits adds to every /v1 operation's answers in the OpenAPI
// document the headers the server sends with them (interface §8): the
// RateLimit-* headers of the bucket the request spent on every answer, and
// Retry-After on a 429 and a 503. Call it once every /v1 operation is
// registered.
func (s *Server) DocumentRateLimits() {
	integer := func(doc string, min float64) *huma.Param {
		return &huma.Param{Description: doc, Required: true, Schema: &huma.Schema{Type: huma.TypeInteger, Minimum: &min}}
	}
	limits := map[string]*huma.Param{
		"RateLimit-Limit":     integer("The requests the bucket this request spent holds when full", 1),
		"RateLimit-Remaining": integer("The requests left in that bucket", 0),
		"RateLimit-Reset":     integer("Seconds until that bucket is full again", 0),
	}
	retry := integer("Seconds to wait before resending the same request", 1)
	challenge := &huma.Param{Description: "The scheme the request should authenticate with: " + problem.Challenge + " (RFC 9110, 15.5.2)",
		Required: true, Schema: &huma.Schema{Type: huma.TypeString}}
	for path, item := range s.api.OpenAPI().Paths {
		if !strings.HasPrefix(path, "/v1/") {
			continue
		}
		for _, op := range []*huma.Operation{item.Get, item.Post, item.Put, item.Patch, item.Delete} {
			if op == nil {
				continue
			}
			for code, r := range op.Responses {
				// Responses may be shared between operations: each gets
				// a copy with headers of its own.
				c := *r
				c.Headers = map[string]*huma.Param{}
				for k, v := range r.Headers {
					c.Headers[k] = v
				}
				for k, v := range limits {
					c.Headers[k] = v
				}
				switch n, _ := strconv.Atoi(code); n {
				case http.StatusTooManyRequests, http.StatusServiceUnavailable:
					c.Headers["Retry-After"] = retry
				case http.StatusUnauthorized:
					c.Headers["WWW-Authenticate"] = challenge
				}
				op.Responses[code] = &c
			}
		}
	}
}
