package sentryhttp_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/config"
	"github.com/errata-dev/errata/internal/sentry"
)

// TestSentryAuth sends an event with the key in each of the three places
// SDKs put it, and checks every way a key can fail: the same 403 with the
// same detail, whatever the reason.
func TestSentryAuth(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		dsn, err := sentry.ParseDSN(w.dsn)
		if err != nil || dsn.Key != w.key || dsn.Number != w.number {
			t.Fatalf("key creation's dsn %q reads as %+v, %v; want key %s and number %d", w.dsn, dsn, err, w.key, w.number)
		}
		if want := sentry.FormatDSN(mustURL(t, s.URL), w.key, w.number); w.dsn != want {
			t.Errorf("dsn %q, want %q (from the base URL)", w.dsn, want)
		}

		const id1, id2, id3 = "0a1b2c3d4e5f60718293a4b5c6d7e8f9", "1a1b2c3d4e5f60718293a4b5c6d7e8f9", "2a1b2c3d4e5f60718293a4b5c6d7e8f9"
		for _, tt := range []struct {
			name, path, id string
			body           []byte
			headers        []string
		}{
			{"query", withKey(w.envelopePath, w.key), id1, eventEnvelope(id1, "by query"), nil},
			{"header", w.envelopePath, id2, eventEnvelope(id2, "by header"), []string{"X-Sentry-Auth", authHeader(w.key)}},
			{"envelope dsn", w.envelopePath, id3, envelope(fmt.Sprintf(`{"event_id":%q,"dsn":%q}`, id3, w.dsn), "event", `{"message":"by dsn"}`), nil},
		} {
			a := w.send(t, tt.path, tt.body, tt.headers...).expect(t, http.StatusOK)
			if got := a.json(t)["id"]; got != tt.id {
				t.Errorf("%s: answered id %v, want %s", tt.name, got, tt.id)
			}
		}
		// An envelope sent to the store endpoint as such authenticates
		// itself too.
		w.send(t, w.storePath, envelope(fmt.Sprintf(`{"dsn":%q}`, w.dsn), "event", `{"message":"stored envelope by dsn"}`),
			"Content-Type", "application/x-sentry-envelope").expect(t, http.StatusOK)
		groups := w.groups(t)
		for _, title := range []string{"by query", "by header", "by dsn", "stored envelope by dsn"} {
			g, ok := groups[title]
			if !ok {
				t.Errorf("no group %q; groups %v", title, keys(groups))
				continue
			}
			if g["service"] != "shop" {
				t.Errorf("group %q: service %v, want the project's name", title, g["service"])
			}
		}

		// Every failure answers alike.
		revokedID, revoked := s.CreateKey(t, w.token, w.projectID)
		s.Do(apitest.Request{Method: "DELETE", Path: "/v1/keys/" + revokedID, Token: w.token}).Expect(t, http.StatusNoContent, "")
		otherDSN := sentry.FormatDSN(mustURL(t, s.URL), w.otherKey, w.otherNumber)
		body := eventEnvelope(id1, "refused")
		var details []string
		for _, tt := range []struct {
			name, path string
			body       []byte
			headers    []string
		}{
			{"no key", w.envelopePath, body, nil},
			{"unknown key", withKey(w.envelopePath, "svc_live_01jdunknownkey000000000000_abcdefghijklmnopqrstuvwxyz234567"), body, nil},
			{"not a key", withKey(w.envelopePath, "abc"), body, nil},
			{"revoked key", withKey(w.envelopePath, revoked), body, nil},
			{"key of another project", withKey(w.envelopePath, w.otherKey), body, nil},
			{"header key of another project", w.envelopePath, body, []string{"X-Sentry-Auth", authHeader(w.otherKey)}},
			{"dsn of another project", w.envelopePath, envelope(fmt.Sprintf(`{"dsn":%q}`, otherDSN), "event", `{"message":"m"}`), nil},
			{"dsn naming another number", w.envelopePath, envelope(fmt.Sprintf(`{"dsn":%q}`, sentry.FormatDSN(mustURL(t, s.URL), w.key, w.otherNumber)), "event", `{"message":"m"}`), nil},
			{"number that is no project", withKey("/api/99999/envelope/", w.key), body, nil},
			{"number that is not a number", withKey("/api/shop/envelope/", w.key), body, nil},
			{"store without a key", w.storePath, []byte(`{"message":"m"}`), nil},
		} {
			a := w.send(t, tt.path, tt.body, tt.headers...)
			if a.status != http.StatusForbidden {
				t.Errorf("%s: status %d, want 403: %s", tt.name, a.status, a.body)
				continue
			}
			a.expect(t, http.StatusForbidden)
			details = append(details, a.json(t)["detail"].(string))
		}
		for _, d := range details[1:] {
			if d != details[0] {
				t.Errorf("403 details differ, telling which part failed: %q and %q", details[0], d)
			}
		}
		if n := len(w.groups(t)); n != 4 {
			t.Errorf("%d groups after refused requests, want 4", n)
		}
		if v := w.metric(t, `errata_ingest_refused_requests_total{reason="unauthorized",route="sentry"}`); v != "11" {
			t.Errorf("refused unauthorized Sentry requests counted %q, want 11", v)
		}
	})
}

// TestSentryCORS checks the preflight browsers send before a request with
// extra headers, and that answers can be read from any origin.
func TestSentryCORS(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		for _, path := range []string{w.envelopePath, w.storePath, strings.TrimSuffix(w.envelopePath, "/")} {
			req, err := http.NewRequest(http.MethodOptions, s.URL+path+"?sentry_key=x", nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Origin", "https://shop.example.com")
			req.Header.Set("Access-Control-Request-Method", "POST")
			req.Header.Set("Access-Control-Request-Headers", "content-type,sentry-trace,baggage,x-sentry-auth")
			a := w.do(t, req)
			if a.status != http.StatusOK {
				t.Fatalf("OPTIONS %s: %d %s", path, a.status, a.body)
			}
			h := a.header
			if h.Get("Access-Control-Allow-Origin") != "*" || !strings.Contains(h.Get("Access-Control-Allow-Methods"), "POST") {
				t.Errorf("OPTIONS %s: origin %q, methods %q", path, h.Get("Access-Control-Allow-Origin"), h.Get("Access-Control-Allow-Methods"))
			}
			// Another method is 405, readable by a script like every answer.
			put, _ := http.NewRequest(http.MethodPut, s.URL+path+"?sentry_key=x", nil)
			if a := w.do(t, put); a.status != http.StatusMethodNotAllowed || a.header.Get("Access-Control-Allow-Origin") != "*" || a.header.Get("Allow") == "" {
				t.Errorf("PUT %s: %d, origin %q, Allow %q; want 405 with CORS and Allow", path, a.status, a.header.Get("Access-Control-Allow-Origin"), a.header.Get("Allow"))
			} else if a.header.Get("RateLimit-Limit") == "" || h.Get("RateLimit-Limit") == "" {
				// Every answer carries the RateLimit-* headers (interface section 8).
				t.Errorf("%s: RateLimit-Limit %q on the preflight, %q on PUT; want both", path, h.Get("RateLimit-Limit"), a.header.Get("RateLimit-Limit"))
			}
			allowed := strings.ToLower(h.Get("Access-Control-Allow-Headers"))
			for _, name := range []string{"content-type", "sentry-trace", "baggage", "x-sentry-auth", "content-encoding"} {
				if !strings.Contains(allowed, name) {
					t.Errorf("OPTIONS %s: %s not allowed (%q)", path, name, allowed)
				}
			}
		}
		// A browser SDK's request: key in the query, text/plain.
		a := w.send(t, withKey(w.envelopePath, w.key), eventEnvelope("3a1b2c3d4e5f60718293a4b5c6d7e8f9", "from a browser"),
			"Content-Type", "text/plain;charset=UTF-8", "Origin", "https://shop.example.com").expect(t, http.StatusOK)
		exposed := strings.ToLower(a.header.Get("Access-Control-Expose-Headers"))
		for _, name := range []string{"x-sentry-rate-limits", "retry-after"} {
			if !strings.Contains(exposed, name) {
				t.Errorf("answers do not expose %s to scripts (%q)", name, exposed)
			}
		}
		// Without the trailing slash, as some proxies rewrite it.
		w.send(t, withKey(strings.TrimSuffix(w.envelopePath, "/"), w.key), eventEnvelope("4a1b2c3d4e5f60718293a4b5c6d7e8f9", "no slash")).expect(t, http.StatusOK)
		w.send(t, withKey(w.envelopePath, w.key)+"x", nil).expect(t, http.StatusForbidden) // sentry_key=<key>x
		if got := w.send(t, "/api/1/envelope/extra", nil); got.status != http.StatusNotFound {
			t.Errorf("a path under the endpoint: %d, want 404", got.status)
		}
	})
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestOtherMethodPastTheCallerBucket: another method on the ingestion
// endpoints spends a token of the caller's bucket; past it, the answer is
// a 429 with Retry-After (interface section 8), with CORS, not a 405.
func TestOtherMethodPastTheCallerBucket(t *testing.T) {
	s := apitest.Start(t, "sqlite", func(c *config.Serve) { c.APIRateLimit, c.APIRateBurst = 0.001, 1 })
	put := func() (*http.Response, error) {
		req, _ := http.NewRequest(http.MethodPut, s.URL+"/api/1/envelope/", nil)
		return http.DefaultClient.Do(req)
	}
	for i, want := range []int{http.StatusMethodNotAllowed, http.StatusTooManyRequests} {
		res, err := put()
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != want || res.Header.Get("Access-Control-Allow-Origin") != "*" || want == http.StatusTooManyRequests && res.Header.Get("Retry-After") == "" {
			t.Fatalf("PUT %d: %d, headers %v; want %d with CORS (and Retry-After on a 429)", i+1, res.StatusCode, res.Header, want)
		}
	}
}
