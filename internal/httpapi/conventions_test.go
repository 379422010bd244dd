package httpapi_test

import (
	"context"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/danielgtaylor/huma/v2"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/config"
	"github.com/errata-dev/errata/internal/httpserver"
)

var (
	reqIDRe     = regexp.MustCompile(`^req_[0-9a-hjkmnp-tv-z]{26}$`)
	timestampRe = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$`)
)

func TestEveryAnswerHasRequestIDAndRateLimitHeaders(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		a := s.SignUp(t, "h@example.com")
		for _, r := range []apitest.Request{
			{Method: "GET", Path: "/v1/orgs", Token: a.Token},
			{Method: "GET", Path: "/v1/orgs"},
			{Method: "GET", Path: "/v1/no-such-route"},
			{Method: "DELETE", Path: "/v1/orgs"},
			{Method: "GET", Path: "/v1/openapi.json"},
			{Method: "GET", Path: "/docs/errors/not-found"},
		} {
			res := s.Do(r)
			if id := res.Header.Get(httpserver.RequestIDHeader); !reqIDRe.MatchString(id) {
				t.Errorf("%s %s: Request-Id = %q, want req_…", r.Method, r.Path, id)
			}
			for _, h := range []string{"RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset"} {
				if res.Header.Get(h) == "" {
					t.Errorf("%s %s: no %s header", r.Method, r.Path, h)
				}
			}
			if res.Status >= 400 {
				p := res.JSON(t)
				if p["instance"] != res.Header.Get(httpserver.RequestIDHeader) {
					t.Errorf("%s %s: instance = %v, want the Request-Id %s", r.Method, r.Path, p["instance"], res.Header.Get(httpserver.RequestIDHeader))
				}
				if !strings.HasPrefix(p["type"].(string), s.Config.DocsURL+"/errors/") {
					t.Errorf("%s %s: type = %v, want under %s/errors/", r.Method, r.Path, p["type"], s.Config.DocsURL)
				}
			}
		}
	})
}

func TestMalformedAndOversizedBodies(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		a := s.SignUp(t, "b@example.com")
		s.Do(apitest.Request{Method: "POST", Path: "/v1/orgs", Token: a.Token, Body: `{"name": "x"`}).Expect(t, http.StatusBadRequest, "malformed-body")
		s.Do(apitest.Request{Method: "POST", Path: "/v1/orgs", Token: a.Token, Body: `["not", "an", "object"]`}).Expect(t, http.StatusUnprocessableEntity, "validation-failed")
		big := `{"name":"x","pad":"` + strings.Repeat("a", 1<<20) + `"}`
		s.Do(apitest.Request{Method: "POST", Path: "/v1/orgs", Token: a.Token, Body: big}).Expect(t, http.StatusRequestEntityTooLarge, "payload-too-large")
		r := s.Do(apitest.Request{Method: "POST", Path: "/v1/orgs", Token: a.Token, Body: map[string]any{"name": "Acme", "unknown_field": 1}}).
			Expect(t, http.StatusCreated, "")
		o := r.JSON(t)
		if !strings.HasPrefix(o["id"].(string), "org_") || !timestampRe.MatchString(o["created_at"].(string)) {
			t.Fatalf("org = %v, want org_ id and a millisecond UTC timestamp", o)
		}
		s.Do(apitest.Request{Method: "POST", Path: "/v1/orgs", Token: a.Token, Body: "name=x", Headers: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}}).
			Expect(t, http.StatusUnsupportedMediaType, "unsupported-media-type")
	})
}

func TestPanicIsInternalProblemWithoutDetails(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		huma.Register(s.App.HTTP.API(), huma.Operation{Method: "GET", Path: "/v1/test-panic", Metadata: map[string]any{"access": httpserver.Access{Public: true}}},
			func(context.Context, *struct{}) (*struct{}, error) { panic("secret internal state") })
		r := s.Do(apitest.Request{Method: "GET", Path: "/v1/test-panic"}).Expect(t, http.StatusInternalServerError, "internal")
		if strings.Contains(string(r.Body), "secret") {
			t.Fatalf("panic value leaked: %s", r.Body)
		}
	})
}

func TestCallerRateLimit(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		for i := 0; i < 3; i++ {
			s.Do(apitest.Request{Method: "GET", Path: "/v1/openapi.json"}).Expect(t, http.StatusOK, "")
		}
		r := s.Do(apitest.Request{Method: "GET", Path: "/v1/openapi.json"}).Expect(t, http.StatusTooManyRequests, "rate-limited")
		if r.Header.Get("Retry-After") == "" || r.Header.Get("RateLimit-Remaining") != "0" {
			t.Fatalf("headers = %v, want Retry-After and RateLimit-Remaining 0", r.Header)
		}
	}, func(c *config.Serve) { c.APIRateLimit, c.APIRateBurst = 0.001, 3 })
}

func TestSignInFailuresAreRateLimited(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		s.SignUp(t, "victim@example.com")
		wrong := apitest.Request{Method: "POST", Path: "/v1/auth/sign-in/email", Body: map[string]any{"email": "victim@example.com", "password": "guess guess"}}
		for i := 0; i < 10; i++ {
			s.Do(wrong).Expect(t, http.StatusUnauthorized, "invalid-credentials")
		}
		r := s.Do(wrong).Expect(t, http.StatusTooManyRequests, "rate-limited")
		if r.Header.Get("Retry-After") == "" {
			t.Fatal("429 without Retry-After")
		}
		right := apitest.Request{Method: "POST", Path: "/v1/auth/sign-in/email", Body: map[string]any{"email": "victim@example.com", "password": apitest.Password}}
		s.Do(right).Expect(t, http.StatusTooManyRequests, "rate-limited")
	})
}

func TestCookieSessionAndCrossOriginProtection(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		res := s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/sign-up/email", Body: map[string]any{"email": "c@example.com", "password": apitest.Password, "name": "C"}}).
			Expect(t, http.StatusOK, "")
		var cookie *http.Cookie
		for _, c := range (&http.Response{Header: res.Header}).Cookies() {
			if c.Name == httpserver.SessionCookie {
				cookie = c
			}
		}
		if cookie == nil || !cookie.HttpOnly || cookie.SameSite != http.SameSiteLaxMode {
			t.Fatalf("session cookie = %+v, want HttpOnly SameSite=Lax", cookie)
		}
		jar := []*http.Cookie{{Name: cookie.Name, Value: cookie.Value}}
		body := map[string]any{"name": "Acme"}
		s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs", Cookies: jar, Headers: map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}}).
			Expect(t, http.StatusOK, "")
		s.Do(apitest.Request{Method: "POST", Path: "/v1/orgs", Cookies: jar, Body: body, Headers: map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}}).
			Expect(t, http.StatusForbidden, "csrf-origin-rejected")
		s.Do(apitest.Request{Method: "POST", Path: "/v1/orgs", Cookies: jar, Body: body, Headers: map[string]string{"Origin": "https://evil.example"}}).
			Expect(t, http.StatusForbidden, "csrf-origin-rejected")
		// Neither Origin nor Sec-Fetch-Site, as no browser sends a POST: not
		// from the web application, unless its Referer is.
		s.Do(apitest.Request{Method: "POST", Path: "/v1/orgs", Cookies: jar, Body: body}).Expect(t, http.StatusForbidden, "csrf-origin-rejected")
		s.Do(apitest.Request{Method: "POST", Path: "/v1/orgs", Cookies: jar, Body: body, Headers: map[string]string{"Referer": "https://evil.example/x"}}).
			Expect(t, http.StatusForbidden, "csrf-origin-rejected")
		s.Do(apitest.Request{Method: "POST", Path: "/v1/orgs", Cookies: jar, Body: body, Headers: map[string]string{"Referer": s.URL + "/orgs"}}).
			Expect(t, http.StatusCreated, "")
		s.Do(apitest.Request{Method: "POST", Path: "/v1/orgs", Cookies: jar, Body: body, Headers: map[string]string{"Origin": s.URL, "Sec-Fetch-Site": "same-origin"}}).
			Expect(t, http.StatusCreated, "")
		// A script with a bearer token is not a browser: no origin check.
		s.Do(apitest.Request{Method: "POST", Path: "/v1/orgs", Token: res.Str(t, "token"), Body: body, Headers: map[string]string{"Origin": "https://evil.example"}}).
			Expect(t, http.StatusCreated, "")
		out := s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/sign-out", Cookies: jar, Headers: map[string]string{"Sec-Fetch-Site": "same-origin"}}).
			Expect(t, http.StatusNoContent, "")
		if !strings.Contains(out.Header.Get("Set-Cookie"), "Max-Age=0") {
			t.Fatalf("sign-out Set-Cookie = %q, want the cookie cleared", out.Header.Get("Set-Cookie"))
		}
		s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs", Cookies: jar}).Expect(t, http.StatusUnauthorized, "unauthorized")
	})
}
