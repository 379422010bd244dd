package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pquerna/otp/totp"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/config"
	"github.com/errata-dev/errata/internal/mail/mailtest"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// TestAccountPage: the account page lists the sessions and ends one, sets
// up two-factor sign-in with a QR code and shows the recovery codes once,
// and changes the password.
func TestAccountPage(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		now := time.Now().UTC().Truncate(30 * time.Second).Add(10 * time.Second)
		s.Clock.Set(now)
		w := s.NewWorld(t)
		b := newBrowser(t, s)
		b.signIn(w.Member.Email)
		p := b.get("/account").expect(t, http.StatusOK, "Sessions", "this session", "Set up two-factor sign-in", "Change password")
		ends := regexp.MustCompile(`action="/account/sessions/(ses_[a-z0-9]+)/end"`).FindAllStringSubmatch(p.Body, -1)
		if len(ends) != 1 { // the sign-up session; this one has no End button
			t.Fatalf("%d End buttons, want 1", len(ends))
		}
		b.post("/account/sessions/"+ends[0][1]+"/end", url.Values{}).expect(t, http.StatusOK, "The session was ended.")
		s.Do(apitest.Request{Method: "GET", Path: "/v1/auth/session", Token: w.Member.Token}).Expect(t, http.StatusUnauthorized, "unauthorized")

		p = b.post("/account/totp", url.Values{}).expect(t, http.StatusOK, `src="data:image/png;base64,`, "Turn on")
		secret := regexp.MustCompile(`Secret: <code>([A-Z2-7]+)</code>`).FindStringSubmatch(p.Body)
		if secret == nil {
			t.Fatalf("no secret on the page: %s", p.Body)
		}
		b.post("/account/totp/confirm", url.Values{"code": {"12345"}}).expect(t, http.StatusUnprocessableEntity, `role="alert"`)
		code, _ := totp.GenerateCode(secret[1], now)
		p = b.post("/account/totp/confirm", url.Values{"code": {code}}).expect(t, http.StatusOK, "Recovery codes", "Two-factor sign-in is on.")
		if n := strings.Count(p.Body, "<li><code>"); n != 10 {
			t.Fatalf("%d recovery codes shown, want 10", n)
		}
		b.get("/account").expect(t, http.StatusOK, "Turn off")

		b.post("/account/password", url.Values{"current_password": {"nope nope"}, "new_password": {"another long one"}}).
			expect(t, http.StatusUnprocessableEntity, "current_password")
		b.post("/account/password", url.Values{"current_password": {apitest.Password}, "new_password": {"another long one"}}).
			expect(t, http.StatusOK, "Your password was changed")
		// Wrong passwords until the account's limit: the refusal says how
		// long to wait, in words and in Retry-After, as the sign-in form does.
		for i := 0; ; i++ {
			p := b.post("/account/password", url.Values{"current_password": {"still wrong"}, "new_password": {"yet another one"}})
			if p.Status == http.StatusTooManyRequests {
				if ra := p.Header.Get("Retry-After"); ra == "" || !strings.Contains(p.Body, "Retry in "+ra+" seconds.") {
					t.Fatalf("429 with Retry-After %q: %s", ra, p.Body)
				}
				break
			}
			if i == 100 {
				t.Fatalf("no 429 after %d wrong passwords", i)
			}
		}
	})
}

// TestAuditLogPage: admins read the organization's audit log with its
// filters; members get 403.
func TestAuditLogPage(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		s.Do(apitest.Request{Method: "PATCH", Path: "/v1/members/" + w.Viewer.MemberID, Token: w.Owner.Token, Body: map[string]any{"role": "member"}}).
			Expect(t, http.StatusOK, "")
		b := newBrowser(t, s)
		b.signIn(w.Admin.Email)
		b.get("/orgs/"+w.OrgID).expect(t, http.StatusOK, `href="/orgs/`+w.OrgID+`/audit-log"`)
		b.get("/orgs/"+w.OrgID+"/audit-log").expect(t, http.StatusOK, "member.role_changed", "invitation.accepted", "owner@example.com")
		p := b.get("/orgs/"+w.OrgID+"/audit-log?action=member.role_changed").expect(t, http.StatusOK, "member.role_changed")
		if strings.Contains(p.Body, "invitation.accepted") {
			t.Fatal("the action filter let another action through")
		}
		m := newBrowser(t, s)
		m.signIn(w.Member.Email)
		m.get("/orgs/"+w.OrgID+"/audit-log").expect(t, http.StatusForbidden)
	})
}

// TestOrgSignInRules: an owner requires two-factor sign-in from the
// organization page once it is on for their own account; members without
// it then get 403 on the organization's pages.
func TestOrgSignInRules(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		now := time.Now().UTC().Truncate(30 * time.Second).Add(10 * time.Second)
		s.Clock.Set(now)
		w := s.NewWorld(t)
		b := newBrowser(t, s)
		b.signIn(w.Owner.Email)
		b.get("/orgs/"+w.OrgID).expect(t, http.StatusOK, "Sign-in rules", `name="require_2fa"`)
		b.post("/orgs/"+w.OrgID+"/sign-in-rules", url.Values{"require_2fa": {"on"}}).expect(t, http.StatusForbidden, "two-factor sign-in for your own account")
		secret := s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/totp", Token: w.Owner.Token}).Expect(t, http.StatusCreated, "").Str(t, "secret")
		code, _ := totp.GenerateCode(secret, now)
		s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/totp/confirm", Token: w.Owner.Token, Body: map[string]any{"code": code}}).Expect(t, http.StatusOK, "")
		b.post("/orgs/"+w.OrgID+"/sign-in-rules", url.Values{"require_2fa": {"on"}}).expect(t, http.StatusSeeOther)
		b.get("/orgs/"+w.OrgID).expect(t, http.StatusOK, `name="require_2fa" checked`)
		m := newBrowser(t, s)
		m.signIn(w.Member.Email)
		// The page says what to do in words, not the API's operation.
		p := m.get("/projects/"+w.ProjectID).expect(t, http.StatusForbidden, "turn it on for your account", `href="/account">Turn on two-factor sign-in`)
		if strings.Contains(p.Body, "/v1/auth/totp") {
			t.Errorf("the 2fa-required page names the API: %s", p.Body)
		}
	})
}

// TestEmailVerificationPages: an account whose address is not verified
// sees so on every page, can send the link again from its account page,
// and a link that is not valid (unknown, used, expired) says so in a page
// of its own.
func TestEmailVerificationPages(t *testing.T) {
	t.Parallel()
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			smtp := mailtest.Start(t)
			s := apitest.Start(t, d, func(c *config.Serve) { c.SMTPURL, c.Signup = smtp.URL(), "open" })
			s.SignUp(t, "owner@example.com") // the first account is verified at once
			s.SignUp(t, "vic@example.com")
			b := newBrowser(t, s)
			b.signIn("vic@example.com")
			b.get("/").expect(t, http.StatusOK, `id="verify-banner"`, `href="/account#verify-h"`)
			b.get("/account").expect(t, http.StatusOK, "Email address not verified", `action="/account/verify-email"`)
			b.post("/account/verify-email", url.Values{}).expect(t, http.StatusOK, "A new verification link was sent to vic@example.com")
			p := b.get("/verify-email?token=not-a-token").expect(t, http.StatusUnprocessableEntity, "This verification link is not valid", "was used already or expired")
			if strings.Contains(p.Body, "token:") {
				t.Errorf("the page names the API's field: %s", p.Body)
			}
		})
	}
}
