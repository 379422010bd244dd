package httpapi_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/store"
)

// TestAPIReferencePage: GET /docs/api renders the served OpenAPI document
// (issue 29): every operation and webhook of /v1/openapi.json has its
// section and every schema its entry, every in-page link leads to an id on
// the page, and the page loads nothing from elsewhere and runs no script.
func TestAPIReferencePage(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, store.SQLite)
	res := s.Do(apitest.Request{Method: "GET", Path: "/docs/api"})
	if res.Status != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET /docs/api: %d %s", res.Status, res.Header.Get("Content-Type"))
	}
	page := string(res.Body)
	var doc struct {
		Paths      map[string]map[string]struct{ OperationID string }
		Webhooks   map[string]map[string]json.RawMessage
		Components struct{ Schemas map[string]json.RawMessage }
	}
	if err := json.Unmarshal(s.Do(apitest.Request{Method: "GET", Path: "/v1/openapi.json"}).Body, &doc); err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, m := range regexp.MustCompile(`id="([^"]+)"`).FindAllStringSubmatch(page, -1) {
		if ids[m[1]] {
			t.Errorf("id %q twice on the page", m[1])
		}
		ids[m[1]] = true
	}
	ops := 0
	for path, item := range doc.Paths {
		for method, op := range item {
			if method == "parameters" || method == "summary" || method == "description" {
				continue
			}
			ops++
			if op.OperationID == "" || !ids["op-"+op.OperationID] {
				t.Errorf("%s %s (operation %q) has no section", strings.ToUpper(method), path, op.OperationID)
			}
			if !strings.Contains(page, "<code>"+path+"</code>") {
				t.Errorf("the page never names %s", path)
			}
		}
	}
	if ops < 40 {
		t.Errorf("only %d operations in the served document", ops)
	}
	for name := range doc.Webhooks {
		if !strings.Contains(page, "<code>"+name+"</code>") {
			t.Errorf("webhook %q is not on the page", name)
		}
	}
	for name := range doc.Components.Schemas {
		if !ids["schema-"+name] {
			t.Errorf("schema %s has no entry", name)
		}
	}
	for _, m := range regexp.MustCompile(`href="#([^"]*)"`).FindAllStringSubmatch(page, -1) {
		if !ids[m[1]] {
			t.Errorf("the page links #%s, which is not on it", m[1])
		}
	}
	if strings.Contains(page, "<script") || regexp.MustCompile(`(src|href)="(https?:)?//`).MatchString(page) {
		t.Error("the page runs a script or loads something from elsewhere")
	}
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") {
		t.Errorf("Content-Security-Policy %q", csp)
	}
}
