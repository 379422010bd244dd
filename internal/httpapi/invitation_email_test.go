package httpapi_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/config"
	"github.com/errata-dev/errata/internal/mail/mailtest"
)

// TestInvitationEmail creates an invitation on a server configured with a
// real (in-test) SMTP server and follows the emailed link's token to sign
// up. The email is queued with the invitation and sent by the delivery
// engine (here DeliverDue: API test servers run no engine).
func TestInvitationEmail(t *testing.T) {
	smtp := mailtest.Start(t)
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		owner := s.SignUp(t, "owner@example.com")
		orgID := s.CreateOrg(t, owner.Token, "Acme & Sons")
		r := s.Do(apitest.Request{Method: "POST", Path: "/v1/orgs/" + orgID + "/invitations", Token: owner.Token,
			Body: map[string]any{"email": "Invitee@Example.com", "role": "admin"}}).Expect(t, http.StatusCreated, "")
		token, acceptURL := r.Str(t, "token"), r.Str(t, "accept_url")
		if token == "" || !strings.HasPrefix(acceptURL, s.Config.AppURL+"/") {
			t.Fatalf("token = %q, accept_url = %q, want both (the link under %s)", token, acceptURL, s.Config.AppURL)
		}
		if st := r.JSON(t)["email_status"]; st != "pending" {
			t.Errorf("email_status in the creation answer = %v, want pending", st)
		}
		if n := deliverDue(t, s); n != 1 {
			t.Fatalf("deliveries attempted = %d, want the invitation's email", n)
		}

		m := smtp.Wait(t, 30*time.Second, func(m mailtest.Message) bool {
			return mailtest.To("invitee@example.com")(m) && strings.Contains(m.Parts["text/plain"], acceptURL)
		})
		if got, want := m.Header.Get("Subject"), "User owner@example.com invited you to Acme & Sons on Errata"; got != want {
			t.Errorf("Subject = %q, want %q", got, want)
		}
		if got := m.Header.Get("From"); !strings.Contains(got, "errata@example.com") {
			t.Errorf("From = %q, want the configured ERRATA_MAIL_FROM", got)
		}
		if got := m.Header.Get("To"); !strings.Contains(got, "invitee@example.com") {
			t.Errorf("To = %q, want the invitee", got)
		}
		text, html := m.Parts["text/plain"], m.Parts["text/html"]
		if !strings.Contains(text, token) || !strings.Contains(text, "as admin") {
			t.Errorf("text part lacks the token or the role:\n%s", text)
		}
		if !strings.Contains(html, `href="`+acceptURL+`"`) || !strings.Contains(html, "Acme &amp; Sons") {
			t.Errorf("HTML part lacks the link or the escaped organization name:\n%s", html)
		}

		if inv := items(t, s, owner.Token, "/v1/orgs/"+orgID+"/invitations")[0]; inv["email_status"] != "delivered" {
			t.Errorf("invitation after the email was sent = %v, want email_status delivered", inv)
		}

		// The link works: its token signs the invitee up as a member.
		u, err := url.Parse(acceptURL)
		if err != nil {
			t.Fatalf("accept_url: %v", err)
		}
		s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/sign-up/email", Body: map[string]any{
			"email": "invitee@example.com", "password": apitest.Password, "name": "Invitee", "invitation_token": u.Query().Get("token"),
		}}).Expect(t, http.StatusOK, "")
	}, func(c *config.Serve) { c.SMTPURL = smtp.URL() })
}

// TestInvitationWithoutSMTP: with no SMTP server configured the invitation is
// still created and its token and link are returned (the only way to pass
// them on), and sign-up with the token works.
func TestInvitationWithoutSMTP(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		if s.Config.SMTPURL != "" {
			t.Fatalf("SMTPURL = %q, want empty", s.Config.SMTPURL)
		}
		owner := s.SignUp(t, "owner@example.com")
		orgID := s.CreateOrg(t, owner.Token, "Acme")
		r := s.Do(apitest.Request{Method: "POST", Path: "/v1/orgs/" + orgID + "/invitations", Token: owner.Token,
			Body: map[string]any{"email": "invitee@example.com"}}).Expect(t, http.StatusCreated, "")
		if r.Str(t, "token") == "" || r.Str(t, "accept_url") == "" {
			t.Fatalf("creation answer lacks token or accept_url: %s", r.Body)
		}
		if st, ok := r.JSON(t)["email_status"]; !ok || st != nil {
			t.Errorf("email_status without SMTP = %v (present %v), want null", st, ok)
		}
		if n := deliverDue(t, s); n != 0 {
			t.Errorf("deliveries attempted without SMTP = %d, want none queued", n)
		}
		s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/sign-up/email", Body: map[string]any{
			"email": "invitee@example.com", "password": apitest.Password, "name": "Invitee", "invitation_token": r.Str(t, "token"),
		}}).Expect(t, http.StatusOK, "")
	})
}

// TestInvitationEmailFailure: an SMTP server that refuses the email does not
// fail the invitation; the email's attempt fails (a 5xx: given up) and the
// invitation shows it.
func TestInvitationEmailFailure(t *testing.T) {
	refusing := mailtest.Start(t)
	addr := refusing.Addr()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		owner := s.SignUp(t, "owner@example.com")
		orgID := s.CreateOrg(t, owner.Token, "Acme")
		s.Do(apitest.Request{Method: "POST", Path: "/v1/orgs/" + orgID + "/invitations", Token: owner.Token,
			Body: map[string]any{"email": "invitee@example.com"}}).Expect(t, http.StatusCreated, "")
		deliverDue(t, s)
		if inv := items(t, s, owner.Token, "/v1/orgs/"+orgID+"/invitations")[0]; inv["email_status"] != "failed" || inv["status"] != "pending" {
			t.Errorf("invitation after a refused email = %v, want it pending with email_status failed", inv)
		}
	}, func(c *config.Serve) { c.SMTPURL = "smtp://" + mailtest.User + ":wrong@" + addr })
	if n := len(refusing.Messages()); n != 0 {
		t.Fatalf("%d emails accepted with wrong credentials, want none", n)
	}
}
