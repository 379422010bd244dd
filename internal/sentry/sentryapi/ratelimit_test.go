package sentryapi_test

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/config"
)

// TestWebAPIRateLimit: /api/0/ takes the management API's per-caller
// limit (a token's bucket, shared with /v1), answering 429 in Sentry's
// shape with Retry-After; another caller is not held back.
func TestWebAPIRateLimit(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		tok := token(t, s, w.Member.Token, "project:releases")
		other := token(t, s, w.Member.Token, "project:read")
		info := func(tok string) *apitest.Response {
			return s.Do(apitest.Request{Method: "GET", Path: "/api/0/", Token: tok})
		}
		var last *apitest.Response
		for range 40 {
			if last = info(tok); last.Status != http.StatusOK {
				break
			}
		}
		if last.Status != http.StatusTooManyRequests {
			t.Fatalf("after 40 requests with a burst of 30: %d %s", last.Status, last.Body)
		}
		if n, err := strconv.Atoi(last.Header.Get("Retry-After")); err != nil || n < 1 {
			t.Errorf("Retry-After = %q", last.Header.Get("Retry-After"))
		}
		if d, _ := last.JSON(t)["detail"].(string); d == "" {
			t.Errorf("429 body = %s, want Sentry's {\"detail\"}", last.Body)
		}
		s.Do(apitest.Request{Method: "GET", Path: "/v1/auth/tokens", Token: tok}).Expect(t, http.StatusTooManyRequests, "rate-limited")
		if r := info(other); r.Status != http.StatusOK || r.Header.Get("RateLimit-Limit") != "30" {
			t.Errorf("another token: %d, RateLimit-Limit %q", r.Status, r.Header.Get("RateLimit-Limit"))
		}
	}, func(c *config.Serve) { c.APIRateLimit, c.APIRateBurst = 0.001, 30 })
}
