package httpapi_test

import (
	"net/http"
	"net/url"
	"regexp"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/config"
	"github.com/errata-dev/errata/internal/mail/mailtest"
)

var verifyLink = regexp.MustCompile(`/verify-email\?token=([A-Za-z0-9%_-]+)`)

// verificationToken waits for the n-th verification email to addr (the
// last one sent) and returns its link's token.
func verificationToken(t *testing.T, smtp *mailtest.Server, addr string, n int) string {
	t.Helper()
	var token string
	smtp.Wait(t, 30*time.Second, func(m mailtest.Message) bool {
		if !mailtest.To(addr)(m) {
			return false
		}
		found := verifyLink.FindStringSubmatch(m.Parts["text/plain"])
		if found == nil {
			return false
		}
		n--
		token, _ = url.QueryUnescape(found[1])
		return n == 0
	})
	return token
}

func openSignUp(c *config.Serve) { c.Signup = "open" }

// TestEmailVerification: a new password account (not the first) gets a
// verification link and is unverified until it is opened; meanwhile an
// email channel to its address waits for a confirmation and an invitation
// to it cannot be accepted; opening the link verifies it once, and its
// pending channels to that address are confirmed with it.
func TestEmailVerification(t *testing.T) {
	eachWithSMTP(t, func(t *testing.T, s *apitest.Server, smtp *mailtest.Server) {
		owner := s.SignUp(t, "owner@example.com")
		session := s.Do(apitest.Request{Method: "GET", Path: "/v1/auth/session", Token: owner.Token}).Expect(t, http.StatusOK, "").JSON(t)
		if session["user"].(map[string]any)["email_verified"] != true {
			t.Fatalf("the first account = %v, want it verified", session["user"])
		}
		orgID := s.CreateOrg(t, owner.Token, "Acme")
		projectID := s.CreateProject(t, owner.Token, orgID, "web")

		r := s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/sign-up/email", Body: map[string]any{"email": "ada@example.com", "password": apitest.Password, "name": "Ada"}}).
			Expect(t, http.StatusOK, "")
		ada := r.Str(t, "token")
		if r.JSON(t)["user"].(map[string]any)["email_verified"] != false {
			t.Fatalf("a new account = %s, want it unverified", r.Body)
		}
		// Invitations bind to their address, and need it verified.
		_, tok := s.Invite(t, owner.Token, orgID, "ada@example.com", "admin")
		s.Do(apitest.Request{Method: "POST", Path: "/v1/invitations/accept", Token: ada, Body: map[string]any{"token": tok}}).Expect(t, http.StatusForbidden, "email-unverified")
		_, other := s.Invite(t, owner.Token, orgID, "someone-else@example.com", "admin")
		s.Do(apitest.Request{Method: "POST", Path: "/v1/invitations/accept", Token: ada, Body: map[string]any{"token": other}}).
			Expect(t, http.StatusForbidden, "invitation-email-mismatch")

		deliverDue(t, s)
		token := verificationToken(t, smtp, "ada@example.com", 1)
		s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/verify-email", Body: map[string]any{"token": "not-a-token"}}).Expect(t, http.StatusUnprocessableEntity, "validation-failed")
		s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/verify-email", Body: map[string]any{"token": token}}).Expect(t, http.StatusOK, "")
		s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/verify-email", Body: map[string]any{"token": token}}).Expect(t, http.StatusUnprocessableEntity, "validation-failed")
		s.Do(apitest.Request{Method: "POST", Path: "/v1/invitations/accept", Token: ada, Body: map[string]any{"token": other}}).
			Expect(t, http.StatusForbidden, "invitation-email-mismatch")
		m := s.Do(apitest.Request{Method: "POST", Path: "/v1/invitations/accept", Token: ada, Body: map[string]any{"token": tok}}).Expect(t, http.StatusOK, "")
		adaMember := m.Str(t, "id")

		// Bob is a member (he joined by an invitation: verified by its link)
		// … but a member made unverified in SQL stands for one who is not.
		bob := s.SignUp(t, "bob@example.com")
		_, btok := s.Invite(t, owner.Token, orgID, "bob@example.com", "member")
		deliverDue(t, s)
		s.Do(apitest.Request{Method: "POST", Path: "/v1/invitations/accept", Token: bob.Token, Body: map[string]any{"token": btok}}).Expect(t, http.StatusForbidden, "email-unverified")
		ch := s.Do(apitest.Request{Method: "POST", Path: "/v1/projects/" + projectID + "/channels", Token: owner.Token,
			Body: map[string]any{"member_id": adaMember, "name": "ada", "type": "email"}}).Expect(t, http.StatusCreated, "")
		if ch.Str(t, "confirmation") != "confirmed" {
			t.Fatalf("a channel to a verified member's address = %s, want confirmed", ch.Body)
		}
		bobToken := verificationToken(t, smtp, "bob@example.com", 1)
		ownerMember := s.MemberID(t, owner.Token, orgID, owner.UserID)
		pending := s.Do(apitest.Request{Method: "POST", Path: "/v1/projects/" + projectID + "/channels", Token: owner.Token,
			Body: map[string]any{"member_id": ownerMember, "name": "bob", "type": "email", "email": "bob@example.com"}}).Expect(t, http.StatusCreated, "")
		if pending.Str(t, "confirmation") != "pending" {
			t.Fatalf("a channel to an unverified address = %s, want pending", pending.Body)
		}
		s.Do(apitest.Request{Method: "POST", Path: "/v1/invitations/accept", Token: bob.Token, Body: map[string]any{"token": btok}}).Expect(t, http.StatusForbidden, "email-unverified")
		s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/verify-email", Body: map[string]any{"token": bobToken}}).Expect(t, http.StatusOK, "")
		s.Do(apitest.Request{Method: "POST", Path: "/v1/invitations/accept", Token: bob.Token, Body: map[string]any{"token": btok}}).Expect(t, http.StatusOK, "")
		// Bob's address is now a verified member's: a new channel to it
		// needs no confirmation.
		again := s.Do(apitest.Request{Method: "POST", Path: "/v1/projects/" + projectID + "/channels", Token: owner.Token,
			Body: map[string]any{"member_id": ownerMember, "name": "bob again", "type": "email", "email": "bob@example.com"}}).Expect(t, http.StatusCreated, "")
		if again.Str(t, "confirmation") != "confirmed" {
			t.Fatalf("a channel to a verified member's address = %s, want confirmed", again.Body)
		}
	}, openSignUp)
}

// TestSignUpTakesTheInvitationsAddress: an account made with an
// invitation's token has the invitation's address, verified.
func TestSignUpTakesTheInvitationsAddress(t *testing.T) {
	eachWithSMTP(t, func(t *testing.T, s *apitest.Server, smtp *mailtest.Server) {
		owner := s.SignUp(t, "owner@example.com")
		orgID := s.CreateOrg(t, owner.Token, "Acme")
		_, tok := s.Invite(t, owner.Token, orgID, "invitee@example.com", "member")
		r := s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/sign-up/email", Body: map[string]any{"email": "typo@example.com", "password": apitest.Password,
			"name": "I", "invitation_token": tok}}).Expect(t, http.StatusOK, "")
		u := r.JSON(t)["user"].(map[string]any)
		if u["email"] != "invitee@example.com" || u["email_verified"] != true {
			t.Fatalf("user = %v, want the invitation's address, verified", u)
		}
	})
}
