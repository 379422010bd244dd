package web_test

// Browser test of how a new person arrives: invited on the members page,
// signed up from the link in another browser.

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/store"
)

// TestChromeInvitation: the owner invites someone as a member on the
// members page (the link is shown once); the invitee opens the link in a
// browser of their own, creates an account and lands in the organization
// as a member.
func TestChromeInvitation(t *testing.T) {
	t.Parallel()
	chromePath(t) // skip (or fail in CI) before building anything
	s := apitest.Start(t, store.SQLite)
	w := s.NewWorld(t)
	const newcomer = "newcomer@example.com"

	owner := newChrome(t, s)
	chromeSignIn(owner, w.Owner.Email)
	members := "/orgs/" + w.OrgID + "/members"
	if st := owner.open(members); st != http.StatusOK {
		t.Fatalf("members page: status %d", st)
	}
	owner.fill("invite-email", newcomer)
	owner.run("choose the role", chromedp.SetValue(chromedp.ID("invite-role"), "member"))
	chromeGo(owner, `form[action="/orgs/`+w.OrgID+`/invitations"] button[type="submit"]`, http.StatusCreated, "/orgs/"+w.OrgID+"/invitations")
	owner.expectText("#created-h", newcomer)
	link := strings.TrimSpace(owner.text("#invitation-link"))
	u, err := url.Parse(link)
	if err != nil || u.Path != "/invitations/accept" || u.Query().Get("token") == "" {
		t.Fatalf("invitation link shown = %q", link)
	}
	owner.shot("invited")
	if st := owner.open(members); st != http.StatusOK {
		t.Fatalf("members page: status %d", st)
	}
	owner.expectText("main", newcomer)
	if strings.Contains(owner.text("main"), u.Query().Get("token")) {
		t.Error("the members page shows the invitation's token again")
	}

	// The invitee, signed out, in a browser of their own (the link's host is
	// the app URL; the test server stands in for it).
	guest := newChrome(t, s)
	if st := guest.open(u.RequestURI()); st != http.StatusOK {
		t.Fatalf("invitation link: status %d", st)
	}
	guest.expectText("h1", "Join Acme")
	guest.expectText("main", "member")
	if v := eval[string](guest, `document.getElementById("email").value`); v != newcomer {
		t.Errorf("the sign-up form's email = %q, want %q", v, newcomer)
	}
	guest.shot("invitation")
	guest.fill("name", "New Comer")
	guest.fill("password", apitest.Password)
	chromeGo(guest, `form[action="/invitations/accept"] button[type="submit"]`, http.StatusOK, "/orgs/"+w.OrgID)
	guest.expectText("h1", "Acme")
	guest.expectText("main", "member")
	guest.shot("joined")

	// The API agrees: a member, and the account signs in with its password.
	found := false
	for _, m := range s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs/" + w.OrgID + "/members?limit=100", Token: w.Owner.Token}).
		Expect(t, http.StatusOK, "").JSON(t)["data"].([]any) {
		m := m.(map[string]any)
		if m["email"] == newcomer {
			found = true
			if m["role"] != "member" {
				t.Errorf("newcomer's role = %v, want member", m["role"])
			}
		}
	}
	if !found {
		t.Fatalf("%s is not among the members", newcomer)
	}
	s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/sign-in/email", Body: map[string]any{"email": newcomer, "password": apitest.Password}}).
		Expect(t, http.StatusOK, "")
	guest.expectNoProblems()
	owner.expectNoProblems()
}
