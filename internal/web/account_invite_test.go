package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
)

// accountAcceptPath is the dashboard address of an invitation link.
func accountAcceptPath(token string) string {
	return "/invitations/accept?token=" + url.QueryEscape(token)
}

// accountMemberRole returns email's role in orgID as the API lists it, or
// "" when email is not a member.
func accountMemberRole(t *testing.T, s *apitest.Server, token, orgID, email string) string {
	t.Helper()
	r := s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs/" + orgID + "/members?limit=100", Token: token}).Expect(t, http.StatusOK, "")
	for _, m := range r.JSON(t)["data"].([]any) {
		if m := m.(map[string]any); m["email"] == email {
			return m["role"].(string)
		}
	}
	return ""
}

// accountInvitationStatus returns the status of invitation id as the API
// lists it.
func accountInvitationStatus(t *testing.T, s *apitest.Server, token, orgID, id string) string {
	t.Helper()
	r := s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs/" + orgID + "/invitations?limit=100", Token: token}).Expect(t, http.StatusOK, "")
	for _, i := range r.JSON(t)["data"].([]any) {
		if i := i.(map[string]any); i["id"] == id {
			return i["status"].(string)
		}
	}
	t.Fatalf("invitation %s not listed", id)
	return ""
}

func TestAccountSignUpFromInvitation(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		invID, tok := s.Invite(t, w.Admin.Token, w.OrgID, "new@example.com", "member")
		b := newBrowser(t, s)
		accept := accountAcceptPath(tok)

		form := b.get(accept).expect(t, http.StatusOK, "Join Acme", "<strong>member</strong>", `value="new@example.com" readonly`,
			`<label for="password">`, `autocomplete="new-password"`, `<label for="name">`, `name="token" value="`+tok+`"`,
			`href="/sign-in?next=`+url.QueryEscape(accept)+`"`)
		if form.Header.Get("Referrer-Policy") != "same-origin" {
			t.Errorf("Referrer-Policy = %q", form.Header.Get("Referrer-Policy"))
		}
		if strings.Contains(form.Body, `href="http`) || strings.Contains(form.Body, `src="http`) {
			t.Errorf("the invitation page links to another origin: %s", form.Body)
		}

		// A short password: the form again, the error beside it, nothing created.
		b.post("/invitations/accept", url.Values{"token": {tok}, "name": {"New Person"}, "password": {"short"}}).
			expect(t, http.StatusUnprocessableEntity, `role="alert"`, "8 to 256 characters", `value="New Person"`)
		if st := accountInvitationStatus(t, s, w.Admin.Token, w.OrgID, invID); st != "pending" {
			t.Fatalf("invitation %s after a refused sign-up, want pending", st)
		}

		// The email is the invitation's whatever the form says.
		p := b.post("/invitations/accept", url.Values{"token": {tok}, "name": {"New Person"}, "password": {apitest.Password},
			"email": {"someone-else@example.com"}}).expect(t, http.StatusSeeOther)
		if loc := p.Header.Get("Location"); loc != "/orgs/"+w.OrgID {
			t.Fatalf("Location after sign-up = %q, want the organization", loc)
		}
		c := sessionCookie(t, p)
		if !c.HttpOnly || c.SameSite != http.SameSiteLaxMode {
			t.Fatalf("cookie = %+v", c)
		}
		b.get("/orgs/"+w.OrgID).expect(t, http.StatusOK, "Acme", `<span class="badge">member</span>`, "New Person")

		// The API sees the same session, the account and the membership.
		sess := s.Do(apitest.Request{Method: "GET", Path: "/v1/auth/session", Cookies: []*http.Cookie{c}}).Expect(t, http.StatusOK, "")
		if u := sess.JSON(t)["user"].(map[string]any); u["email"] != "new@example.com" || u["name"] != "New Person" {
			t.Fatalf("session user = %v", u)
		}
		if role := accountMemberRole(t, s, w.Owner.Token, w.OrgID, "new@example.com"); role != "member" {
			t.Fatalf("role of the new user = %q, want member", role)
		}
		if accountMemberRole(t, s, w.Owner.Token, w.OrgID, "someone-else@example.com") != "" {
			t.Fatalf("the form's email field was used")
		}
		if st := accountInvitationStatus(t, s, w.Admin.Token, w.OrgID, invID); st != "accepted" {
			t.Fatalf("invitation %s, want accepted", st)
		}

		// The link is spent.
		newBrowser(t, s).get(accept).expect(t, http.StatusGone, "already been used")
	})
}

func TestAccountAcceptWhenSignedIn(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		_, tok := s.Invite(t, w.Admin.Token, w.OrgID, w.Outsider.Email, "viewer")
		accept := accountAcceptPath(tok)

		// Signed out, "Sign in" comes back to the link.
		b := newBrowser(t, s)
		if loc := b.post("/invitations/accept", url.Values{"token": {tok}}).expect(t, http.StatusSeeOther).Header.Get("Location"); !strings.HasPrefix(loc, "/sign-in?next=") {
			t.Fatalf("accepting signed out goes to %q, want the sign-in form", loc)
		}
		p := b.post("/sign-in", url.Values{"email": {w.Outsider.Email}, "password": {apitest.Password}, "next": {accept}}).expect(t, http.StatusSeeOther)
		if loc := p.Header.Get("Location"); loc != accept {
			t.Fatalf("Location after sign-in = %q, want %q", loc, accept)
		}
		page := b.get(accept).expect(t, http.StatusOK, "Join Acme", "<strong>viewer</strong>", "Accept invitation")
		if strings.Contains(page.Body, `name="password"`) {
			t.Errorf("a signed-in visitor is offered the sign-up form")
		}
		if accountMemberRole(t, s, w.Owner.Token, w.OrgID, w.Outsider.Email) != "" {
			t.Fatalf("showing the page accepted the invitation")
		}
		if loc := b.post("/invitations/accept", url.Values{"token": {tok}}).expect(t, http.StatusSeeOther).Header.Get("Location"); loc != "/orgs/"+w.OrgID {
			t.Fatalf("Location after accepting = %q", loc)
		}
		if role := accountMemberRole(t, s, w.Owner.Token, w.OrgID, w.Outsider.Email); role != "viewer" {
			t.Fatalf("role after accepting = %q, want viewer", role)
		}
		b.get("/orgs/"+w.OrgID).expect(t, http.StatusOK, "Acme")

		// A second invitation for someone already in: said so, not accepted.
		_, tok2 := s.Invite(t, w.Admin.Token, w.OrgID, "later@example.com", "admin")
		b.get(accountAcceptPath(tok2)).expect(t, http.StatusOK, "already a member")
		b.post("/invitations/accept", url.Values{"token": {tok2}}).expect(t, http.StatusConflict, `role="alert"`, "already a member")

		// An invitation to another address is not offered to this account:
		// it would be refused (CONTRACT 8: it binds to its email).
		other := s.CreateOrg(t, w.Owner.Token, "Other")
		_, tok3 := s.Invite(t, w.Owner.Token, other, "someone.else@example.com", "member")
		if p := b.get(accountAcceptPath(tok3)).expect(t, http.StatusOK, "The invitation was sent to someone.else@example.com", `action="/sign-out"`); strings.Contains(p.Body, "Accept invitation") {
			t.Errorf("an invitation to another address offers to accept it")
		}
	})
}

func TestAccountBadInvitationLinks(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		b := newBrowser(t, s)
		// A signed-out visitor is led to sign in, not to organizations they cannot reach yet.
		if p := b.get("/invitations/accept?token=nonsense").expect(t, http.StatusNotFound, "not valid", "invitation-invalid", `<a href="/sign-in">Sign in</a>`); strings.Contains(p.Body, "Back to your organizations") {
			t.Errorf("a signed-out visitor's error page offers their organizations")
		}
		b.get("/invitations/accept").expect(t, http.StatusNotFound, "not valid")

		invID, tok := s.Invite(t, w.Admin.Token, w.OrgID, "revoked@example.com", "member")
		s.Do(apitest.Request{Method: "DELETE", Path: "/v1/invitations/" + invID, Token: w.Admin.Token}).Expect(t, http.StatusNoContent, "")
		p := b.get(accountAcceptPath(tok)).expect(t, http.StatusGone, "withdrawn")
		if strings.Contains(p.Body, "revoked@example.com") || strings.Contains(p.Body, "Acme") {
			t.Errorf("a dead link's page names the address or organization: %s", p.Body)
		}
		b.post("/invitations/accept", url.Values{"token": {tok}, "password": {apitest.Password}}).expect(t, http.StatusGone)
		s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/sign-in/email", Body: map[string]any{"email": "revoked@example.com", "password": apitest.Password}}).
			Expect(t, http.StatusUnauthorized, "invalid-credentials")

		// A cross-origin sign-up is refused before anything else.
		_, tok = s.Invite(t, w.Admin.Token, w.OrgID, "csrf@example.com", "member")
		b.do("POST", "/invitations/accept", url.Values{"token": {tok}, "password": {apitest.Password}},
			map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}).expect(t, http.StatusForbidden, "csrf-origin-rejected")
	})
}
