package web_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
)

var (
	chanSecretRe = regexp.MustCompile(`<code id="signing-secret">([^<]+)</code>`)
	// chanSecretFormat is a signing secret: whsec_ and 32 bytes in base64.
	chanSecretFormat = regexp.MustCompile(`^whsec_[A-Za-z0-9+/]{43}=$`)
	chanIDRe         = regexp.MustCompile(`href="/channels/(chn_[0-9a-z]+)"`)
)

// chanCreate posts one of the list page's creation forms.
func chanCreate(b *browser, projectID string, form url.Values) *page {
	b.t.Helper()
	return b.post("/projects/"+projectID+"/channels", form)
}

// chanNewHook creates a webhook channel through the dashboard and returns
// its id and the secret shown.
func chanNewHook(t *testing.T, b *browser, projectID, name, hookURL string) (string, string) {
	t.Helper()
	p := chanCreate(b, projectID, url.Values{"type": {"webhook"}, "name": {name}, "url": {hookURL}}).
		expect(t, http.StatusCreated, `data-copy="#signing-secret"`, "you will not see it again")
	sec, ids := chanSecretRe.FindStringSubmatch(p.Body), chanIDRe.FindStringSubmatch(p.Body)
	if sec == nil || ids == nil {
		t.Fatalf("creation page lacks the secret or the channel link: %s", p.Body)
	}
	secret := html.UnescapeString(sec[1])
	if !chanSecretFormat.MatchString(secret) {
		t.Fatalf("secret shown = %q, want whsec_ and 32 bytes in base64", secret)
	}
	return ids[1], secret
}

// chanShownSecret returns the secret a page shows, unescaped, or "".
func chanShownSecret(body string) string {
	if m := chanSecretRe.FindStringSubmatch(body); m != nil {
		return html.UnescapeString(m[1])
	}
	return ""
}

// chanAPI reads a channel through the API as token.
func chanAPI(t *testing.T, s *apitest.Server, token, channelID string) map[string]any {
	t.Helper()
	return s.Do(apitest.Request{Method: "GET", Path: "/v1/channels/" + channelID, Token: token}).Expect(t, http.StatusOK, "").JSON(t)
}

func TestChannelCreateShowsTheSecretOnce(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		rc := chanReceiver(t, http.StatusOK)
		b := newBrowser(t, s)
		b.signIn(w.Admin.Email)
		list := "/projects/" + w.ProjectID + "/channels"
		b.get(list).expect(t, http.StatusOK, "No channels yet", `<label for="wh-url">`, `<label for="em-email">`, `action="`+list+`"`)

		chID, secret := chanNewHook(t, b, w.ProjectID, "Ops hook", rc.URL)
		api := chanAPI(t, s, w.Admin.Token, chID)
		if api["type"] != "webhook" || api["url"] != rc.URL || api["name"] != "Ops hook" || api["member_id"] != w.Admin.MemberID {
			t.Errorf("API sees the created channel as %v", api)
		}
		for _, path := range []string{"/channels/" + chID, list} {
			p := b.get(path).expect(t, http.StatusOK, "Ops hook", rc.URL, "enabled", `<span class="badge health-ok">ok</span>`)
			if strings.Contains(html.UnescapeString(p.Body), secret) || strings.Contains(p.Body, "whsec_") {
				t.Errorf("%s shows the signing secret again", path)
			}
		}

		created := chanCreate(b, w.ProjectID, url.Values{"type": {"email"}, "name": {"Admin mail"}, "email": {""}}).
			expect(t, http.StatusCreated, "Admin mail", w.Admin.Email)
		if strings.Contains(created.Body, "whsec_") || strings.Contains(created.Body, "signing-secret") {
			t.Errorf("an email channel's creation shows a secret: %s", created.Body)
		}
		mailID := chanIDRe.FindStringSubmatch(created.Body)[1]
		if got := chanAPI(t, s, w.Admin.Token, mailID)["email"]; got != w.Admin.Email {
			t.Errorf("email channel address = %v, want the admin's %s", got, w.Admin.Email)
		}

		// After a downgrade the webhook is kept, shown as not allowed, and
		// its test refused.
		if _, err := s.App.Orgs.SetPlan(context.Background(), w.OrgID, "free"); err != nil {
			t.Fatal(err)
		}
		b.get(list).expect(t, http.StatusOK, "not allowed by plan")
		b.post("/channels/"+chID+"/test", nil).expect(t, http.StatusForbidden, `role="alert">the free plan does not include webhook channels`, "allowed by plan</th><td>false")
		if rc.hits.Load() != 0 {
			t.Errorf("a webhook not allowed by the plan was sent a test")
		}
	}, chanAllowPrivate)
}

func TestChannelCreateProblemsKeepTheForm(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		b := newBrowser(t, s)
		b.signIn(w.Admin.Email)
		bad := chanCreate(b, w.ProjectID, url.Values{"type": {"webhook"}, "name": {"Plain hook"}, "url": {"http://hooks.example.com/x"}}).
			expect(t, http.StatusUnprocessableEntity, `id="wh-url-err" role="alert">Webhook URL must use https.`, `value="Plain hook"`, `value="http://hooks.example.com/x"`, `aria-invalid="true"`)
		if strings.Contains(bad.Body, "whsec_") {
			t.Errorf("a refused creation shows a secret")
		}
		chanCreate(b, w.ProjectID, url.Values{"type": {"email"}, "name": {"Mail"}, "email": {"not an address"}}).
			expect(t, http.StatusUnprocessableEntity, `id="em-email-err" role="alert"`, "is not an email address", `value="not an address"`)
		// A type neither form sends, posted by hand, still says what is wrong.
		chanCreate(b, w.ProjectID, url.Values{"type": {"sms"}, "name": {"Text me"}}).
			expect(t, http.StatusUnprocessableEntity, `type: want email or webhook, got &#34;sms&#34;`)

		if _, err := s.App.Orgs.SetPlan(context.Background(), w.OrgID, "free"); err != nil {
			t.Fatal(err)
		}
		chanCreate(b, w.ProjectID, url.Values{"type": {"webhook"}, "name": {"Team hook"}, "url": {"https://hooks.example.com/x"}}).
			expect(t, http.StatusForbidden, `role="alert">the free plan does not include webhook channels`, `value="Team hook"`)
		for i := range 3 {
			chanCreate(b, w.ProjectID, url.Values{"type": {"email"}, "name": {"Mail " + string(rune('A'+i))}}).expect(t, http.StatusCreated)
		}
		chanCreate(b, w.ProjectID, url.Values{"type": {"email"}, "name": {"One too many"}}).
			expect(t, http.StatusForbidden, `role="alert">the free plan allows 3 channels per project`, `value="One too many"`)
		items := s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.ProjectID + "/channels", Token: w.Admin.Token}).Expect(t, http.StatusOK, "").JSON(t)
		if n := len(items["data"].([]any)); n != 3 {
			t.Errorf("API lists %d channels, want 3", n)
		}
	})
}

func TestChannelRolesAndOtherOrganizations(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		admin := newBrowser(t, s)
		admin.signIn(w.Admin.Email)
		if s.Config.SMTPURL == "" { // the email form says when the server sends no email
			admin.get("/projects/"+w.ProjectID+"/channels").expect(t, http.StatusOK, "This server sends no email")
		}
		created := chanCreate(admin, w.ProjectID, url.Values{"type": {"email"}, "name": {"Team mail"}}).expect(t, http.StatusCreated)
		chID := chanIDRe.FindStringSubmatch(created.Body)[1]
		admin.get("/channels/"+chID).expect(t, http.StatusOK, `action="/channels/`+chID+`/test"`, `action="/channels/`+chID+`/disable"`,
			`action="/channels/`+chID+`/delete" data-confirm=`)

		viewer := newBrowser(t, s)
		viewer.signIn(w.Viewer.Email)
		vl := viewer.get("/projects/"+w.ProjectID+"/channels").expect(t, http.StatusOK, "Team mail")
		if strings.Contains(vl.Body, `name="type"`) {
			t.Errorf("a viewer is offered the creation form")
		}
		vp := viewer.get("/channels/"+chID).expect(t, http.StatusOK, "Team mail", "Delivery log")
		member := newBrowser(t, s)
		member.signIn(w.Member.Email)
		mp := member.get("/channels/"+chID).expect(t, http.StatusOK, `action="/channels/`+chID+`/test"`)
		for _, action := range []string{"/disable", "/enable", "/delete", "/rotate-secret"} {
			if strings.Contains(mp.Body, chID+action) || strings.Contains(vp.Body, chID+action) {
				t.Errorf("a member or viewer is offered %s", action)
			}
		}
		if strings.Contains(vp.Body, chID+"/test") {
			t.Errorf("a viewer is offered the test button")
		}

		for _, path := range []string{"/channels/" + chID + "/test", "/channels/" + chID + "/disable", "/channels/" + chID + "/delete",
			"/channels/" + chID + "/rotate-secret", "/projects/" + w.ProjectID + "/channels"} {
			viewer.post(path, url.Values{"type": {"email"}, "name": {"sneaky"}}).expect(t, http.StatusForbidden, "forbidden")
		}
		for _, path := range []string{"/channels/" + chID + "/disable", "/channels/" + chID + "/delete", "/projects/" + w.ProjectID + "/channels"} {
			member.post(path, url.Values{"type": {"email"}, "name": {"sneaky"}}).expect(t, http.StatusForbidden, "forbidden")
		}
		if api := chanAPI(t, s, w.Admin.Token, chID); api["enabled"] != true {
			t.Errorf("a refused disable changed the channel: %v", api)
		}

		outsiderMember := s.MemberID(t, w.Outsider.Token, w.OtherOrgID, w.Outsider.UserID)
		other := s.Do(apitest.Request{Method: "POST", Path: "/v1/projects/" + w.OtherProjectID + "/channels", Token: w.Outsider.Token,
			Body: map[string]any{"member_id": outsiderMember, "name": "Theirs", "type": "email"}}).Expect(t, http.StatusCreated, "").Str(t, "id")
		admin.get("/channels/"+other).expect(t, http.StatusNotFound, "not-found")
		admin.post("/channels/"+other+"/test", nil).expect(t, http.StatusNotFound, "not-found")
		admin.post("/channels/"+other+"/delete", nil).expect(t, http.StatusNotFound, "not-found")
		admin.get("/channels/chn_nope").expect(t, http.StatusNotFound, "not-found")
		admin.get("/projects/"+w.OtherProjectID+"/channels").expect(t, http.StatusNotFound, "not-found")
		chanAPI(t, s, w.Outsider.Token, other)
	})
}
