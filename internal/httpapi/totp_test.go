package httpapi_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"github.com/errata-dev/errata/internal/apitest"
)

// totpCode computes the code of secret at t, as an authenticator app does.
func totpCode(t *testing.T, secret string, at time.Time) string {
	t.Helper()
	c, err := totp.GenerateCode(secret, at)
	if err != nil {
		t.Fatalf("generate code: %v", err)
	}
	return c
}

// enableTOTP turns on two-factor sign-in for token's user at the server's
// (frozen) clock and returns the secret and recovery codes.
func enableTOTP(t *testing.T, s *apitest.Server, token string) (string, []string) {
	t.Helper()
	setup := s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/totp", Token: token}).Expect(t, http.StatusCreated, "")
	secret := setup.Str(t, "secret")
	r := s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/totp/confirm", Token: token, Body: map[string]any{"code": totpCode(t, secret, s.Clock.Now())}}).
		Expect(t, http.StatusOK, "")
	var codes []string
	for _, c := range r.JSON(t)["recovery_codes"].([]any) {
		codes = append(codes, c.(string))
	}
	return secret, codes
}

// TestTOTPSignIn: setting up TOTP answers a secret and its otpauth URI; a
// code of it turns two-factor sign-in on and answers 10 recovery codes;
// sign-in then needs code (401 totp-required without), and each TOTP code
// and each recovery code works once; a code or recovery code turns it off.
func TestTOTPSignIn(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		now := time.Now().UTC().Truncate(30 * time.Second).Add(10 * time.Second)
		s.Clock.Set(now)
		ada := s.SignUp(t, "ada@example.com")
		orgID := s.CreateOrg(t, ada.Token, "Acme")
		setup := s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/totp", Token: ada.Token}).Expect(t, http.StatusCreated, "")
		secret, uri := setup.Str(t, "secret"), setup.Str(t, "otpauth_uri")
		if len(secret) < 16 || !strings.HasPrefix(uri, "otpauth://totp/Errata:ada@example.com?") || !strings.Contains(uri, "secret="+secret) {
			t.Fatalf("setup = %s", setup.Body)
		}
		confirm := func(code string) *apitest.Response {
			return s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/totp/confirm", Token: ada.Token, Body: map[string]any{"code": code}})
		}
		r := confirm("000000")
		if totpCode(t, secret, now) != "000000" {
			r.Expect(t, http.StatusUnprocessableEntity, "validation-failed")
			if !strings.HasPrefix(r.Str(t, "detail"), "code") {
				t.Fatalf("detail %q does not name code", r.Str(t, "detail"))
			}
		}
		signInWith(s, "ada@example.com", apitest.Password, "", "x").Expect(t, http.StatusOK, "") // not on until confirmed
		r = confirm(totpCode(t, secret, now)).Expect(t, http.StatusOK, "")
		codes := r.JSON(t)["recovery_codes"].([]any)
		seen := map[any]bool{}
		for _, c := range codes {
			seen[c] = true
		}
		if len(codes) != 10 || len(seen) != 10 {
			t.Fatalf("recovery codes = %v, want 10 distinct", codes)
		}
		s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/totp", Token: ada.Token}).Expect(t, http.StatusConflict, "conflict")

		signInWith(s, "ada@example.com", apitest.Password, "", "x").Expect(t, http.StatusUnauthorized, "totp-required")
		signInWith(s, "ada@example.com", "wrong password", "", "x").Expect(t, http.StatusUnauthorized, "invalid-credentials")
		// The confirming code proved the authenticator, not a sign-in: it
		// still signs in, once. An unused code of the step before one
		// accepted is still within ±1 step; two steps away is not.
		cur := totpCode(t, secret, now)
		signInWith(s, "ada@example.com", apitest.Password, cur, "x").Expect(t, http.StatusOK, "")
		signInWith(s, "ada@example.com", apitest.Password, cur, "x").Expect(t, http.StatusUnauthorized, "invalid-credentials")
		if prev := totpCode(t, secret, now.Add(-30*time.Second)); prev != cur {
			signInWith(s, "ada@example.com", apitest.Password, prev, "x").Expect(t, http.StatusOK, "")
		}
		next := totpCode(t, secret, now.Add(30*time.Second))
		signInWith(s, "ada@example.com", apitest.Password, next, "x").Expect(t, http.StatusOK, "")
		signInWith(s, "ada@example.com", apitest.Password, next, "x").Expect(t, http.StatusUnauthorized, "invalid-credentials")
		s.Clock.Advance(60 * time.Second) // two steps on: the one before is still accepted
		signInWith(s, "ada@example.com", apitest.Password, totpCode(t, secret, now.Add(60*time.Second)), "x").Expect(t, http.StatusOK, "")
		if old := totpCode(t, secret, now.Add(-30*time.Second)); old != totpCode(t, secret, now.Add(90*time.Second)) {
			signInWith(s, "ada@example.com", apitest.Password, old, "x").Expect(t, http.StatusUnauthorized, "invalid-credentials")
		}

		rc := codes[0].(string)
		signInWith(s, "ada@example.com", apitest.Password, strings.ToUpper(rc), "x").Expect(t, http.StatusOK, "")
		signInWith(s, "ada@example.com", apitest.Password, rc, "x").Expect(t, http.StatusUnauthorized, "invalid-credentials")

		off := func(code string) *apitest.Response {
			return s.Do(apitest.Request{Method: "DELETE", Path: "/v1/auth/totp", Token: ada.Token, Body: map[string]any{"code": code}})
		}
		off(rc).Expect(t, http.StatusUnprocessableEntity, "validation-failed")
		off(codes[1].(string)).Expect(t, http.StatusNoContent, "")
		off(codes[2].(string)).Expect(t, http.StatusConflict, "conflict")
		signInWith(s, "ada@example.com", apitest.Password, "", "x").Expect(t, http.StatusOK, "")

		got := actions(auditLog(t, s, ada.Token, orgID, ""))
		if got["user.2fa_enabled"] != 1 || got["user.2fa_disabled"] != 1 || got["user.sign_in_failed"] < 3 {
			t.Fatalf("audit log actions = %v", got)
		}
	})
}

// TestTOTPWrongCodesAreLimited: wrong codes count in the sign-in failure
// limit of the address: after ten, even the right code is 429.
func TestTOTPWrongCodesAreLimited(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		now := time.Now().UTC().Truncate(30 * time.Second).Add(10 * time.Second)
		s.Clock.Set(now)
		ada := s.SignUp(t, "ada@example.com")
		orgID := s.CreateOrg(t, ada.Token, "Acme")
		secret, _ := enableTOTP(t, s, ada.Token)
		right := totpCode(t, secret, now.Add(30*time.Second))
		wrong := "123456"
		if wrong == right || wrong == totpCode(t, secret, now) || wrong == totpCode(t, secret, now.Add(-30*time.Second)) {
			wrong = "654321"
		}
		for i := range 10 {
			if r := signInWith(s, "ada@example.com", apitest.Password, wrong, "x"); r.Status != http.StatusUnauthorized {
				t.Fatalf("wrong code %d: status %d, want 401", i+1, r.Status)
			}
		}
		// Refused sign-ins are told to the account's organizations, once
		// for a run of them rather than once a request.
		for range 3 {
			signInWith(s, "ada@example.com", apitest.Password, right, "x").Expect(t, http.StatusTooManyRequests, "rate-limited")
		}
		// The note is written in the background (the 429 answers at once,
		// for an account or not): wait for it.
		s.App.Auth.Wait()
		reasons := map[string]int{}
		for _, e := range auditLog(t, s, ada.Token, orgID, "&action=user.sign_in_failed") {
			reasons[e["data"].(map[string]any)["reason"].(string)]++
		}
		if reasons["code"] != 10 || reasons["rate-limited"] != 1 || len(reasons) != 2 {
			t.Errorf("failed sign-ins by reason = %v, want 10 wrong codes and one note of the refusals", reasons)
		}
	})
}

// TestSecondFactorUsedOnceUnderRace: one recovery code, or one TOTP code,
// sent by eight sign-ins at once signs in exactly one of them.
func TestSecondFactorUsedOnceUnderRace(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		now := time.Now().UTC().Truncate(30 * time.Second).Add(10 * time.Second)
		s.Clock.Set(now)
		ada := s.SignUp(t, "ada@example.com")
		_, codes := enableTOTP(t, s, ada.Token)
		ok := together(8, func(int) int {
			return rawSignIn(t, s, "ada@example.com", codes[3])
		})
		if c := count(ok); c[http.StatusOK] != 1 || c[http.StatusUnauthorized] != 7 {
			t.Fatalf("one recovery code eight times at once: %v, want one 200", c)
		}

		bob := s.AddMember(t, ada.Token, s.CreateOrg(t, ada.Token, "Acme"), "bob@example.com", "member")
		secret, _ := enableTOTP(t, s, bob.Token)
		code := totpCode(t, secret, now.Add(30*time.Second))
		ok = together(8, func(int) int {
			return rawSignIn(t, s, "bob@example.com", code)
		})
		if c := count(ok); c[http.StatusOK] != 1 || c[http.StatusUnauthorized] != 7 {
			t.Fatalf("one TOTP code eight times at once: %v, want one 200", c)
		}
	})
}

func rawSignIn(t *testing.T, s *apitest.Server, email, code string) int {
	st, _ := rawPost(t, s.URL+"/v1/auth/sign-in/email", "", map[string]any{"email": email, "password": apitest.Password, "code": code})
	return st
}

// TestRequire2FA: an owner requires two-factor sign-in only with it on
// their own account; then members without it get 403 2fa-required on the
// organization's resources until they turn it on.
func TestRequire2FA(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		s.Clock.Set(time.Now().UTC().Truncate(30 * time.Second).Add(10 * time.Second))
		w := s.NewWorld(t)
		path := "/v1/orgs/" + w.OrgID
		patchJSON(s, w.Owner.Token, path, map[string]any{"require_2fa": true}).Expect(t, http.StatusForbidden, "2fa-required")
		enableTOTP(t, s, w.Owner.Token)
		r := patchJSON(s, w.Owner.Token, path, map[string]any{"require_2fa": true}).Expect(t, http.StatusOK, "")
		if r.JSON(t)["require_2fa"] != true || r.JSON(t)["sso_required"] != false || r.Str(t, "name") != "Acme" {
			t.Fatalf("organization = %s", r.Body)
		}
		s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.ProjectID, Token: w.Member.Token}).Expect(t, http.StatusForbidden, "2fa-required")
		s.Do(apitest.Request{Method: "GET", Path: path, Token: w.Viewer.Token}).Expect(t, http.StatusForbidden, "2fa-required")
		s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.ProjectID, Token: w.Owner.Token}).Expect(t, http.StatusOK, "")
		s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.OtherProjectID, Token: w.Member.Token}).Expect(t, http.StatusNotFound, "not-found")
		s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.OtherProjectID, Token: w.Outsider.Token}).Expect(t, http.StatusOK, "")
		enableTOTP(t, s, w.Member.Token)
		s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.ProjectID, Token: w.Member.Token}).Expect(t, http.StatusOK, "")
		if got := actions(auditLog(t, s, w.Owner.Token, w.OrgID, "&action=org.require_2fa_changed")); got["org.require_2fa_changed"] != 1 {
			t.Fatalf("audit = %v", got)
		}
		patchJSON(s, w.Owner.Token, path, map[string]any{"sso_required": true}).Expect(t, http.StatusForbidden, "sso-required")
	})
}
