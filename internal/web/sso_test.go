package web_test

import (
	"bufio"
	"context"
	"github.com/errata-dev/errata/internal/httpserver"
	"github.com/errata-dev/errata/internal/id"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/config"
	"github.com/errata-dev/errata/internal/mail/mailtest"
	"github.com/errata-dev/errata/internal/sso"
	"github.com/errata-dev/errata/internal/testtool"
)

// oidcProviderVersion is the npm oidc-provider the single sign-on tests run
// (.ci/run installs it).
const oidcProviderVersion = "9.13.3"

const (
	ssoClientID     = "errata"
	ssoClientSecret = "a long test client secret"
)

// freePort returns a loopback port nothing listens on.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	_, port, _ := net.SplitHostPort(ln.Addr().String())
	return port
}

// startProvider runs the real OpenID Connect provider on port, with
// Errata's client allowed to redirect to each of apps' callbacks.
func startProvider(t *testing.T, port string, apps ...*apitest.Server) {
	t.Helper()
	testtool.NPMPackage(t, "oidc-provider", oidcProviderVersion)
	var redirects []string
	for _, s := range apps {
		redirects = append(redirects, s.Config.AppURL+"/auth/oidc/callback")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, "node", "testdata/oidc_provider.mjs", port, ssoClientID, ssoClientSecret, strings.Join(redirects, ","))
	cmd.Env = append(os.Environ(), "ERRATA_NPM_CACHE="+testtool.NPMCache())
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start the OpenID provider: %v", err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "listening ") {
				ready <- true
			}
		}
		_, _ = io.Copy(io.Discard, out)
	}()
	select {
	case <-ready:
	case <-time.After(30 * time.Second):
		t.Fatal("the OpenID provider did not start within 30 s")
	}
}

var (
	formAction = regexp.MustCompile(`<form[^>]*action="([^"]+)"`)
	formPrompt = regexp.MustCompile(`name="prompt" value="([a-z]+)"`)
)

// ssoSignIn follows the single sign-on flow from s's button as a browser
// would, logging in to the provider as login and consenting, until Errata
// answers something other than a redirect into the flow: it returns that
// answer's status, its Location and its body.
func ssoSignIn(t *testing.T, s *apitest.Server, jar http.CookieJar, login string, tamper ...func(callback *url.URL)) (int, string, string) {
	t.Helper()
	client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	target, method, form := s.URL+"/auth/oidc/start?next=/account", "GET", url.Values(nil)
	for range 20 {
		var body io.Reader
		if form != nil {
			body = strings.NewReader(form.Encode())
		}
		req, _ := http.NewRequest(method, target, body)
		if form != nil {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		res, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, target, err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		fromErrata := strings.HasPrefix(target, s.URL)
		switch {
		case res.StatusCode >= 300 && res.StatusCode < 400:
			loc, _ := res.Request.URL.Parse(res.Header.Get("Location"))
			if fromErrata && !strings.HasPrefix(target, s.URL+"/auth/oidc/start") {
				return res.StatusCode, loc.String(), string(b)
			}
			if strings.HasPrefix(loc.String(), s.URL+"/auth/oidc/callback") {
				for _, f := range tamper {
					f(loc)
				}
			}
			target, method, form = loc.String(), "GET", nil
		case res.StatusCode == http.StatusOK && !fromErrata:
			action, prompt := formAction.FindStringSubmatch(string(b)), formPrompt.FindStringSubmatch(string(b))
			if action == nil || prompt == nil {
				t.Fatalf("the provider's page has no form: %s", b)
			}
			next, _ := res.Request.URL.Parse(action[1])
			target, method, form = next.String(), "POST", url.Values{"prompt": {prompt[1]}}
			if prompt[1] == "login" {
				form.Set("login", login)
				form.Set("password", "anything")
			}
		default:
			return res.StatusCode, "", string(b)
		}
	}
	t.Fatal("the sign-in flow does not end")
	return 0, "", ""
}

func sessionOf(t *testing.T, jar http.CookieJar, s *apitest.Server) *http.Cookie {
	t.Helper()
	u, _ := url.Parse(s.URL)
	for _, c := range jar.Cookies(u) {
		if c.Name == "errata_session" {
			return c
		}
	}
	t.Fatal("no errata_session cookie")
	return nil
}

func withSSO(port string) func(*config.Serve) {
	return func(c *config.Serve) {
		c.OIDCIssuer, c.OIDCClientID, c.OIDCClientSecret, c.OIDCName = "http://127.0.0.1:"+port, ssoClientID, ssoClientSecret, "Acme ID"
	}
}

// TestSSOSignIn signs in through a real OpenID Connect provider (npm
// oidc-provider): the code flow with PKCE, state and nonce; only verified
// emails; users created only when invited (invite-only server) or by an
// auto-join rule; sessions of method oidc; an organization's sso_required.
func TestSSOSignIn(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		port := freePort(t)
		s = apitest.StartOn(t, s.DatabaseURL, withSSO(port))
		owner := s.SignUp(t, "owner@example.com")
		orgID := s.CreateOrg(t, owner.Token, "Acme")
		joins := apitest.StartOn(t, s.DatabaseURL, withSSO(port), func(c *config.Serve) { c.OIDCAutoJoin = []string{"corp.example=" + orgID + ":member"} })
		// A rule naming an organization that does not exist joins nobody,
		// so it creates no account either.
		ghost := apitest.StartOn(t, s.DatabaseURL, withSSO(port), func(c *config.Serve) { c.OIDCAutoJoin = []string{"corp.example=" + id.New(id.Org) + ":member"} })
		startProvider(t, port, s, joins, ghost)
		newJar := func() http.CookieJar { j, _ := cookiejar.New(nil); return j }

		b := newBrowser(t, s)
		b.get("/sign-in").expect(t, http.StatusOK, `href="/auth/oidc/start"`, "Sign in with Acme ID")

		// No account and no invitation on an invite-only server.
		st, _, body := ssoSignIn(t, s, newJar(), "ada")
		if st != http.StatusForbidden || !strings.Contains(body, "invitation") {
			t.Fatalf("an uninvited stranger: %d %s", st, body)
		}
		// The provider has not verified the address: not trusted.
		s.AddMember(t, owner.Token, orgID, "unverified@example.com", "member")
		if st, _, body := ssoSignIn(t, s, newJar(), "unverified"); st != http.StatusForbidden || !strings.Contains(body, "not verified") {
			t.Fatalf("an unverified email: %d %s", st, body)
		}
		// Refused for an account's address: a failed sign-in in its
		// organizations' audit log (CONTRACT 8).
		failed := s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs/" + orgID + "/audit-log?action=user.sign_in_failed", Token: owner.Token}).Expect(t, http.StatusOK, "").JSON(t)["data"].([]any)
		if len(failed) != 1 || failed[0].(map[string]any)["data"].(map[string]any)["reason"] != "oidc_unverified_email" {
			t.Fatalf("failed sign-ins in the audit log = %v", failed)
		}

		// Invited: the account is created and the invitation accepted.
		s.Invite(t, owner.Token, orgID, "ada@example.com", "admin")
		jar := newJar()
		st, loc, body := ssoSignIn(t, s, jar, "ada")
		if st != http.StatusSeeOther || loc != s.URL+"/account" {
			t.Fatalf("an invited user: %d %q %s", st, loc, body)
		}
		ada := sessionOf(t, jar, s)
		sess := s.Do(apitest.Request{Method: "GET", Path: "/v1/auth/sessions", Cookies: []*http.Cookie{ada}}).Expect(t, http.StatusOK, "").JSON(t)
		if m := sess["data"].([]any)[0].(map[string]any)["method"]; m != "oidc" {
			t.Fatalf("session method = %v, want oidc", m)
		}
		s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs/" + orgID, Cookies: []*http.Cookie{ada}}).Expect(t, http.StatusOK, "")
		me := s.Do(apitest.Request{Method: "GET", Path: "/v1/auth/session", Cookies: []*http.Cookie{ada}}).Expect(t, http.StatusOK, "").JSON(t)
		if u := me["user"].(map[string]any); u["email"] != "ada@example.com" || u["email_verified"] != true || u["name"] != "SSO ada" {
			t.Fatalf("user = %v", u)
		}
		// She has no password: password sign-in fails as a wrong one.
		s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/sign-in/email", Body: map[string]any{"email": "ada@example.com", "password": ""}}).
			Expect(t, http.StatusUnauthorized, "invalid-credentials")

		// sso_required: set only from a single sign-on session, then
		// password sessions are refused.
		origin := map[string]string{"Origin": s.URL}
		s.Do(apitest.Request{Method: "PATCH", Path: "/v1/orgs/" + orgID, Token: owner.Token, Body: map[string]any{"sso_required": true}}).
			Expect(t, http.StatusForbidden, "sso-required")
		ownerJar := newJar()
		if st, _, body := ssoSignIn(t, s, ownerJar, "owner"); st != http.StatusSeeOther {
			t.Fatalf("the owner through single sign-on: %d %s", st, body)
		}
		ownerSSO := sessionOf(t, ownerJar, s)
		r := s.Do(apitest.Request{Method: "PATCH", Path: "/v1/orgs/" + orgID, Cookies: []*http.Cookie{ownerSSO}, Headers: origin, Body: map[string]any{"sso_required": true}}).
			Expect(t, http.StatusOK, "")
		if r.JSON(t)["sso_required"] != true {
			t.Fatalf("organization = %s", r.Body)
		}
		s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs/" + orgID, Token: owner.Token}).Expect(t, http.StatusForbidden, "sso-required")
		s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs/" + orgID, Cookies: []*http.Cookie{ownerSSO}}).Expect(t, http.StatusOK, "")
		s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs/" + orgID, Cookies: []*http.Cookie{ada}}).Expect(t, http.StatusOK, "")
		// Personal API tokens are held to the rule of the session that
		// made them: one a password session made is refused (a way round
		// the rule otherwise), one a single sign-on session made works.
		tokenOf := func(req apitest.Request, method string) string {
			req.Method, req.Path, req.Body = "POST", "/v1/auth/tokens", map[string]any{"name": "ci", "scopes": []string{"org:read"}}
			r := s.Do(req).Expect(t, http.StatusCreated, "")
			if r.Str(t, "method") != method {
				t.Errorf("token made from a %s session = %s, want method %s", method, r.Body, method)
			}
			return r.Str(t, "token")
		}
		s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs/" + orgID, Token: tokenOf(apitest.Request{Token: owner.Token}, "password")}).
			Expect(t, http.StatusForbidden, "sso-required")
		s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs/" + orgID, Token: tokenOf(apitest.Request{Cookies: []*http.Cookie{ownerSSO}, Headers: origin}, "oidc")}).
			Expect(t, http.StatusOK, "")
		// The home page does not list its projects to a password session.
		home := s.Do(apitest.Request{Method: "GET", Path: "/", Cookies: []*http.Cookie{{Name: httpserver.SessionCookie, Value: owner.Token}}}).Expect(t, http.StatusOK, "")
		if !strings.Contains(string(home.Body), "requires single sign-on") {
			t.Errorf("home of a password session does not say the organization requires single sign-on: %s", home.Body)
		}
		// The organization's page refuses the password session with a way
		// in through the provider, back to the same page.
		page := s.Do(apitest.Request{Method: "GET", Path: "/orgs/" + orgID, Cookies: []*http.Cookie{{Name: httpserver.SessionCookie, Value: owner.Token}}}).
			Expect(t, http.StatusForbidden, "")
		if want := `href="/auth/oidc/start?next=%2forgs%2f` + orgID + `">Sign in with Acme ID</a>`; !strings.Contains(string(page.Body), want) {
			t.Errorf("the sso-required page has no %s: %s", want, page.Body)
		}
		if home := s.Do(apitest.Request{Method: "GET", Path: "/", Cookies: []*http.Cookie{ownerSSO}}); strings.Contains(string(home.Body), "requires single sign-on") {
			t.Error("home of a single sign-on session says the organization requires it")
		}

		if st, _, body := ssoSignIn(t, ghost, newJar(), "autogina"); st != http.StatusForbidden || !strings.Contains(body, "invitation") {
			t.Fatalf("a rule naming no organization: %d %s, want 403 as for an uninvited stranger", st, body)
		}

		// Auto-join: a user of the mapped domain is created as a member.
		jar = newJar()
		if st, _, body := ssoSignIn(t, joins, jar, "autobob"); st != http.StatusSeeOther {
			t.Fatalf("an auto-joined user: %d %s", st, body)
		}
		members := items(t, s, ownerSSO, "/v1/orgs/"+orgID+"/members")
		found := false
		for _, m := range members {
			found = found || (m["email"] == "autobob@corp.example" && m["role"] == "member")
		}
		if !found {
			t.Fatalf("members = %v, want autobob@corp.example as member", members)
		}

		// A callback this browser did not start is refused.
		b.get("/auth/oidc/callback?state=forged&code=x").expect(t, http.StatusBadRequest, "not started here")
		// A code used once, replayed in a sign-in of its own: the provider
		// refuses it, and the person is told to start again (400, not the
		// 502 of a provider that failed).
		var used string
		if st, _, body := ssoSignIn(t, joins, newJar(), "autobob", func(u *url.URL) { used = u.Query().Get("code") }); st != http.StatusSeeOther {
			t.Fatalf("a second sign-in: %d %s", st, body)
		}
		replay := func(u *url.URL) { q := u.Query(); q.Set("code", used); u.RawQuery = q.Encode() }
		if st, _, body := ssoSignIn(t, joins, newJar(), "autobob", replay); st != http.StatusBadRequest || !strings.Contains(body, "does not hold") {
			t.Fatalf("a replayed code: %d %s", st, body)
		}
		// A flow that took longer than its ten minutes is refused, its
		// cookie's own lifetime aside (a browser keeps what it is sent).
		late := func(*url.URL) { joins.Clock.Advance(sso.FlowTTL + time.Minute) }
		if st, _, body := ssoSignIn(t, joins, newJar(), "autobob", late); st != http.StatusBadRequest || !strings.Contains(body, "took too long") {
			t.Fatalf("a sign-in that took 11 minutes: %d %s", st, body)
		}
	})
}

func items(t *testing.T, s *apitest.Server, c *http.Cookie, path string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, d := range s.Do(apitest.Request{Method: "GET", Path: path, Cookies: []*http.Cookie{c}}).Expect(t, http.StatusOK, "").JSON(t)["data"].([]any) {
		out = append(out, d.(map[string]any))
	}
	return out
}

// TestSSOClaimsAnUnprovenAccount: on an open server anyone may make a
// password account for another's address; when the address's owner first
// signs in through the provider, which proves it, every way into the
// account set before (its password, sessions, API tokens) ends, so that
// whoever made it keeps none, nor the organization auto-join then grants.
func TestSSOClaimsAnUnprovenAccount(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		port := freePort(t)
		owner := s.SignUp(t, "owner@example.com")
		orgID := s.CreateOrg(t, owner.Token, "Acme")
		smtp := mailtest.Start(t) // with email, a password account's address is unproven until its link is opened
		s = apitest.StartOn(t, s.DatabaseURL, withSSO(port), func(c *config.Serve) {
			c.Signup, c.OIDCAutoJoin, c.SMTPURL = "open", []string{"corp.example=" + orgID + ":member"}, smtp.URL()
		})
		startProvider(t, port, s)
		squat := s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/sign-up/email",
			Body: map[string]any{"email": "autovic@corp.example", "password": "squatter password", "name": "Vic"}}).Expect(t, http.StatusOK, "").JSON(t)
		squatter := squat["token"].(string)
		tok := s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/tokens", Token: squatter,
			Body: map[string]any{"name": "t", "scopes": []string{"org:read"}}}).Expect(t, http.StatusCreated, "").Str(t, "token")
		s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs/" + orgID, Token: squatter}).Expect(t, http.StatusNotFound, "")

		jar, _ := cookiejar.New(nil)
		if st, _, body := ssoSignIn(t, s, jar, "autovic"); st != http.StatusSeeOther {
			t.Fatalf("the address's owner through the provider: %d %s", st, body)
		}
		vic := sessionOf(t, jar, s)
		s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs/" + orgID, Cookies: []*http.Cookie{vic}}).Expect(t, http.StatusOK, "")
		for _, token := range []string{squatter, tok} { // the squatter's session, then its API token
			s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs/" + orgID, Token: token}).Expect(t, http.StatusUnauthorized, "unauthorized")
		}
		s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/sign-in/email", Body: map[string]any{"email": "autovic@corp.example", "password": "squatter password"}}).
			Expect(t, http.StatusUnauthorized, "invalid-credentials")
		sess := s.Do(apitest.Request{Method: "GET", Path: "/v1/auth/sessions", Cookies: []*http.Cookie{vic}}).Expect(t, http.StatusOK, "").JSON(t)["data"].([]any)
		if len(sess) != 1 || sess[0].(map[string]any)["method"] != "oidc" {
			t.Errorf("sessions after the claim = %v, want only the provider's", sess)
		}
		reset := s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs/" + orgID + "/audit-log?action=user.credentials_reset", Token: owner.Token}).
			Expect(t, http.StatusOK, "").JSON(t)["data"].([]any)
		if len(reset) != 1 {
			t.Errorf("user.credentials_reset entries = %v, want one", reset)
		}
		// Recorded once the account joined the organization, not before
		// (it had none to record in).
		verified := s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs/" + orgID + "/audit-log?action=user.email_verified", Token: owner.Token}).
			Expect(t, http.StatusOK, "").JSON(t)["data"].([]any)
		if len(verified) != 1 || verified[0].(map[string]any)["data"].(map[string]any)["method"] != "oidc" {
			t.Errorf("user.email_verified entries = %v, want one of method oidc", verified)
		}
	})
}

// TestSSOOffersTheFirstAccount: on a server with no account yet the
// sign-in form sends to the sign-up form, which offers single sign-on too
// (the provider may make the installation's first account, docs/sso.md).
func TestSSOOffersTheFirstAccount(t *testing.T) {
	s := apitest.Start(t, "sqlite", withSSO(freePort(t)))
	b := newBrowser(t, s)
	b.get("/sign-up").expect(t, http.StatusOK, `href="/auth/oidc/start"`, "Create it with Acme ID")
	s.SignUp(t, "owner@example.com")
	b.get("/sign-in").expect(t, http.StatusOK, `href="/auth/oidc/start"`, "Sign in with Acme ID")
}
