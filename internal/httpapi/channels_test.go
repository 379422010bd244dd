package httpapi_test

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
)

func TestCreateWebhookChannel(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		rc := newReceiver(t, http.StatusOK)
		body := webhookChannel(w.Member.MemberID, "  hooks  ", rc.URL)
		body["signing_secret"], body["enabled"], body["id"] = "whsec_mine", false, "chn_mine" // unknown or read-only: ignored
		ch := createChannel(t, s, w.Admin.Token, w.ProjectID, body)
		id, _ := ch["id"].(string)
		if !strings.HasPrefix(id, "chn_") || id == "chn_mine" {
			t.Errorf("id = %q, want a new chn_ identifier", id)
		}
		want := map[string]any{"project_id": w.ProjectID, "member_id": w.Member.MemberID, "name": "hooks", "type": "webhook", "url": rc.URL,
			"enabled": true, "health": "ok", "consecutive_failures": float64(0), "allowed_by_plan": true, "last_delivery_at": nil, "previous_secret_until": nil}
		for k, v := range want {
			if got, present := ch[k]; !present || got != v {
				t.Errorf("%s = %v (present %v), want %v", k, got, present, v)
			}
		}
		if _, has := ch["email"]; has {
			t.Errorf("a webhook channel shows email %v", ch["email"])
		}
		for _, f := range []string{"created_at", "updated_at"} {
			apiTime(t, ch[f])
		}
		secret, _ := ch["signing_secret"].(string)
		if !secretRe.MatchString(secret) || secret == "whsec_mine" {
			t.Fatalf("signing_secret = %q, want whsec_ and 32 random bytes in base64", secret)
		}
		if raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_")); err != nil || len(raw) != 32 {
			t.Errorf("signing_secret %q decodes to %d bytes (%v), want 32", secret, len(raw), err)
		}
		_, other := newHook(t, s, w, w.ProjectID, "second", rc.URL)
		if other == secret {
			t.Errorf("two channels share the secret %q", secret)
		}

		// The secret is never shown again.
		for _, r := range []apitest.Request{
			{Method: "GET", Path: "/v1/channels/" + id, Token: w.Viewer.Token},
			{Method: "GET", Path: channelsPath(w.ProjectID), Token: w.Viewer.Token},
			{Method: "PATCH", Path: "/v1/channels/" + id, Token: w.Admin.Token, Body: map[string]any{"name": "renamed"}},
			{Method: "GET", Path: "/v1/channels/" + id + "/deliveries", Token: w.Owner.Token},
		} {
			res := s.Do(r).Expect(t, http.StatusOK, "")
			if strings.Contains(string(res.Body), secret) || strings.Contains(string(res.Body), "signing_secret") {
				t.Errorf("%s %s shows the signing secret: %s", r.Method, r.Path, res.Body)
			}
		}
		list := items(t, s, w.Viewer.Token, channelsPath(w.ProjectID))
		if len(list) != 2 || list[1]["id"] != id || list[1]["name"] != "renamed" {
			t.Errorf("channels = %v, want the renamed channel after the newer one", ids(list))
		}
	}, allowPrivate)
}

func TestCreateEmailChannel(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		for _, c := range []struct {
			name         string
			body         map[string]any
			email        string
			confirmation string
		}{
			{"member's address by default", emailChannel(w.Member.MemberID, "mine"), "member@example.com", "confirmed"},
			{"another member's address", emailChannel(w.Viewer.MemberID, "viewer's"), "viewer@example.com", "confirmed"},
			{"a member's address as typed", map[string]any{"member_id": w.Member.MemberID, "name": "typed", "type": "email", "email": " Viewer@EXAMPLE.com"}, "viewer@example.com", "confirmed"},
			{"an address of its own", map[string]any{"member_id": w.Member.MemberID, "name": "alerts", "type": "email", "email": "alerts@example.com"}, "alerts@example.com", "pending"},
			{"a URL is ignored", map[string]any{"member_id": w.Owner.MemberID, "name": "u", "type": "email", "url": "https://hooks.example.com/x"}, "owner@example.com", "confirmed"},
		} {
			ch := createChannel(t, s, w.Admin.Token, w.ProjectID, c.body)
			if ch["type"] != "email" || ch["email"] != c.email || ch["member_id"] != c.body["member_id"] || ch["enabled"] != true ||
				ch["confirmation"] != c.confirmation || ch["unsubscribed_at"] != nil {
				t.Errorf("%s: channel = %v, want an enabled email channel to %s, %s", c.name, ch, c.email, c.confirmation)
			}
			for _, f := range []string{"signing_secret", "url"} {
				if v, has := ch[f]; has {
					t.Errorf("%s: an email channel shows %s = %v", c.name, f, v)
				}
			}
		}
	})
}

// TestCreateChannelValidation: every invalid field is 422 naming it, and
// nothing is created. The server refuses private webhook addresses, so no
// case may reach the URL rules.
func TestCreateChannelValidation(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		foreign := s.MemberID(t, w.Outsider.Token, w.OtherOrgID, w.Outsider.UserID)
		m := w.Member.MemberID
		url := "https://hooks.example.com/x"
		for _, c := range []struct {
			name  string
			body  map[string]any
			field string
		}{
			{"webhook without url", map[string]any{"member_id": m, "name": "x", "type": "webhook"}, "url"},
			{"webhook with empty url", webhookChannel(m, "x", ""), "url"},
			{"bad email", map[string]any{"member_id": m, "name": "x", "type": "email", "email": "not-an-address"}, "email"},
			{"email with display name", map[string]any{"member_id": m, "name": "x", "type": "email", "email": "Ann <ann@example.com>"}, "email"},
			{"unknown member", emailChannel("mem_"+zeros, "x"), "member_id"},
			{"malformed member", emailChannel("nobody", "x"), "member_id"},
			{"member of another organization", emailChannel(foreign, "x"), "member_id"},
			{"no member", map[string]any{"name": "x", "type": "email"}, "member_id"},
			{"empty member", emailChannel("", "x"), "member_id"},
			{"bad type", map[string]any{"member_id": m, "name": "x", "type": "sms"}, "type"},
			{"no type", map[string]any{"member_id": m, "name": "x"}, "type"},
			{"empty name", emailChannel(m, ""), "name"},
			{"blank name", emailChannel(m, "   "), "name"},
			{"long name", webhookChannel(m, strings.Repeat("n", 101), url), "name"},
			{"no name", map[string]any{"member_id": m, "type": "email"}, "name"},
			{"invalid field before a bad URL", webhookChannel(m, "", "http://10.0.0.1:80/#x"), "name"},
		} {
			r := s.Do(apitest.Request{Method: "POST", Path: channelsPath(w.ProjectID), Token: w.Admin.Token, Body: c.body})
			if r.Status != http.StatusUnprocessableEntity {
				t.Errorf("%s: status = %d, want 422; body: %s", c.name, r.Status, r.Body)
				continue
			}
			r.Expect(t, http.StatusUnprocessableEntity, "validation-failed")
			if d := r.Str(t, "detail"); !namesField(d, c.field) {
				t.Errorf("%s: detail = %q, want it to name %s", c.name, d, c.field)
			}
		}
		s.Do(apitest.Request{Method: "POST", Path: channelsPath(w.ProjectID), Token: w.Admin.Token, Body: `{"name":`}).Expect(t, http.StatusBadRequest, "malformed-body")
		if list := items(t, s, w.Owner.Token, channelsPath(w.ProjectID)); len(list) != 0 {
			t.Errorf("channels after refused creations = %v, want none", ids(list))
		}
	})
}

// TestInvalidWebhookURL runs on a server that refuses private addresses
// (the default): each URL breaks one rule of spec section 2, and the detail
// names it. None of these needs a DNS look-up.
func TestInvalidWebhookURL(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		if s.Config.WebhookAllowPrivate {
			t.Fatal("the test server allows private webhook addresses")
		}
		w := s.NewWorld(t)
		for _, c := range []struct {
			name, url, rule string
		}{
			{"http", "http://hooks.example.com/x", "https"},
			{"no scheme", "hooks.example.com/x", "https"},
			{"private address", "https://10.1.2.3/x", "private"},
			{"private address with port", "https://192.168.1.20:8443/x", "private"},
			{"loopback", "https://127.0.0.1:8443/x", "loopback"},
			{"localhost", "https://localhost:8443/x", "loopback"},
			{"loopback spelled as a number", "https://2130706433/x", "loopback"},
			{"IPv6 loopback", "https://[::1]:8443/x", "loopback"},
			{"IPv4-mapped private", "https://[::ffff:10.0.0.1]/x", "private"},
			{"cloud metadata", "https://169.254.169.254/latest", "link-local"},
			{"port 80", "https://hooks.example.com:80/x", "port 80"},
			{"port 1023", "https://hooks.example.com:1023/x", "port 1023"},
			{"port 0", "https://hooks.example.com:0/x", "port 0"},
			{"credentials", "https://user:pass@hooks.example.com/x", "credentials"},
			{"user only", "https://user@hooks.example.com/x", "credentials"},
			{"fragment", "https://hooks.example.com/x#top", "fragment"},
			{"empty fragment", "https://hooks.example.com/x#", "fragment"},
		} {
			r := s.Do(apitest.Request{Method: "POST", Path: channelsPath(w.ProjectID), Token: w.Admin.Token, Body: webhookChannel(w.Admin.MemberID, "x", c.url)})
			if r.Status != http.StatusUnprocessableEntity {
				t.Errorf("%s (%s): status = %d, want 422; body: %s", c.name, c.url, r.Status, r.Body)
				continue
			}
			r.Expect(t, http.StatusUnprocessableEntity, "invalid-webhook-url")
			if d := r.Str(t, "detail"); !strings.HasPrefix(d, "url: ") || !strings.Contains(d, c.rule) {
				t.Errorf("%s (%s): detail = %q, want url: and the rule (%q)", c.name, c.url, d, c.rule)
			}
		}
		if list := items(t, s, w.Owner.Token, channelsPath(w.ProjectID)); len(list) != 0 {
			t.Errorf("channels after refused URLs = %v, want none", ids(list))
		}
	})
}

// TestChannelPlanLimits: free allows 3 email channels per project and no
// webhooks; team allows 25 of either (CONTRACT 2). The plan is checked
// after the fields and before the URL (CONTRACT 6).
func TestChannelPlanLimits(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		setPlan(t, s, w.OrgID, "free")
		post := func(projectID string, body map[string]any) *apitest.Response {
			return s.Do(apitest.Request{Method: "POST", Path: channelsPath(projectID), Token: w.Admin.Token, Body: body})
		}
		for _, url := range []string{"https://hooks.example.com/x", "http://10.0.0.1:80/#x"} {
			r := post(w.ProjectID, webhookChannel(w.Admin.MemberID, "hook", url)).Expect(t, http.StatusForbidden, "channel-type-not-allowed")
			if d := r.Str(t, "detail"); !strings.Contains(d, "free") || !strings.Contains(d, "webhook") {
				t.Errorf("detail = %q, want it to name the free plan and webhooks", d)
			}
		}
		post(w.ProjectID, webhookChannel(w.Admin.MemberID, "", "https://hooks.example.com/x")).Expect(t, http.StatusUnprocessableEntity, "validation-failed")

		for i := range 3 {
			createChannel(t, s, w.Admin.Token, w.ProjectID, emailChannel(w.Admin.MemberID, "mail "+string(rune('a'+i))))
		}
		r := post(w.ProjectID, emailChannel(w.Admin.MemberID, "fourth")).Expect(t, http.StatusForbidden, "plan-limit-reached")
		if d := r.Str(t, "detail"); !strings.Contains(d, "3") {
			t.Errorf("detail = %q, want it to say 3", d)
		}
		post(w.ProjectID, emailChannel("mem_"+zeros, "fourth")).Expect(t, http.StatusUnprocessableEntity, "validation-failed")
		// The limit is per project.
		other := s.CreateProject(t, w.Owner.Token, w.OrgID, "other")
		createChannel(t, s, w.Admin.Token, other, emailChannel(w.Admin.MemberID, "mail"))
		// Deleting one makes room again.
		first := items(t, s, w.Admin.Token, channelsPath(w.ProjectID))[0]["id"].(string)
		s.Do(apitest.Request{Method: "DELETE", Path: "/v1/channels/" + first, Token: w.Admin.Token}).Expect(t, http.StatusNoContent, "")
		createChannel(t, s, w.Admin.Token, w.ProjectID, emailChannel(w.Admin.MemberID, "again"))

		setPlan(t, s, w.OrgID, "team")
		for i := 3; i < 25; i++ {
			createChannel(t, s, w.Admin.Token, w.ProjectID, emailChannel(w.Admin.MemberID, "mail"))
		}
		r = post(w.ProjectID, emailChannel(w.Admin.MemberID, "26th")).Expect(t, http.StatusForbidden, "plan-limit-reached")
		if d := r.Str(t, "detail"); !strings.Contains(d, "25") {
			t.Errorf("detail = %q, want it to say 25", d)
		}
		if ids, _ := pageIDs(t, s, w.Viewer.Token, channelsPath(w.ProjectID), "10"); len(ids) != 25 {
			t.Errorf("channels = %d, want 25", len(ids))
		}
	})
}

// TestDowngradeKeepsWebhooks: after a move to free a webhook channel stays,
// shown as not allowed by the plan; it cannot be tested and receives
// nothing (CONTRACT 6).
func TestDowngradeKeepsWebhooks(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		rc := newReceiver(t, http.StatusOK)
		hookID, _ := newHook(t, s, w, w.ProjectID, "hook", rc.URL)
		mailID := newMail(t, s, w, w.ProjectID, "mail")
		setPlan(t, s, w.OrgID, "free")
		if ch := getChannel(t, s, w.Viewer.Token, hookID); ch["allowed_by_plan"] != false || ch["enabled"] != true {
			t.Errorf("webhook channel after downgrade = %v, want enabled but not allowed by the plan", ch)
		}
		if ch := getChannel(t, s, w.Viewer.Token, mailID); ch["allowed_by_plan"] != true {
			t.Errorf("email channel after downgrade = %v, want allowed by the plan", ch)
		}
		s.Do(apitest.Request{Method: "POST", Path: "/v1/channels/" + hookID + "/test", Token: w.Member.Token}).Expect(t, http.StatusForbidden, "channel-type-not-allowed")
		sendDigest(t, s, w.Admin.Token, w.ProjectID)
		deliverDue(t, s)
		if got := rc.got(); len(got) != 0 {
			t.Errorf("the receiver of a channel the plan does not allow got %d requests", len(got))
		}
		if d := deliveries(t, s, w.Viewer.Token, hookID); len(d) != 0 {
			t.Errorf("deliveries of the disallowed channel = %v, want none", ids(d))
		}
		if d := deliveries(t, s, w.Viewer.Token, mailID); len(d) != 1 || d[0]["event"] != "digest" {
			t.Errorf("deliveries of the email channel = %v, want the digest", d)
		}
	}, allowPrivate)
}
