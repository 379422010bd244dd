package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/auth"
)

// signInWith signs email in with the password and an optional code, sending
// userAgent.
func signInWith(s *apitest.Server, email, password, code, userAgent string) *apitest.Response {
	body := map[string]any{"email": email, "password": password}
	if code != "" {
		body["code"] = code
	}
	return s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/sign-in/email", Body: body, Headers: map[string]string{"User-Agent": userAgent}})
}

func sessionsOf(t *testing.T, s *apitest.Server, token string) []map[string]any {
	t.Helper()
	return items(t, s, token, "/v1/auth/sessions?limit=100")
}

// TestSessionsListAndEnd: GET /v1/auth/sessions shows every live session
// with its address, user agent, method and which one is the caller's;
// DELETE ends one at once; another user's session is 404.
func TestSessionsListAndEnd(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		ada := s.SignUp(t, "ada@example.com")
		laptop := signInWith(s, "ada@example.com", apitest.Password, "", "Firefox/140 laptop").Expect(t, http.StatusOK, "").Str(t, "token")
		phone := signInWith(s, "ada@example.com", apitest.Password, "", "Safari phone").Expect(t, http.StatusOK, "").Str(t, "token")

		list := sessionsOf(t, s, laptop)
		if len(list) != 3 {
			t.Fatalf("%d sessions, want 3 (sign-up, laptop, phone): %v", len(list), list)
		}
		var phoneID string
		current := 0
		for _, se := range list {
			for _, f := range []string{"id", "created_at", "last_seen_at", "ip", "user_agent", "method", "current"} {
				if _, ok := se[f]; !ok {
					t.Fatalf("session %v lacks %s", se, f)
				}
			}
			if se["method"] != "password" || se["ip"] != "127.0.0.1" {
				t.Fatalf("session %v: want method password from 127.0.0.1", se)
			}
			if se["current"] == true {
				current++
				if se["user_agent"] != "Firefox/140 laptop" {
					t.Fatalf("the current session is %v, want the laptop's", se)
				}
			}
			if se["user_agent"] == "Safari phone" {
				phoneID = se["id"].(string)
			}
		}
		if current != 1 || phoneID == "" {
			t.Fatalf("sessions %v: want exactly one current and the phone's", list)
		}

		bob := s.AddMember(t, ada.Token, s.CreateOrg(t, ada.Token, "Acme"), "bob@example.com", "member")
		s.Do(apitest.Request{Method: "DELETE", Path: "/v1/auth/sessions/" + phoneID, Token: bob.Token}).Expect(t, http.StatusNotFound, "not-found")
		s.Do(apitest.Request{Method: "GET", Path: "/v1/auth/session", Token: phone}).Expect(t, http.StatusOK, "")

		s.Do(apitest.Request{Method: "DELETE", Path: "/v1/auth/sessions/" + phoneID, Token: laptop}).Expect(t, http.StatusNoContent, "")
		s.Do(apitest.Request{Method: "GET", Path: "/v1/auth/session", Token: phone}).Expect(t, http.StatusUnauthorized, "unauthorized")
		s.Do(apitest.Request{Method: "DELETE", Path: "/v1/auth/sessions/" + phoneID, Token: laptop}).Expect(t, http.StatusNotFound, "not-found")
		if n := len(sessionsOf(t, s, laptop)); n != 2 {
			t.Fatalf("%d sessions after ending one, want 2", n)
		}
		s.Do(apitest.Request{Method: "GET", Path: "/v1/auth/sessions", Token: ""}).Expect(t, http.StatusUnauthorized, "unauthorized")
	})
}

// TestEndSessionWhileInUse: a session ended while requests with it are in
// flight answers 401 to every request after the end; ending it from many
// requests at once ends it once (one 204, the rest 404).
func TestEndSessionWhileInUse(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		ada := s.SignUp(t, "ada@example.com")
		victim := signInWith(s, "ada@example.com", apitest.Password, "", "old phone").Expect(t, http.StatusOK, "").Str(t, "token")
		var victimID string
		for _, se := range sessionsOf(t, s, ada.Token) {
			if se["user_agent"] == "old phone" {
				victimID = se["id"].(string)
			}
		}
		statuses := together(16, func(i int) int {
			if i%2 == 0 {
				st, _ := do(t, bearerReq(t, "DELETE", s.URL+"/v1/auth/sessions/"+victimID, ada.Token))
				return st
			}
			st, _ := do(t, bearerReq(t, "GET", s.URL+"/v1/orgs", victim))
			return st
		})
		ends := map[int]int{}
		for i, st := range statuses {
			if i%2 == 0 {
				ends[st]++
			} else if st != http.StatusOK && st != http.StatusUnauthorized {
				t.Fatalf("a request with the session being ended answered %d", st)
			}
		}
		if ends[http.StatusNoContent] != 1 || ends[http.StatusNotFound] != 7 {
			t.Fatalf("8 concurrent ends: %v, want one 204 and seven 404", ends)
		}
		s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs", Token: victim}).Expect(t, http.StatusUnauthorized, "unauthorized")
	})
}

func bearerReq(t *testing.T, method, url, token string) *http.Request {
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	return req
}

// TestPasswordChange: a wrong current password is 422 naming it; a right
// one answers 204, ends every other session (the current one stays), and
// only the new password signs in.
func TestPasswordChange(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		ada := s.SignUp(t, "ada@example.com")
		orgID := s.CreateOrg(t, ada.Token, "Acme")
		other := signInWith(s, "ada@example.com", apitest.Password, "", "other").Expect(t, http.StatusOK, "").Str(t, "token")
		var otherID string
		for _, se := range sessionsOf(t, s, ada.Token) {
			if se["current"] != true {
				otherID, _ = se["id"].(string)
			}
		}
		change := func(current, next string) *apitest.Response {
			return s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/password", Token: ada.Token,
				Body: map[string]any{"current_password": current, "new_password": next}})
		}
		r := change("not the password", "a new long password").Expect(t, http.StatusUnprocessableEntity, "validation-failed")
		if !strings.HasPrefix(r.Str(t, "detail"), "current_password") {
			t.Fatalf("detail %q does not name current_password", r.Str(t, "detail"))
		}
		r = change(apitest.Password, "short").Expect(t, http.StatusUnprocessableEntity, "validation-failed")
		if !strings.HasPrefix(r.Str(t, "detail"), "new_password") {
			t.Fatalf("detail %q does not name new_password", r.Str(t, "detail"))
		}
		s.Do(apitest.Request{Method: "GET", Path: "/v1/auth/session", Token: other}).Expect(t, http.StatusOK, "")

		change(apitest.Password, "a new long password").Expect(t, http.StatusNoContent, "")
		s.Do(apitest.Request{Method: "GET", Path: "/v1/auth/session", Token: other}).Expect(t, http.StatusUnauthorized, "unauthorized")
		s.Do(apitest.Request{Method: "GET", Path: "/v1/auth/session", Token: ada.Token}).Expect(t, http.StatusOK, "")
		if n := len(sessionsOf(t, s, ada.Token)); n != 1 {
			t.Fatalf("%d sessions after a password change, want 1", n)
		}
		// The audit log says which sessions the change ended (CONTRACT 8:
		// "sessions ended").
		ended := auditLog(t, s, ada.Token, orgID, "&action=session.ended")
		if len(ended) != 1 || ended[0]["target"] != otherID || ended[0]["data"].(map[string]any)["reason"] != "password-changed" {
			t.Fatalf("session.ended entries = %v, want one for %s (password-changed)", ended, otherID)
		}
		signInWith(s, "ada@example.com", apitest.Password, "", "x").Expect(t, http.StatusUnauthorized, "invalid-credentials")
		signInWith(s, "ada@example.com", "a new long password", "", "x").Expect(t, http.StatusOK, "")
	})
}

// TestPasswordChangeWithoutAPassword: an account made through single
// sign-on has no password to change: a 422 naming current_password that
// says why, not a 500.
func TestPasswordChangeWithoutAPassword(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		ada := s.SignUp(t, "ada@example.com")
		orgID := s.CreateOrg(t, ada.Token, "Acme")
		signed, err := s.App.Auth.SignInOIDC(context.Background(), "sso@acme.example", "SSO", []auth.AutoJoin{{Domain: "acme.example", OrgID: orgID, Role: "member"}})
		if err != nil {
			t.Fatal(err)
		}
		r := s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/password", Token: signed.Token,
			Body: map[string]any{"current_password": "anything at all", "new_password": "a new long password"}}).Expect(t, http.StatusUnprocessableEntity, "validation-failed")
		if d := r.Str(t, "detail"); !strings.HasPrefix(d, "current_password: this account has no password") {
			t.Fatalf("detail %q", d)
		}
	})
}

// TestPasswordChangeAtOnce: two changes of one password from two sessions
// at once: one answers 204 and its password holds, the other is refused
// (its current password is no longer the account's) rather than both
// answering 204, one password silently lost and both sessions ended.
func TestPasswordChangeAtOnce(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		s.SignUp(t, "ada@example.com")
		password := apitest.Password
		for round := range 4 {
			tokens := [2]string{}
			for i := range tokens {
				tokens[i] = signInWith(s, "ada@example.com", password, "", fmt.Sprint(i)).Expect(t, http.StatusOK, "").Str(t, "token")
			}
			var wg sync.WaitGroup
			var codes [2]int
			start := make(chan struct{})
			for i := range tokens {
				wg.Go(func() {
					<-start
					codes[i] = s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/password", Token: tokens[i],
						Body: map[string]any{"current_password": password, "new_password": fmt.Sprintf("new password %d-%d", round, i)}}).Status
				})
			}
			close(start)
			wg.Wait()
			won := slices.Index(codes[:], http.StatusNoContent)
			if won < 0 || codes[1-won] == http.StatusNoContent {
				t.Fatalf("round %d: answers %v, want one 204", round, codes)
			}
			password = fmt.Sprintf("new password %d-%d", round, won)
			s.Do(apitest.Request{Method: "GET", Path: "/v1/auth/session", Token: tokens[won]}).Expect(t, http.StatusOK, "")
			signInWith(s, "ada@example.com", password, "", "check").Expect(t, http.StatusOK, "")
		}
	})
}
