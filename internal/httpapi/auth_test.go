package httpapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/config"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// TestMain trusts the test CA of the TLS webhook receivers (receiver_test.go)
// and drops the PostgreSQL template database at the end.
func TestMain(m *testing.M) { storetest.Main(withTestCA(m)) }

func TestSignUpRules(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		first := s.SignUp(t, "First@Example.com")
		if first.Email != "first@example.com" {
			t.Fatalf("email = %q, want it lower-cased", first.Email)
		}
		body := map[string]any{"email": "second@example.com", "password": apitest.Password, "name": "S"}
		s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/sign-up/email", Body: body}).Expect(t, http.StatusForbidden, "sign-up-closed")
		body["invitation_token"] = "not-a-token"
		s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/sign-up/email", Body: body}).Expect(t, http.StatusUnprocessableEntity, "invitation-invalid")
		dup := map[string]any{"email": "first@example.com", "password": apitest.Password, "name": "again", "invitation_token": "x"}
		s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/sign-up/email", Body: dup}).Expect(t, http.StatusConflict, "email-taken")
		short := map[string]any{"email": "third@example.com", "password": "short", "name": "T"}
		r := s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/sign-up/email", Body: short}).Expect(t, http.StatusUnprocessableEntity, "validation-failed")
		if d := r.Str(t, "detail"); d == "" || d[:8] != "password" {
			t.Fatalf("detail = %q, want it to name password", d)
		}
		for _, name := range []string{"", "   "} {
			blank := map[string]any{"email": "third@example.com", "password": apitest.Password, "name": name}
			r := s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/sign-up/email", Body: blank}).Expect(t, http.StatusUnprocessableEntity, "validation-failed")
			if d := r.Str(t, "detail"); !strings.HasPrefix(d, "name") {
				t.Errorf("name %q: detail = %q, want it to name name", name, d)
			}
		}
	})
}

func TestOpenSignUp(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		s.SignUp(t, "a@example.com")
		s.SignUp(t, "b@example.com")
	}, func(c *config.Serve) { c.Signup = "open" })
}

func TestSignInSessionSignOut(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		s.SignUp(t, "ada@example.com")
		bad := s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/sign-in/email", Body: map[string]any{"email": "ada@example.com", "password": "wrong password"}}).
			Expect(t, http.StatusUnauthorized, "invalid-credentials")
		unknown := s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/sign-in/email", Body: map[string]any{"email": "nobody@example.com", "password": "wrong password"}}).
			Expect(t, http.StatusUnauthorized, "invalid-credentials")
		if bad.Str(t, "detail") != unknown.Str(t, "detail") {
			t.Fatalf("unknown email and wrong password answer differently: %q vs %q", bad.Str(t, "detail"), unknown.Str(t, "detail"))
		}
		r := s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/sign-in/email", Body: map[string]any{"email": "ADA@example.com", "password": apitest.Password}}).
			Expect(t, http.StatusOK, "")
		tok := r.Str(t, "token")
		sess := s.Do(apitest.Request{Method: "GET", Path: "/v1/auth/session", Token: tok}).Expect(t, http.StatusOK, "").JSON(t)
		if sess["user"].(map[string]any)["email"] != "ada@example.com" || sess["session"].(map[string]any)["expires_at"] == nil {
			t.Fatalf("session = %v", sess)
		}
		s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/sign-out", Token: tok}).Expect(t, http.StatusNoContent, "")
		s.Do(apitest.Request{Method: "GET", Path: "/v1/auth/session", Token: tok}).Expect(t, http.StatusUnauthorized, "unauthorized")
	})
}

func TestWorldBuilds(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		if w.OrgID == "" || w.Viewer.MemberID == "" || w.OtherProjectID == "" {
			t.Fatalf("world = %+v", w)
		}
	})
}

// TestUnauthorizedNamesTheScheme: a 401 says, as RFC 9110 asks, which
// scheme would be accepted.
func TestUnauthorizedNamesTheScheme(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, "sqlite")
	for _, r := range []apitest.Request{
		{Method: "GET", Path: "/v1/orgs"},
		{Method: "GET", Path: "/v1/orgs", Headers: map[string]string{"Authorization": "Basic eDp5"}},
		{Method: "POST", Path: "/v1/auth/sign-in/email", Body: map[string]any{"email": "nobody@example.com", "password": "wrong password"}},
	} {
		res := s.Do(r)
		if res.Status != http.StatusUnauthorized || !strings.HasPrefix(res.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("%s %s: %d, WWW-Authenticate %q; want 401 naming Bearer", r.Method, r.Path, res.Status, res.Header.Get("WWW-Authenticate"))
		}
	}
}

// TestInvalidCredentialsSpendTheAddressLimit: the API's limit is per
// credential, but a credential that proves nothing also spends its
// address's bucket: a new random token a request is limited all the same.
func TestInvalidCredentialsSpendTheAddressLimit(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, "sqlite", func(c *config.Serve) { c.APIRateLimit, c.APIRateBurst = 0.001, 5 })
	var statuses []int
	for i := range 8 {
		r := s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs", Token: fmt.Sprintf("not-a-session-%d", i)})
		statuses = append(statuses, r.Status)
		if r.Status == http.StatusTooManyRequests && r.Header.Get("Retry-After") == "" {
			t.Errorf("429 without Retry-After")
		}
	}
	if c := count(statuses); c[http.StatusUnauthorized] != 5 || c[http.StatusTooManyRequests] != 3 {
		t.Fatalf("8 requests with 8 random tokens from one address, burst 5: %v, want 5 × 401 then 429", statuses)
	}
}
