package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/store"
)

// TestChromeSSO signs an invited person in through the real OpenID
// Connect provider in Chromium: the dashboard's button, the provider's
// login and consent pages, and back to the dashboard signed in with a
// session of method oidc.
func TestChromeSSO(t *testing.T) {
	t.Parallel()
	chromePath(t)
	port := freePort(t)
	s := apitest.Start(t, store.SQLite, withSSO(port))
	owner := s.SignUp(t, "owner@example.com")
	orgID := s.CreateOrg(t, owner.Token, "Acme")
	s.Invite(t, owner.Token, orgID, "ada@example.com", "member")
	startProvider(t, port, s)

	c := newChrome(t, s)
	if st := c.open("/sign-in"); st != http.StatusOK {
		t.Fatalf("sign-in page: %d", st)
	}
	c.shot("sso-sign-in")
	st, loc := c.click(`a[href="/auth/oidc/start"]`)
	if st != http.StatusOK || !strings.HasPrefix(loc, "http://127.0.0.1:"+port+"/interaction/") {
		t.Fatalf("the button led to %d %s, want the provider's login page", st, loc)
	}
	c.run("log in at the provider", chromedp.SendKeys(chromedp.CSS(`input[name="login"]`), "ada"),
		chromedp.SendKeys(chromedp.CSS(`input[name="password"]`), "anything"))
	if st, loc = c.click(`button[type="submit"]`); st != http.StatusOK || !strings.Contains(loc, "/interaction/") {
		t.Fatalf("after the login: %d %s, want the consent page", st, loc)
	}
	if st, loc = c.click(`button[type="submit"]`); st != http.StatusOK || loc != "/" {
		t.Fatalf("after the consent: %d %s, want the dashboard's home", st, loc)
	}
	c.expectText("header", "SSO ada", "Sign out")
	c.open("/account")
	c.expectText("main", "ada@example.com", "oidc")
	c.shot("sso-account")
}
