package httpapi_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/store"
)

// TestOpenAPIIngestSchemaAsStrictAsServer sends POST /v1/ingest bodies the
// server refuses and bodies it takes, and checks that the document's
// IngestRequest schema decides each the same way: generated clients must not
// be able to build a batch the server answers with 422, nor be kept from
// one it accepts.
func TestOpenAPIIngestSchemaAsStrictAsServer(t *testing.T) {
	s := apitest.Start(t, store.SQLite)
	c := loadContract(t, s)
	tok := s.SignUp(t, "a@example.com").Token
	_, key := s.CreateKey(t, tok, s.CreateProject(t, tok, s.CreateOrg(t, tok, "Acme"), "web"))
	schema := c.doc.Components.Schemas["IngestRequest"]
	if schema == nil {
		t.Fatal("the document has no IngestRequest schema")
	}
	event := func(edit func(map[string]any)) map[string]any {
		ev := map[string]any{"message": "boom"}
		edit(ev)
		return map[string]any{"service": "web", "events": []any{ev}}
	}
	attrs := func(n int) map[string]any {
		m := map[string]any{}
		for i := range n {
			m[fmt.Sprint("k", i)] = i
		}
		return m
	}
	events := func(n int) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = map[string]any{"message": "boom"}
		}
		return out
	}
	refused := map[string]any{
		"events null":             map[string]any{"service": "web", "events": nil},
		"events missing":          map[string]any{"service": "web"},
		"events empty":            map[string]any{"service": "web", "events": []any{}},
		"1001 events":             map[string]any{"service": "web", "events": events(1001)},
		"events not an array":     map[string]any{"service": "web", "events": map[string]any{}},
		"no message":              event(func(ev map[string]any) { delete(ev, "message") }),
		"empty message":           event(func(ev map[string]any) { ev["message"] = "" }),
		"message over 16 KiB":     event(func(ev map[string]any) { ev["message"] = strings.Repeat("a", 16<<10+1) }),
		"unknown level":           event(func(ev map[string]any) { ev["level"] = "verbose" }),
		"empty level":             event(func(ev map[string]any) { ev["level"] = "" }),
		"service too long":        event(func(ev map[string]any) { ev["service"] = strings.Repeat("é", 129) }),
		"environment too long":    event(func(ev map[string]any) { ev["environment"] = strings.Repeat("e", 65) }),
		"release too long":        event(func(ev map[string]any) { ev["release"] = strings.Repeat("r", 65) }),
		"stack over 64 KiB":       event(func(ev map[string]any) { ev["stack_trace"] = strings.Repeat("s", 64<<10+1) }),
		"trace_id too long":       event(func(ev map[string]any) { ev["trace_id"] = strings.Repeat("a", 129) }),
		"65 attributes":           event(func(ev map[string]any) { ev["attributes"] = attrs(65) }),
		"attributes not object":   event(func(ev map[string]any) { ev["attributes"] = []any{} }),
		"not a timestamp":         event(func(ev map[string]any) { ev["timestamp"] = "yesterday" }),
		"numeric timestamp":       event(func(ev map[string]any) { ev["timestamp"] = 1700000000 }),
		"breadcrumbs not array":   event(func(ev map[string]any) { ev["breadcrumbs"] = map[string]any{} }),
		"breadcrumb not object":   event(func(ev map[string]any) { ev["breadcrumbs"] = []any{"click"} }),
		"breadcrumb time number":  event(func(ev map[string]any) { ev["breadcrumbs"] = []any{map[string]any{"timestamp": 1700000000}} }),
		"breadcrumb category int": event(func(ev map[string]any) { ev["breadcrumbs"] = []any{map[string]any{"category": 5}} }),
		"breadcrumb data array":   event(func(ev map[string]any) { ev["breadcrumbs"] = []any{map[string]any{"data": []any{}}} }),
		"breadcrumb over 8 KiB": event(func(ev map[string]any) {
			ev["breadcrumbs"] = []any{map[string]any{"message": strings.Repeat("m", 8<<10+1)}}
		}),
		"batch service too long": map[string]any{"service": strings.Repeat("s", 129), "events": events(1)},
	}
	accepted := map[string]any{
		"minimal":     event(func(map[string]any) {}),
		"1000 events": map[string]any{"service": "web", "events": events(1000)},
		"every field at its limit": event(func(ev map[string]any) {
			ev["message"] = strings.Repeat("m", 16<<10)
			ev["level"] = "warning"
			ev["timestamp"] = "2026-01-02T03:04:05.123+01:00"
			ev["stack_trace"] = strings.Repeat("s", 64<<10)
			ev["trace_id"], ev["span_id"] = strings.Repeat("a", 128), strings.Repeat("b", 128)
			ev["service"], ev["environment"], ev["release"] = strings.Repeat("é", 128), strings.Repeat("e", 64), strings.Repeat("r", 64)
			ev["attributes"] = attrs(64)
		}),
		"101 breadcrumbs at their limits": event(func(ev map[string]any) {
			crumbs := make([]any, 101)
			for i := range crumbs {
				crumbs[i] = map[string]any{"timestamp": "2026-01-02T03:04:05Z", "category": strings.Repeat("c", 256), "level": strings.Repeat("l", 32),
					"message": strings.Repeat("m", 8<<10), "data": map[string]any{"k": 1}}
			}
			ev["breadcrumbs"] = crumbs
		}),
	}
	for name, body := range refused {
		res := s.Do(apitest.Request{Method: "POST", Path: "/v1/ingest", Token: key, Body: body})
		if res.Status != http.StatusUnprocessableEntity {
			t.Errorf("%s: server answered %d %s, want 422", name, res.Status, res.Body)
		}
		if err := visit(t, schema.Value, body); err == nil {
			t.Errorf("%s: the document accepts a batch the server refuses", name)
		}
	}
	for name, body := range accepted {
		res := s.Do(apitest.Request{Method: "POST", Path: "/v1/ingest", Token: key, Body: body})
		if res.Status != http.StatusAccepted {
			t.Errorf("%s: server answered %d %s, want 202", name, res.Status, res.Body)
		}
		if err := visit(t, schema.Value, body); err != nil {
			t.Errorf("%s: the document refuses a batch the server accepts: %v", name, err)
		}
	}
}

// visit validates v, as a client would encode it, against a request schema.
func visit(t *testing.T, schema *openapi3.Schema, v any) error {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var decoded any
	if err := json.Unmarshal(b, &decoded); err != nil {
		t.Fatal(err)
	}
	return schema.VisitJSON(decoded, openapi3.EnableJSONSchema2020(), openapi3.VisitAsRequest())
}
