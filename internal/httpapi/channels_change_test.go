package httpapi_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/webhook"
)

func TestPatchChannel(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		rc, rc2 := newReceiver(t, http.StatusOK), newReceiver(t, http.StatusOK)
		hookID, secret := newHook(t, s, w, w.ProjectID, "hook", rc.URL)
		mailID := newMail(t, s, w, w.ProjectID, "mail")
		patch := func(channelID string, body any) *apitest.Response {
			t.Helper()
			return patchJSON(s, w.Admin.Token, "/v1/channels/"+channelID, body)
		}
		created := getChannel(t, s, w.Viewer.Token, hookID)

		// Rename; an empty patch changes nothing.
		ch := patch(hookID, map[string]any{"name": "  renamed  ", "type": "email", "member_id": w.Owner.MemberID}).Expect(t, http.StatusOK, "").JSON(t)
		if ch["name"] != "renamed" || ch["type"] != "webhook" || ch["member_id"] != w.Admin.MemberID || ch["url"] != rc.URL {
			t.Errorf("renamed channel = %v, want only the name changed", ch)
		}
		if apiTime(t, ch["updated_at"]).Before(apiTime(t, created["updated_at"])) || ch["created_at"] != created["created_at"] {
			t.Errorf("timestamps after rename: created %v updated %v, before %v %v", ch["created_at"], ch["updated_at"], created["created_at"], created["updated_at"])
		}
		if same := patch(hookID, map[string]any{}).Expect(t, http.StatusOK, "").JSON(t); same["name"] != "renamed" || same["enabled"] != true {
			t.Errorf("channel after an empty patch = %v", same)
		}

		// Invalid changes: 422 naming the field, the channel unchanged.
		for _, c := range []struct {
			name      string
			channelID string
			body      map[string]any
			code      string
			field     string
		}{
			{"empty name", hookID, map[string]any{"name": ""}, "validation-failed", "name"},
			{"blank name", hookID, map[string]any{"name": "  "}, "validation-failed", "name"},
			{"long name", hookID, map[string]any{"name": strings.Repeat("n", 101)}, "validation-failed", "name"},
			{"email of a webhook channel", hookID, map[string]any{"email": "a@example.com"}, "validation-failed", "email"},
			{"url of an email channel", mailID, map[string]any{"url": rc2.URL}, "validation-failed", "url"},
			{"bad email", mailID, map[string]any{"email": "nope"}, "validation-failed", "email"},
			{"http url", hookID, map[string]any{"url": "http://127.0.0.1:8443/x"}, "invalid-webhook-url", "url"},
			{"port 80", hookID, map[string]any{"url": "https://127.0.0.1:80/x"}, "invalid-webhook-url", "url"},
			{"credentials", hookID, map[string]any{"url": "https://a:b@127.0.0.1:8443/x"}, "invalid-webhook-url", "url"},
			{"fragment", hookID, map[string]any{"url": rc2.URL + "#x"}, "invalid-webhook-url", "url"},
			{"empty url", hookID, map[string]any{"url": ""}, "validation-failed", "url"},
			{"enabled not a boolean", hookID, map[string]any{"enabled": "no"}, "validation-failed", "enabled"},
		} {
			r := patch(c.channelID, c.body)
			if r.Status != http.StatusUnprocessableEntity {
				t.Errorf("%s: status = %d, want 422; body: %s", c.name, r.Status, r.Body)
				continue
			}
			r.Expect(t, http.StatusUnprocessableEntity, c.code)
			if d := r.Str(t, "detail"); !namesField(d, c.field) {
				t.Errorf("%s: detail = %q, want it to name %s", c.name, d, c.field)
			}
		}
		if ch := getChannel(t, s, w.Admin.Token, hookID); ch["name"] != "renamed" || ch["url"] != rc.URL || ch["enabled"] != true {
			t.Errorf("channel after refused patches = %v", ch)
		}
		// A member's address needs no confirmation: the channel sends.
		if ch := patch(mailID, map[string]any{"email": " Member@Example.COM "}).Expect(t, http.StatusOK, "").JSON(t); ch["email"] != w.Member.Email || ch["confirmation"] != "confirmed" {
			t.Errorf("email channel after a member's new address = %v, want it normalised and confirmed", ch)
		}

		// Disabling cancels the pending deliveries; a disabled channel gets
		// no new ones.
		sendDigest(t, s, w.Admin.Token, w.ProjectID)
		if ch := patch(hookID, map[string]any{"enabled": false}).Expect(t, http.StatusOK, "").JSON(t); ch["enabled"] != false {
			t.Errorf("disabled channel = %v", ch)
		}
		d := deliveries(t, s, w.Viewer.Token, hookID)
		if len(d) != 1 || d[0]["status"] != "cancelled" || d[0]["next_attempt_at"] != nil || len(attemptsOf(d[0])) != 0 {
			t.Fatalf("deliveries of the disabled channel = %v, want one cancelled, never attempted", d)
		}
		if m := deliveries(t, s, w.Viewer.Token, mailID); len(m) != 1 || m[0]["status"] != "pending" {
			t.Errorf("deliveries of the email channel = %v, want one still pending", m)
		}
		cancelled := d[0]["id"].(string)
		if n := deliverDue(t, s); n != 1 {
			t.Errorf("deliveries attempted = %d, want 1 (the email channel's)", n)
		}
		sendDigestAgain(t, s, w.Admin.Token, w.ProjectID)
		if d := deliveries(t, s, w.Viewer.Token, hookID); len(d) != 1 {
			t.Errorf("deliveries of the disabled channel after a digest = %v, want still one", ids(d))
		}

		// Re-enabling: the cancelled delivery stays cancelled; new ones come.
		if ch := patch(hookID, map[string]any{"enabled": true}).Expect(t, http.StatusOK, "").JSON(t); ch["enabled"] != true {
			t.Errorf("re-enabled channel = %v", ch)
		}
		sendDigestAgain(t, s, w.Admin.Token, w.ProjectID)
		deliverDue(t, s)
		d = deliveries(t, s, w.Viewer.Token, hookID)
		if len(d) != 2 || d[0]["status"] != "delivered" || d[1]["id"] != cancelled || d[1]["status"] != "cancelled" {
			t.Errorf("deliveries after re-enabling = %v, want a delivered one and the cancelled one", d)
		}
		if got := rc.got(); len(got) != 1 {
			t.Fatalf("receiver got %d requests, want 1", len(got))
		} else {
			verified(t, got[0], "digest", secret)
		}

		// A new URL is used from then on.
		if ch := patch(hookID, map[string]any{"url": rc2.URL}).Expect(t, http.StatusOK, "").JSON(t); ch["url"] != rc2.URL {
			t.Errorf("channel after a new URL = %v", ch)
		}
		s.Do(apitest.Request{Method: "POST", Path: "/v1/channels/" + hookID + "/test", Token: w.Member.Token}).Expect(t, http.StatusOK, "")
		if len(rc.got()) != 1 || len(rc2.got()) != 1 {
			t.Errorf("after a new URL: old receiver %d, new %d requests, want 1 and 1", len(rc.got()), len(rc2.got()))
		}
	}, allowPrivate)
}

func TestDeleteChannel(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		rc := newReceiver(t, http.StatusOK)
		hookID, _ := newHook(t, s, w, w.ProjectID, "hook", rc.URL)
		keep := newMail(t, s, w, w.ProjectID, "mail")
		sendDigest(t, s, w.Admin.Token, w.ProjectID)
		deliverDue(t, s)
		dlv := deliveries(t, s, w.Viewer.Token, hookID)[0]["id"].(string)

		r := s.Do(apitest.Request{Method: "DELETE", Path: "/v1/channels/" + hookID, Token: w.Admin.Token}).Expect(t, http.StatusNoContent, "")
		if len(r.Body) != 0 {
			t.Errorf("204 with a body: %s", r.Body)
		}
		for _, req := range []apitest.Request{
			{Method: "GET", Path: "/v1/channels/" + hookID, Token: w.Admin.Token},
			{Method: "DELETE", Path: "/v1/channels/" + hookID, Token: w.Admin.Token},
			{Method: "PATCH", Path: "/v1/channels/" + hookID, Token: w.Admin.Token, Body: map[string]any{"name": "x"}},
			{Method: "POST", Path: "/v1/channels/" + hookID + "/test", Token: w.Admin.Token},
			{Method: "POST", Path: "/v1/channels/" + hookID + "/rotate-secret", Token: w.Admin.Token},
			{Method: "GET", Path: "/v1/channels/" + hookID + "/deliveries", Token: w.Admin.Token},
			{Method: "POST", Path: "/v1/deliveries/" + dlv + "/redeliver", Token: w.Admin.Token},
		} {
			if res := s.Do(req); res.Status != http.StatusNotFound {
				t.Errorf("%s %s after delete: status = %d, want 404; body: %s", req.Method, req.Path, res.Status, res.Body)
			} else {
				res.Expect(t, http.StatusNotFound, "not-found")
			}
		}
		if list := items(t, s, w.Viewer.Token, channelsPath(w.ProjectID)); len(list) != 1 || list[0]["id"] != keep {
			t.Errorf("channels after delete = %v, want only %s", ids(list), keep)
		}
		// Deleting the project takes its channels with it.
		s.Do(apitest.Request{Method: "DELETE", Path: "/v1/projects/" + w.ProjectID, Token: w.Admin.Token}).Expect(t, http.StatusNoContent, "")
		s.Do(apitest.Request{Method: "GET", Path: "/v1/channels/" + keep, Token: w.Admin.Token}).Expect(t, http.StatusNotFound, "not-found")
	}, allowPrivate)
}

// TestRotateSecret: a rotation answers the new secret once; for 24 hours
// deliveries carry two signatures, new first; rotating again drops the
// oldest secret (CONTRACT 6, docs/decisions.md).
func TestRotateSecret(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		rc := newReceiver(t, http.StatusOK)
		hookID, first := newHook(t, s, w, w.ProjectID, "hook", rc.URL)
		rotate := func() (map[string]any, string) {
			t.Helper()
			before := time.Now()
			ch := s.Do(apitest.Request{Method: "POST", Path: "/v1/channels/" + hookID + "/rotate-secret", Token: w.Admin.Token}).Expect(t, http.StatusOK, "").JSON(t)
			if until := apiTime(t, ch["previous_secret_until"]); !near(until, before.Add(24*time.Hour), time.Minute) {
				t.Errorf("previous_secret_until = %v, want about 24 h after %v", until, before.UTC())
			}
			secret, _ := ch["signing_secret"].(string)
			if !secretRe.MatchString(secret) || ch["id"] != hookID || ch["url"] != rc.URL {
				t.Fatalf("rotation answer = %v, want the channel with a new whsec_ secret", ch)
			}
			return ch, secret
		}
		rotated, second := rotate()
		if second == first {
			t.Fatalf("rotation kept the secret %q", first)
		}
		got := getChannel(t, s, w.Viewer.Token, hookID)
		if _, has := got["signing_secret"]; has || got["previous_secret_until"] != rotated["previous_secret_until"] {
			t.Errorf("channel after rotation = %v, want previous_secret_until %v and no secret", got, rotated["previous_secret_until"])
		}

		// During the overlap a delivery verifies with either secret.
		s.Do(apitest.Request{Method: "POST", Path: "/v1/channels/" + hookID + "/test", Token: w.Member.Token}).Expect(t, http.StatusOK, "")
		hooks := rc.got()
		if len(hooks) != 1 {
			t.Fatalf("receiver got %d requests, want 1", len(hooks))
		}
		sig := hooks[0].Header.Get("Service-Signature")
		if strings.Count(sig, "v1=") != 2 {
			t.Errorf("Service-Signature = %q, want two v1 entries", sig)
		}
		verified(t, hooks[0], "test", second)
		checkSecrets(t, hooks[0], map[string]bool{first: true, second: true, "whsec_other": false})
		if parts := strings.Split(sig, ","); len(parts) != 3 || webhook.Verify(hooks[0].Body, parts[0]+","+parts[1], time.Now(), second) != nil {
			t.Errorf("Service-Signature = %q, want the new secret's v1 first", sig)
		}

		// Rotating again: the first secret no longer signs.
		_, third := rotate()
		sendDigest(t, s, w.Admin.Token, w.ProjectID)
		deliverDue(t, s)
		if hooks = rc.got(); len(hooks) != 2 {
			t.Fatalf("receiver got %d requests, want 2", len(hooks))
		}
		verified(t, hooks[1], "digest", third)
		checkSecrets(t, hooks[1], map[string]bool{first: false, second: true, third: true})

		// An email channel has no secret.
		mailID := newMail(t, s, w, w.ProjectID, "mail")
		s.Do(apitest.Request{Method: "POST", Path: "/v1/channels/" + mailID + "/rotate-secret", Token: w.Admin.Token}).Expect(t, http.StatusConflict, "conflict")
	}, allowPrivate)
}

// checkSecrets checks which secrets a delivery's signature verifies with.
func checkSecrets(t *testing.T, h hook, want map[string]bool) {
	t.Helper()
	for secret, ok := range want {
		err := webhook.Verify(h.Body, h.Header.Get("Service-Signature"), time.Now(), secret)
		if (err == nil) != ok {
			t.Errorf("verify with %.12s…: %v, want verified = %v", secret, err, ok)
		}
	}
}
