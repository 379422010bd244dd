package web_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"github.com/errata-dev/errata/internal/apitest"
)

// TestSignInWithTOTP: the sign-in form of an account with two-factor
// sign-in asks for the code after the password, and signs in with both.
func TestSignInWithTOTP(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		now := time.Now().UTC().Truncate(30 * time.Second).Add(10 * time.Second)
		s.Clock.Set(now)
		ada := s.SignUp(t, "ada@example.com")
		secret := s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/totp", Token: ada.Token}).Expect(t, http.StatusCreated, "").Str(t, "secret")
		code := func(at time.Time) string {
			c, err := totp.GenerateCode(secret, at)
			if err != nil {
				t.Fatal(err)
			}
			return c
		}
		s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/totp/confirm", Token: ada.Token, Body: map[string]any{"code": code(now)}}).Expect(t, http.StatusOK, "")

		b := newBrowser(t, s)
		b.post("/sign-in", url.Values{"email": {"ada@example.com"}, "password": {apitest.Password}, "next": {"/"}}).
			expect(t, http.StatusUnauthorized, `<label for="code">`, "authenticator app")
		// The confirming code signs in once (it proved the authenticator,
		// not a sign-in); a second time it was used already.
		sessionCookie(t, b.post("/sign-in", url.Values{"email": {"ada@example.com"}, "password": {apitest.Password}, "code": {code(now)}, "next": {"/"}}).
			expect(t, http.StatusSeeOther))
		b = newBrowser(t, s)
		b.post("/sign-in", url.Values{"email": {"ada@example.com"}, "password": {apitest.Password}, "code": {code(now)}, "next": {"/"}}).
			expect(t, http.StatusUnauthorized, `<label for="code">`, "code was used already")
		p := b.post("/sign-in", url.Values{"email": {"ada@example.com"}, "password": {apitest.Password}, "code": {code(now.Add(30 * time.Second))}, "next": {"/"}}).
			expect(t, http.StatusSeeOther)
		sessionCookie(t, p)
	})
}
