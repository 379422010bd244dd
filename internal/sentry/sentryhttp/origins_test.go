package sentryhttp_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
)

// origins reads a key object's allowed_origins.
func origins(t *testing.T, r *apitest.Response) []string {
	t.Helper()
	raw, ok := r.JSON(t)["allowed_origins"].([]any)
	if !ok {
		t.Fatalf("no allowed_origins list in %s", r.Body)
	}
	out := make([]string, len(raw))
	for i, v := range raw {
		out[i], _ = v.(string)
	}
	return out
}

// TestKeyAllowedOrigins: a key's allowed_origins (default ["*"]) are set at
// creation or with PATCH /v1/keys/{key_id}, normalised, shown on the key,
// refused with 422 naming the entry when malformed; a Sentry request whose
// Origin header is not among them is 403, with the key in the query, in
// X-Sentry-Auth or in the envelope's DSN, while requests without Origin
// (server SDKs) and from the listed origins pass (CONTRACT 8).
func TestKeyAllowedOrigins(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		keys := "/v1/projects/" + w.projectID + "/keys"
		if got := origins(t, s.Do(apitest.Request{Method: "POST", Path: keys, Token: w.token, Body: map[string]any{"name": "any"}}).
			Expect(t, http.StatusCreated, "")); !slices.Equal(got, []string{"*"}) {
			t.Errorf("default allowed_origins %q, want [*]", got)
		}
		r := s.Do(apitest.Request{Method: "POST", Path: keys, Token: w.token, Body: map[string]any{"name": "browser",
			"allowed_origins": []string{"https://App.Example.com:443", "https://*.example.org"}}}).Expect(t, http.StatusCreated, "")
		if got := origins(t, r); !slices.Equal(got, []string{"https://app.example.com", "https://*.example.org"}) {
			t.Errorf("allowed_origins %q, want them normalised", got)
		}
		browserID, browserKey := r.Str(t, "id"), r.Str(t, "key")
		bad := s.Do(apitest.Request{Method: "POST", Path: keys, Token: w.token, Body: map[string]any{"name": "x",
			"allowed_origins": []string{"https://ok.example.com", "https://example.com/path"}}}).Expect(t, http.StatusUnprocessableEntity, "validation-failed")
		if d := bad.Str(t, "detail"); !strings.HasPrefix(d, "allowed_origins[1]: ") {
			t.Errorf("detail %q does not name allowed_origins[1]", d)
		}

		path := withKey(w.envelopePath, browserKey)
		ev := func(msg string) []byte { return eventEnvelope("", msg) }
		w.send(t, path, ev("from the app"), "Origin", "https://app.example.com").expect(t, http.StatusOK)
		w.send(t, path, ev("from a subdomain"), "Origin", "https://shop.example.org").expect(t, http.StatusOK)
		w.send(t, path, ev("from a server"), "X-Sentry-Auth", authHeader(browserKey)).expect(t, http.StatusOK)
		a := w.send(t, path, ev("from elsewhere"), "Origin", "https://evil.example.net").expect(t, http.StatusForbidden)
		if d := a.json(t)["detail"].(string); !strings.Contains(d, "allowed_origins") {
			t.Errorf("403 detail %q does not say why", d)
		}
		w.send(t, w.envelopePath, ev("from elsewhere, header key"), "X-Sentry-Auth", authHeader(browserKey), "Origin", "https://evil.example.net").expect(t, http.StatusForbidden)
		dsn := strings.Replace(w.dsn, w.key, browserKey, 1)
		w.send(t, w.envelopePath, envelope(fmt.Sprintf(`{"dsn":%q}`, dsn), "event", `{"message":"from elsewhere, dsn"}`), "Origin", "https://evil.example.net").expect(t, http.StatusForbidden)
		w.send(t, withKey(w.envelopePath, w.key), ev("any origin for the default key"), "Origin", "https://evil.example.net").expect(t, http.StatusOK)

		// PATCH renames and replaces the origins; the key object shows them.
		r = s.Do(apitest.Request{Method: "PATCH", Path: "/v1/keys/" + browserID, Token: w.token, Body: map[string]any{"allowed_origins": []string{"https://evil.example.net"}}}).
			Expect(t, http.StatusOK, "")
		if got := origins(t, r); !slices.Equal(got, []string{"https://evil.example.net"}) || r.Str(t, "name") != "browser" {
			t.Errorf("after PATCH: %s", r.Body)
		}
		w.send(t, path, ev("allowed now"), "Origin", "https://evil.example.net").expect(t, http.StatusOK)
		w.send(t, path, ev("not any more"), "Origin", "https://app.example.com").expect(t, http.StatusForbidden)
		r = s.Do(apitest.Request{Method: "PATCH", Path: "/v1/keys/" + browserID, Token: w.token, Body: map[string]any{"name": "renamed"}}).Expect(t, http.StatusOK, "")
		if got := origins(t, r); r.Str(t, "name") != "renamed" || !slices.Equal(got, []string{"https://evil.example.net"}) {
			t.Errorf("a rename changed the origins: %s", r.Body)
		}
		bad = s.Do(apitest.Request{Method: "PATCH", Path: "/v1/keys/" + browserID, Token: w.token, Body: map[string]any{"allowed_origins": []string{"not an origin"}}}).
			Expect(t, http.StatusUnprocessableEntity, "validation-failed")
		if d := bad.Str(t, "detail"); !strings.HasPrefix(d, "allowed_origins[0]: ") {
			t.Errorf("detail %q does not name allowed_origins[0]", d)
		}
		s.Do(apitest.Request{Method: "PATCH", Path: "/v1/keys/key_doesnotexist", Token: w.token, Body: map[string]any{"name": "x"}}).Expect(t, http.StatusNotFound, "")
		listed := s.Do(apitest.Request{Method: "GET", Path: keys, Token: w.token}).Expect(t, http.StatusOK, "")
		if !strings.Contains(string(listed.Body), `"allowed_origins":["https://evil.example.net"]`) {
			t.Errorf("the key list does not show allowed_origins: %s", listed.Body)
		}
	})
}
