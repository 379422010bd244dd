package httpapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/config"
)

// trustLoopback makes the test client (127.0.0.1) a trusted reverse proxy.
func trustLoopback(c *config.Serve) { c.TrustedProxies = []string{"127.0.0.1/32"} }

// signInAs sends a wrong password for email, as forwarded for xff.
func signInAs(t *testing.T, s *apitest.Server, email, xff string) *apitest.Response {
	t.Helper()
	return s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/sign-in/email",
		Body:    map[string]any{"email": email, "password": "wrong password"},
		Headers: map[string]string{"X-Forwarded-For": xff}})
}

// expectAddressLimited checks a 429 of the per-address sign-in limit.
func expectAddressLimited(t *testing.T, r *apitest.Response) {
	t.Helper()
	r.Expect(t, http.StatusTooManyRequests, "rate-limited")
	if d := r.Str(t, "detail"); !strings.Contains(d, "from this address") {
		t.Fatalf("detail %q, want the per-address limit", d)
	}
}

// TestSpoofedForwardedForIsIgnored: with no trusted proxy (the default), a
// client that makes up a new X-Forwarded-For for every wrong password still
// spends its own address's 50 failures: the 51st is refused.
func TestSpoofedForwardedForIsIgnored(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		for i := 0; i < 50; i++ {
			signInAs(t, s, fmt.Sprintf("u%d@example.com", i), fmt.Sprintf("203.0.113.%d", i)).Expect(t, http.StatusUnauthorized, "invalid-credentials")
		}
		expectAddressLimited(t, signInAs(t, s, "u50@example.com", "198.51.100.1"))
	})
}

// TestTrustedProxyForwardsTheClientAddress: behind a trusted proxy the
// forwarded address is the one limited. 51 clients failing once each are
// not limited; one client failing 51 times is, whatever hops it writes
// left of itself, and another client through the same proxy is not.
func TestTrustedProxyForwardsTheClientAddress(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		for i := 0; i <= 50; i++ {
			signInAs(t, s, fmt.Sprintf("u%d@example.com", i), fmt.Sprintf("203.0.113.%d", i)).Expect(t, http.StatusUnauthorized, "invalid-credentials")
		}
		for i := 0; i < 50; i++ {
			signInAs(t, s, fmt.Sprintf("f%d@example.com", i), "198.51.100.7").Expect(t, http.StatusUnauthorized, "invalid-credentials")
		}
		expectAddressLimited(t, signInAs(t, s, "f50@example.com", "198.51.100.7"))
		expectAddressLimited(t, signInAs(t, s, "f51@example.com", "192.0.2.99, 198.51.100.7"))
		signInAs(t, s, "g@example.com", "198.51.100.8").Expect(t, http.StatusUnauthorized, "invalid-credentials")
	}, trustLoopback)
}

// TestForwardedForAndCallerLimits: the management API's per-caller limit of
// anonymous callers and ingestion's address bucket (requests refused before
// their project is known) key on the same client address: the peer unless
// it is a trusted proxy.
func TestForwardedForAndCallerLimits(t *testing.T) {
	const burst = 3
	small := func(c *config.Serve) { c.APIRateLimit, c.APIRateBurst = 0.001, burst }
	get := func(s *apitest.Server, xff string) *apitest.Response {
		return s.Do(apitest.Request{Method: "GET", Path: "/v1/openapi.json", Headers: map[string]string{"X-Forwarded-For": xff}})
	}
	// remaining is what the address bucket has left after a bad-key ingest.
	remaining := func(t *testing.T, s *apitest.Server, xff string) string {
		t.Helper()
		r := s.Do(apitest.Request{Method: "POST", Path: "/v1/ingest", Token: "svc_live_" + strings.Repeat("x", 32), Body: map[string]any{"events": []any{}},
			Headers: map[string]string{"X-Forwarded-For": xff}}).Expect(t, http.StatusUnauthorized, "")
		return r.Header.Get("RateLimit-Remaining")
	}

	t.Run("untrusted", func(t *testing.T) {
		apitest.Each(t, func(t *testing.T, s *apitest.Server) {
			if a, b := remaining(t, s, "203.0.113.1"), remaining(t, s, "203.0.113.2"); a != "2" || b != "1" {
				t.Fatalf("bad-key ingests from two spoofed addresses left %s then %s, want 2 then 1 (one bucket)", a, b)
			}
			get(s, "203.0.113.3").Expect(t, http.StatusOK, "")
			get(s, "203.0.113.4").Expect(t, http.StatusTooManyRequests, "rate-limited")
		}, small)
	})
	t.Run("trusted", func(t *testing.T) {
		apitest.Each(t, func(t *testing.T, s *apitest.Server) {
			if a, b := remaining(t, s, "203.0.113.1"), remaining(t, s, "203.0.113.2"); a != "2" || b != "2" {
				t.Fatalf("bad-key ingests from two forwarded addresses left %s and %s, want 2 each (a bucket each)", a, b)
			}
			for i := 0; i < 2*burst; i++ {
				get(s, fmt.Sprintf("198.51.100.%d", i)).Expect(t, http.StatusOK, "")
			}
			for i := 0; i < burst-1; i++ {
				get(s, "203.0.113.1").Expect(t, http.StatusOK, "")
			}
			get(s, "203.0.113.1").Expect(t, http.StatusTooManyRequests, "rate-limited")
			get(s, "203.0.113.2").Expect(t, http.StatusOK, "")
		}, small, trustLoopback)
	})
}

// TestIPv6NetworkIsOneCaller: limits keyed by client address count an IPv6
// address by its /64 (ERRATA_IPV6_PREFIX, CONTRACT 8): a client that takes a
// new address of its network for every request still spends one bucket,
// while another /64 has its own; with a prefix of 48 the neighbouring /64
// shares it too.
func TestIPv6NetworkIsOneCaller(t *testing.T) {
	limit := func(c *config.Serve) { c.APIRateLimit, c.APIRateBurst = 0.001, 5 }
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		for i := 1; i <= 5; i++ {
			signInAs(t, s, "a@example.com", fmt.Sprintf("2001:db8:1:2::%x", i)).Expect(t, http.StatusUnauthorized, "invalid-credentials")
		}
		signInAs(t, s, "a@example.com", "2001:db8:1:2:ffff:ffff:ffff:fffe").Expect(t, http.StatusTooManyRequests, "rate-limited")
		signInAs(t, s, "a@example.com", "2001:db8:1:3::1").Expect(t, http.StatusUnauthorized, "invalid-credentials")
		signInAs(t, s, "a@example.com", "198.51.100.9").Expect(t, http.StatusUnauthorized, "invalid-credentials")
	}, trustLoopback, limit)
	s := apitest.Start(t, "sqlite", trustLoopback, limit, func(c *config.Serve) { c.IPv6Prefix = 48 })
	for i := 1; i <= 5; i++ {
		signInAs(t, s, "a@example.com", fmt.Sprintf("2001:db8:1:%x::1", i)).Expect(t, http.StatusUnauthorized, "invalid-credentials")
	}
	signInAs(t, s, "a@example.com", "2001:db8:1:ff::1").Expect(t, http.StatusTooManyRequests, "rate-limited")
}
