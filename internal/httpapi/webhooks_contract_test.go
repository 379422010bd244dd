package httpapi_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/store"
)

// webhookEvents are the deliveries of spec section 6.
var webhookEvents = []string{"ticket", "digest", "test"}

// webhookSchema is the request-body schema of a webhook in the document.
func (c *contract) webhookSchema(event string) (*openapi3.Schema, error) {
	item := c.doc.Webhooks[event]
	if item == nil || item.Post == nil {
		return nil, fmt.Errorf("the document has no POST webhook %q", event)
	}
	rb := item.Post.RequestBody
	if rb == nil || rb.Value == nil || !rb.Value.Required {
		return nil, fmt.Errorf("webhook %q has no required request body", event)
	}
	mt := rb.Value.Content.Get("application/json")
	if mt == nil || mt.Schema == nil || mt.Schema.Value == nil {
		return nil, fmt.Errorf("webhook %q has no application/json schema", event)
	}
	return mt.Schema.Value, nil
}

// checkWebhook validates a delivered body against its webhook's schema.
func (c *contract) checkWebhook(event string, body []byte) error {
	schema, err := c.webhookSchema(event)
	if err != nil {
		return err
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return fmt.Errorf("body is not JSON: %w", err)
	}
	return schema.VisitJSON(v, openapi3.EnableJSONSchema2020(), openapi3.VisitAsRequest())
}

// TestWebhooksDocumented: the document's `webhooks` describe the three
// deliveries of spec section 6 with their headers and body schemas.
func TestWebhooksDocumented(t *testing.T) {
	t.Parallel()
	c := loadContract(t, apitest.Start(t, store.SQLite))
	var names []string
	for name := range c.doc.Webhooks {
		names = append(names, name)
	}
	slices.Sort(names)
	if want := []string{"digest", "test", "ticket"}; !slices.Equal(names, want) {
		t.Errorf("webhooks = %v, want %v", names, want)
	}
	for _, event := range webhookEvents {
		schema, err := c.webhookSchema(event)
		if err != nil {
			t.Error(err)
			continue
		}
		for _, f := range []string{"type", "delivery_id", "organization_id", "project"} {
			if !slices.Contains(schema.Required, f) || schema.Properties[f] == nil {
				t.Errorf("webhook %s: %s is not a required property", event, f)
			}
		}
		if typ := schema.Properties["type"]; typ == nil || !slices.Equal(typ.Value.Enum, []any{event}) {
			t.Errorf("webhook %s: type is not the constant %q", event, event)
		}
		headers := map[string]bool{}
		for _, p := range c.doc.Webhooks[event].Post.Parameters {
			if p.Value.In == "header" && p.Value.Required {
				headers[p.Value.Name] = true
			}
		}
		for _, h := range []string{"User-Agent", "Service-Event", "Service-Delivery-Id", "Service-Signature"} {
			if !headers[h] {
				t.Errorf("webhook %s: header %s is not documented as required", event, h)
			}
		}
	}
	for event, f := range map[string]string{"ticket": "ticket", "digest": "digest", "test": "channel"} {
		if schema, err := c.webhookSchema(event); err == nil && !slices.Contains(schema.Required, f) {
			t.Errorf("webhook %s: %s is not required", event, f)
		}
	}
}

// TestWebhookBodiesMatchContract delivers a ticket, digests (with and
// without INFO figures) and a test to a real receiver and validates every
// body received against the document; altered bodies must fail.
func TestWebhookBodiesMatchContract(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		c := loadContract(t, s)
		w := newProcWorld(t, s)
		rc := newReceiver(t, http.StatusOK)
		hookID, secret := newHook(t, s, w.World, w.ProjectID, "hook", rc.URL)

		hour := time.Now().UTC().Truncate(time.Hour)
		rewindPeriod(t, s, w.ProjectID, hour.Add(-time.Hour))
		queueAt(t, s, w.ProjectID, hour.Add(-30*time.Minute), infoEv("api", "user 1 signed in", ingest.Info))
		feed(t, s, w.Key, batchOf("api", ev("payment failed", "fatal", "trace_id", "4bf92f3577b34da6a3ce929d0e0e4736"), ev("disk low", "warn")))
		sendDigest(t, s, w.Admin.Token, w.ProjectID)      // tickets and INFO
		sendDigestAgain(t, s, w.Admin.Token, w.ProjectID) // nothing: info null
		deliverDue(t, s)
		testChannel(s, w.Member.Token, hookID).Expect(t, http.StatusOK, "")

		seen := map[string]int{}
		var bodies [][]byte
		var events []string
		for _, h := range rc.got() {
			event := h.Header.Get("Service-Event")
			verified(t, h, event, secret)
			if err := c.checkWebhook(event, h.Body); err != nil {
				t.Errorf("%s body does not match the document: %v\nbody: %s", event, err, h.Body)
			}
			seen[event]++
			bodies, events = append(bodies, h.Body), append(events, event)
		}
		if seen["ticket"] != 1 || seen["digest"] != 2 || seen["test"] != 1 {
			t.Fatalf("deliveries received = %v, want 1 ticket, 2 digests, 1 test", seen)
		}

		// The validation is not vacuous.
		common := map[string]func(m map[string]any){
			"no delivery_id":     func(m map[string]any) { delete(m, "delivery_id") },
			"numeric project id": func(m map[string]any) { m["project"].(map[string]any)["id"] = 7 },
			"no project name":    func(m map[string]any) { delete(m["project"].(map[string]any), "name") },
			"unknown type":       func(m map[string]any) { m["type"] = "other" },
		}
		specific := map[string]map[string]func(m map[string]any){
			"ticket": {
				"unknown severity":      func(m map[string]any) { m["ticket"].(map[string]any)["severity"] = "low" },
				"no ticket_url":         func(m map[string]any) { delete(m, "ticket_url") },
				"timestamp without .ms": func(m map[string]any) { m["ticket"].(map[string]any)["created_at"] = "2026-01-02T03:04:05Z" },
			},
			"digest": {
				"info a string":  func(m map[string]any) { m["digest"].(map[string]any)["info"] = "none" },
				"tickets null":   func(m map[string]any) { m["digest"].(map[string]any)["tickets"] = nil },
				"no period zone": func(m map[string]any) { delete(m["digest"].(map[string]any)["period"].(map[string]any), "timezone") },
			},
			"test": {
				"no channel":      func(m map[string]any) { delete(m, "channel") },
				"channel id null": func(m map[string]any) { m["channel"].(map[string]any)["id"] = nil },
			},
		}
		for i, body := range bodies {
			event := events[i]
			tampers := maps.Clone(common)
			maps.Copy(tampers, specific[event])
			for name, edit := range tampers {
				var m map[string]any
				_ = json.Unmarshal(body, &m)
				edit(m)
				b, _ := json.Marshal(m)
				if err := c.checkWebhook(event, b); err == nil {
					t.Errorf("%s body %s: the validation accepted %s", event, name, b)
				}
			}
		}
	}, allowPrivate, withAppURL)
}
