package httpapi_test

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/notify/chat"
	"github.com/errata-dev/errata/webhook"
)

// formatHook checks a delivery in a chat format: the Service-* headers are
// there and the signature verifies over the body received, the content
// type is the format's, and the body has the tool's shape and says want.
// It returns the body decoded (nil for ntfy's plain text).
func formatHook(t *testing.T, format string, h hook, event, secret, want string) map[string]any {
	t.Helper()
	if got := h.Header.Get("Service-Event"); got != event {
		t.Errorf("%s: Service-Event = %q, want %s", format, got, event)
	}
	if h.Header.Get("Service-Delivery-Id") == "" || h.Header.Get("User-Agent") != "Service-Webhook/1" {
		t.Errorf("%s: Service-Delivery-Id %q, User-Agent %q", format, h.Header.Get("Service-Delivery-Id"), h.Header.Get("User-Agent"))
	}
	if err := webhook.Verify(h.Body, h.Header.Get("Service-Signature"), time.Now(), secret); err != nil {
		t.Errorf("%s: the signature does not verify over the body received: %v", format, err)
	}
	if !strings.Contains(string(h.Body), want) {
		t.Errorf("%s %s body lacks %q:\n%s", format, event, want, h.Body)
	}
	if format == chat.Ntfy {
		if ct := h.Header.Get("Content-Type"); ct != "text/plain; charset=utf-8" {
			t.Errorf("ntfy: Content-Type = %q", ct)
		}
		for _, k := range []string{"X-Title", "X-Priority", "X-Tags", "X-Click"} {
			if h.Header.Get(k) == "" {
				t.Errorf("ntfy %s: no %s header", event, k)
			}
		}
		return nil
	}
	if ct := h.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("%s: Content-Type = %q, want application/json", format, ct)
	}
	var b map[string]any
	if err := json.Unmarshal(h.Body, &b); err != nil {
		t.Fatalf("%s: body is not a JSON object: %v\n%s", format, err, h.Body)
	}
	if _, errata := b["delivery_id"]; errata {
		t.Errorf("%s: the body is errata's, not the tool's: %s", format, h.Body)
	}
	has := func(keys ...string) {
		for _, k := range keys {
			if _, ok := b[k]; !ok {
				t.Errorf("%s %s body lacks %q: %s", format, event, k, h.Body)
			}
		}
	}
	switch format {
	case chat.Slack:
		has("text", "blocks")
	case chat.Teams:
		has("type", "attachments")
		if a, _ := b["attachments"].([]any); len(a) != 1 || a[0].(map[string]any)["contentType"] != "application/vnd.microsoft.card.adaptive" {
			t.Errorf("teams: attachments = %v, want one Adaptive Card", b["attachments"])
		}
	case chat.Discord:
		has("content", "embeds", "allowed_mentions")
	case chat.Mattermost:
		has("text", "attachments")
	case chat.GoogleChat:
		has("text", "cardsV2")
	}
	return b
}

// TestChatFormatDeliveries sends a ticket, a digest and a test to a real
// TLS receiver per format, each channel in its format, beside an errata
// channel whose bodies stay the interface's.
func TestChatFormatDeliveries(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		type target struct {
			id, secret string
			rc         *receiver
		}
		targets := map[string]target{}
		for _, format := range chat.Formats() {
			rc := newReceiver(t, http.StatusOK)
			body := webhookChannel(w.Admin.MemberID, format+" hook", rc.URL)
			if format != chat.Errata {
				body["format"] = format
			}
			ch := createChannel(t, s, w.Admin.Token, w.ProjectID, body)
			if ch["format"] != format {
				t.Fatalf("created channel format = %v, want %s", ch["format"], format)
			}
			targets[format] = target{ch["id"].(string), ch["signing_secret"].(string), rc}
		}

		feed(t, s, w.Key, batchOf("checkout", ev("card 4242 declined by gateway", "error", "environment", "production")))
		if n := deliverDue(t, s); n != len(targets) {
			t.Fatalf("deliveries attempted = %d, want %d (one per channel)", n, len(targets))
		}
		sendDigest(t, s, w.Admin.Token, w.ProjectID)
		if n := deliverDue(t, s); n != len(targets) {
			t.Fatalf("digest deliveries attempted = %d, want %d", n, len(targets))
		}
		for format, tg := range targets {
			s.Do(apitest.Request{Method: "POST", Path: "/v1/channels/" + tg.id + "/test", Token: w.Member.Token}).Expect(t, http.StatusOK, "")
			got := tg.rc.got()
			if len(got) != 3 {
				t.Fatalf("%s receiver got %d requests, want a ticket, a digest and a test", format, len(got))
			}
			log := deliveries(t, s, w.Viewer.Token, tg.id)
			for i, event := range []string{"ticket", "digest", "test"} {
				if id := got[i].Header.Get("Service-Delivery-Id"); id != log[2-i]["id"] || log[2-i]["status"] != "delivered" {
					t.Errorf("%s %s: Service-Delivery-Id %q, log %v", format, event, id, log[2-i])
				}
				if format == chat.Errata {
					verified(t, got[i], event, tg.secret)
					continue
				}
				want := map[string]string{"ticket": "card", "digest": "card", "test": format + " hook"}[event]
				formatHook(t, format, got[i], event, tg.secret, want)
			}
			if format == chat.Ntfy {
				if p := got[0].Header.Get("X-Priority"); p != "4" {
					t.Errorf("ntfy: a high ticket has X-Priority %q, want 4", p)
				}
			}
		}
	}, allowPrivate)
}

// TestOpenAPIFormats: the document offers exactly the formats package chat
// renders, on the channel and in both request bodies, and the filters.
func TestOpenAPIFormats(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, "sqlite")
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					Enum []any  `json:"enum"`
					Ref  string `json:"$ref"`
				} `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(s.Do(apitest.Request{Method: "GET", Path: "/v1/openapi.json"}).Expect(t, http.StatusOK, "").Body, &doc); err != nil {
		t.Fatal(err)
	}
	var want []any
	for _, f := range chat.Formats() {
		want = append(want, f)
	}
	seen := 0
	for name, sc := range doc.Components.Schemas {
		if p, ok := sc.Properties["format"]; ok && strings.Contains(strings.ToLower(name), "channel") {
			seen++
			if !reflect.DeepEqual(p.Enum, want) {
				t.Errorf("%s.format enum = %v, want %v", name, p.Enum, want)
			}
			if f, ok := sc.Properties["filters"]; !ok || f.Ref == "" {
				t.Errorf("%s has format but no filters object", name)
			}
		}
	}
	if seen != 4 {
		t.Errorf("format appears in %d channel schemas, want 4: the channel, with its secret, and the creation and change bodies", seen)
	}
	if f := doc.Components.Schemas["Filters"].Properties["min_severity"].Enum; !reflect.DeepEqual(f, []any{"critical", "high", "medium"}) {
		t.Errorf("Filters.min_severity enum = %v", f)
	}
}
