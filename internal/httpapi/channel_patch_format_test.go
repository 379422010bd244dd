package httpapi_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
)

// TestPatchFormatAndFilters changes a channel's format and filters, checks
// the answers and the 422s naming the field, and that deliveries already
// queued keep the format they were queued in and are not filtered again.
func TestPatchFormatAndFilters(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		rc := newReceiver(t, http.StatusOK)
		hookID, secret := newHook(t, s, w.World, w.ProjectID, "hook", rc.URL)
		mailID := newMail(t, s, w.World, w.ProjectID, "mail")
		patch := func(channelID string, body any) *apitest.Response {
			t.Helper()
			return patchJSON(s, w.Admin.Token, "/v1/channels/"+channelID, body)
		}
		created := getChannel(t, s, w.Viewer.Token, hookID)
		wantFilters := map[string]any{"min_severity": "high", "environments": []any{}, "services": []any{}}
		if created["format"] != "errata" || !reflect.DeepEqual(created["filters"], wantFilters) {
			t.Fatalf("new webhook channel: format %v, filters %v; want errata and %v", created["format"], created["filters"], wantFilters)
		}
		if m := getChannel(t, s, w.Viewer.Token, mailID); m["format"] != nil || !reflect.DeepEqual(m["filters"], wantFilters) {
			t.Errorf("new email channel: format %v, filters %v; want no format and %v", m["format"], m["filters"], wantFilters)
		}

		// Queue a high ticket to the errata channel, then change the
		// channel: the queued delivery keeps its errata body and is sent
		// although the new filters would not take it.
		feed(t, s, w.Key, batchOf("api", fpEv("queued before the patch", "error")))
		ch := patch(hookID, map[string]any{"format": "slack", "filters": map[string]any{"min_severity": "critical", "services": []string{"billing"}}}).
			Expect(t, http.StatusOK, "").JSON(t)
		if ch["format"] != "slack" || !reflect.DeepEqual(ch["filters"], map[string]any{"min_severity": "critical", "environments": []any{}, "services": []any{"billing"}}) {
			t.Fatalf("patched channel = format %v, filters %v", ch["format"], ch["filters"])
		}
		deliverDue(t, s)
		got := rc.got()
		if len(got) != 1 {
			t.Fatalf("receiver got %d requests, want the one queued before the patch", len(got))
		}
		if body := verified(t, got[0], "ticket", secret); !strings.Contains(body["ticket"].(map[string]any)["title"].(string), "queued before the patch") {
			t.Errorf("queued delivery body = %v", body)
		}
		if log := deliveries(t, s, w.Viewer.Token, hookID); len(log) != 1 || log[0]["format"] != "errata" {
			t.Errorf("delivery log after the patch = %v, want the delivery with format errata", log)
		}
		if log := deliveries(t, s, w.Viewer.Token, mailID); len(log) != 1 || log[0]["format"] != "email" {
			t.Errorf("email channel's delivery log = %v, want format email", log)
		}

		// After the patch: high tickets are filtered out, the test goes in
		// the new format.
		feed(t, s, w.Key, batchOf("billing", fpEv("high after the patch", "error")))
		if n := deliverDue(t, s); n != 1 {
			t.Errorf("deliveries after the patch = %d, want 1 (the email channel's; high is below the webhook's critical)", n)
		}
		s.Do(apitest.Request{Method: "POST", Path: "/v1/channels/" + hookID + "/test", Token: w.Member.Token}).Expect(t, http.StatusOK, "")
		got = rc.got()
		if len(got) != 2 {
			t.Fatalf("receiver got %d requests, want the test too", len(got))
		}
		formatHook(t, "slack", got[1], "test", secret, "hook")

		// A partial filters patch keeps the other fields; an empty list
		// means all again.
		ch = patch(hookID, map[string]any{"filters": map[string]any{"environments": []string{"production", "production", "eu"}}}).Expect(t, http.StatusOK, "").JSON(t)
		if !reflect.DeepEqual(ch["filters"], map[string]any{"min_severity": "critical", "environments": []any{"production", "eu"}, "services": []any{"billing"}}) {
			t.Errorf("after a partial patch: filters %v", ch["filters"])
		}
		ch = patch(hookID, map[string]any{"format": "errata", "filters": map[string]any{"services": []string{}}}).Expect(t, http.StatusOK, "").JSON(t)
		if ch["format"] != "errata" || !reflect.DeepEqual(ch["filters"].(map[string]any)["services"], []any{}) {
			t.Errorf("after clearing services: %v, %v", ch["format"], ch["filters"])
		}
		if m := patch(mailID, map[string]any{"filters": map[string]any{"min_severity": "medium"}}).Expect(t, http.StatusOK, "").JSON(t); m["filters"].(map[string]any)["min_severity"] != "medium" {
			t.Errorf("email channel after a filters patch: %v", m["filters"])
		}

		// Refused: 422 naming the field; the channel unchanged.
		before := getChannel(t, s, w.Admin.Token, hookID)
		long := strings.Repeat("e", 65)
		many := make([]string, 51)
		for i := range many {
			many[i] = "env" + strings.Repeat("x", i)
		}
		for _, c := range []struct {
			name, channelID string
			body            map[string]any
			field           string
		}{
			{"unknown format", hookID, map[string]any{"format": "telegram"}, "format"},
			{"format of an email channel", mailID, map[string]any{"format": "slack"}, "format"},
			{"unknown severity", hookID, map[string]any{"filters": map[string]any{"min_severity": "low"}}, "filters.min_severity"},
			{"severity not a string", hookID, map[string]any{"filters": map[string]any{"min_severity": 3}}, "filters.min_severity"},
			{"empty environment", hookID, map[string]any{"filters": map[string]any{"environments": []string{""}}}, "filters.environments"},
			{"long environment", hookID, map[string]any{"filters": map[string]any{"environments": []string{long}}}, "filters.environments"},
			{"too many environments", hookID, map[string]any{"filters": map[string]any{"environments": many}}, "filters.environments"},
			{"services not a list", hookID, map[string]any{"filters": map[string]any{"services": "api"}}, "filters.services"},
		} {
			r := patch(c.channelID, c.body)
			if r.Status != http.StatusUnprocessableEntity {
				t.Errorf("%s: status = %d, want 422; body: %s", c.name, r.Status, r.Body)
				continue
			}
			r.Expect(t, http.StatusUnprocessableEntity, "validation-failed")
			if d := r.Str(t, "detail"); !namesField(d, c.field) {
				t.Errorf("%s: detail = %q, want it to name %s", c.name, d, c.field)
			}
		}
		if after := getChannel(t, s, w.Admin.Token, hookID); !reflect.DeepEqual(after, before) {
			a, _ := json.Marshal(after)
			b, _ := json.Marshal(before)
			t.Errorf("channel after refused patches:\n%s\nwant\n%s", a, b)
		}

		// The same checks at creation.
		bad := webhookChannel(w.Admin.MemberID, "bad", rc.URL)
		bad["format"] = "telegram"
		if r := s.Do(apitest.Request{Method: "POST", Path: channelsPath(w.ProjectID), Token: w.Admin.Token, Body: bad}); r.Status != http.StatusUnprocessableEntity ||
			!namesField(r.Str(t, "detail"), "format") {
			t.Errorf("creation with an unknown format: %d %s", r.Status, r.Body)
		}
		bad = emailChannel(w.Admin.MemberID, "bad")
		bad["filters"] = map[string]any{"min_severity": "info"}
		if r := s.Do(apitest.Request{Method: "POST", Path: channelsPath(w.ProjectID), Token: w.Admin.Token, Body: bad}); r.Status != http.StatusUnprocessableEntity ||
			!namesField(r.Str(t, "detail"), "filters.min_severity") {
			t.Errorf("creation with an unknown severity: %d %s", r.Status, r.Body)
		}
	}, allowPrivate)
}
