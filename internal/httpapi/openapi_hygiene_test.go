package httpapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/otlp"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/store"
)

// problemFields are the members every problem has (spec section 7).
var problemFields = []string{"type", "title", "status", "detail", "instance"}

// TestOpenAPIHygiene checks what every operation of the document must say.
func TestOpenAPIHygiene(t *testing.T) {
	s := apitest.Start(t, store.SQLite)
	c := loadContract(t, s)
	if len(c.doc.Servers) == 0 || c.doc.Servers[0].URL != s.Config.BaseURL || s.Config.BaseURL != s.URL {
		t.Errorf("servers = %v, want the base URL %s first", c.doc.Servers, s.URL)
	}
	if c.doc.Info == nil || c.doc.Info.Title == "" || c.doc.Info.Version == "" {
		t.Errorf("info = %+v, want a title and a version", c.doc.Info)
	}
	schemes := c.doc.Components.SecuritySchemes
	if sc := schemes["session"]; sc == nil || sc.Value.Type != "http" || sc.Value.Scheme != "bearer" {
		t.Errorf("security scheme session = %+v, want http bearer", sc)
	}
	declared := map[string]bool{}
	for _, tag := range c.doc.Tags {
		declared[tag.Name] = tag.Description != ""
	}
	ids := map[string]string{}
	for _, o := range c.operations() {
		op := o.op
		if !strings.HasPrefix(o.path, "/v1/") {
			t.Errorf("%s: path outside /v1/", o)
		}
		if op.OperationID == "" || op.Summary == "" || len(op.Tags) == 0 {
			t.Errorf("%s: operationId %q, summary %q, tags %v: all three are needed", o, op.OperationID, op.Summary, op.Tags)
		}
		if prev, dup := ids[op.OperationID]; dup {
			t.Errorf("%s: operationId %q is also %s's", o, op.OperationID, prev)
		}
		ids[op.OperationID] = o.String()
		for _, tag := range op.Tags {
			if !declared[tag] {
				t.Errorf("%s: tag %q is not declared with a description in the document's tags", o, tag)
			}
		}
		if op.Security == nil {
			t.Errorf("%s: declares no security; an operation without a credential says security: []", o)
		}
		if o.secured() {
			for _, req := range *op.Security {
				for name := range req {
					if schemes[name] == nil {
						t.Errorf("%s: security names unknown scheme %q", o, name)
					}
				}
			}
		}
		checkResponses(t, o)
	}
	for name, item := range c.doc.Webhooks {
		if item.Post == nil || item.Post.Security == nil || len(*item.Post.Security) != 0 {
			t.Errorf("webhook %s: want a POST with security: [] (receivers check the signature)", name)
		}
	}
	checkNoSchemaProperty(t, c.raw)
}

// checkResponses checks the documented answers of one operation.
func checkResponses(t *testing.T, o operation) {
	t.Helper()
	success := 0
	documented := func(status int) bool { return o.op.Responses.Status(status) != nil }
	for code, ref := range o.op.Responses.Map() {
		r := ref.Value
		switch {
		case code == "204":
			success++
			if len(r.Content) != 0 {
				t.Errorf("%s: 204 documents a body", o)
			}
		case strings.HasPrefix(code, "2"):
			success++
			if mt := r.Content.Get("application/json"); mt == nil || mt.Schema == nil || mt.Schema.Value == nil {
				t.Errorf("%s: %s has no application/json schema", o, code)
			}
		case o.path == otlp.Path && (strings.HasPrefix(code, "4") || strings.HasPrefix(code, "5")):
			checkStatusResponse(t, o, code, r)
		case strings.HasPrefix(code, "4"), strings.HasPrefix(code, "5"), code == "default":
			checkProblemResponse(t, o, code, r)
		}
	}
	if success == 0 {
		t.Errorf("%s: no 2xx response", o)
	}
	// CONTRACT 6 fixes channel creation's documented problems: exactly
	// these six.
	if o.op.OperationID == "create-channel" {
		var problems []string
		for code := range o.op.Responses.Map() {
			if code >= "4" {
				problems = append(problems, code)
			}
		}
		slices.Sort(problems)
		if want := []string{"400", "401", "403", "404", "422", "429"}; !slices.Equal(problems, want) {
			t.Errorf("%s: problem responses %v, want exactly %v", o, problems, want)
		}
		return
	}
	// Every route passes the rate limit and can fail inside.
	for _, status := range []int{http.StatusTooManyRequests, http.StatusInternalServerError} {
		if !documented(status) {
			t.Errorf("%s: %d is not documented", o, status)
		}
	}
	if o.secured() && !documented(http.StatusUnauthorized) {
		t.Errorf("%s: declares security but not 401", o)
	}
	if strings.Contains(o.path, "{") && o.secured() && !documented(http.StatusNotFound) {
		t.Errorf("%s: names a resource but does not document 404", o)
	}
	if o.op.RequestBody != nil {
		for _, status := range []int{http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity, http.StatusUnsupportedMediaType} {
			// CONTRACT 6 fixes channel creation's documented problems at six,
			// without 413 (the 1 MiB limit still applies).
			if status == http.StatusRequestEntityTooLarge && o.op.OperationID == "create-channel" {
				continue
			}
			// OTLP rejects invalid records in partial_success, never the
			// request with a 422.
			if status == http.StatusUnprocessableEntity && o.path == otlp.Path {
				continue
			}
			if !documented(status) {
				t.Errorf("%s: takes a body but does not document %d", o, status)
			}
		}
	} else if documented(http.StatusBadRequest) || documented(http.StatusRequestEntityTooLarge) {
		t.Errorf("%s: takes no body but documents 400 or 413", o)
	}
}

// checkProblemResponse checks that an error answer is documented as an
// application/problem+json problem with all its members.
func checkProblemResponse(t *testing.T, o operation, code string, r *openapi3.Response) {
	t.Helper()
	if len(r.Content) != 1 || r.Content[problem.ContentType] == nil {
		t.Errorf("%s: %s content types = %v, want only %s", o, code, slices.Sorted(maps.Keys(r.Content)), problem.ContentType)
		return
	}
	mt := r.Content[problem.ContentType]
	if mt.Schema == nil || mt.Schema.Value == nil {
		t.Errorf("%s: %s has no schema", o, code)
		return
	}
	sc := mt.Schema.Value
	for _, f := range problemFields {
		if sc.Properties[f] == nil || !slices.Contains(sc.Required, f) {
			t.Errorf("%s: %s problem schema lacks required %q", o, code, f)
		}
	}
}

// checkStatusResponse checks that an OTLP error answer is documented as a
// google.rpc.Status, in protobuf and in JSON (OTLP/HTTP answers in the
// request's encoding).
func checkStatusResponse(t *testing.T, o operation, code string, r *openapi3.Response) {
	t.Helper()
	if got := slices.Sorted(maps.Keys(r.Content)); !slices.Equal(got, []string{otlp.ContentTypeJSON, otlp.ContentTypeProtobuf}) {
		t.Errorf("%s: %s content types = %v, want %s and %s", o, code, got, otlp.ContentTypeJSON, otlp.ContentTypeProtobuf)
		return
	}
	sc := r.Content[otlp.ContentTypeJSON].Schema
	if sc == nil || sc.Value == nil || sc.Value.Properties["code"] == nil || !slices.Contains(sc.Value.Required, "code") {
		t.Errorf("%s: %s JSON schema is not a google.rpc.Status with a required code", o, code)
	}
	if code == "429" || code == "503" {
		if h := r.Headers["Retry-After"]; h == nil || !h.Value.Required {
			t.Errorf("%s: %s does not document a required Retry-After header", o, code)
		}
	}
}

// checkNoSchemaProperty fails if any schema of the document has a $schema
// property (huma's create-hook adds one to every response body).
func checkNoSchemaProperty(t *testing.T, raw []byte) {
	t.Helper()
	var v any
	if err := json.NewDecoder(bytes.NewReader(raw)).Decode(&v); err != nil {
		t.Fatal(err)
	}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch v := v.(type) {
		case map[string]any:
			if props, ok := v["properties"].(map[string]any); ok {
				if _, bad := props["$schema"]; bad {
					t.Errorf("%s: schema has a $schema property", path)
				}
			}
			for k, x := range v {
				walk(path+"/"+k, x)
			}
		case []any:
			for i, x := range v {
				walk(fmt.Sprintf("%s/%d", path, i), x)
			}
		}
	}
	walk("#", v)
}

// TestErrorPages checks the pages problem types point at: the index lists
// every code, each code has its page, and an unknown code is a 404 problem.
func TestErrorPages(t *testing.T) {
	s := apitest.Start(t, store.SQLite)
	c := loadContract(t, s)
	index := getPage(t, s.Config.DocsURL+"/errors/", http.StatusOK)
	for _, code := range problem.All() {
		if !strings.Contains(index, `href="`+code.Name+`"`) {
			t.Errorf("the index of %s/errors/ does not link %s", s.Config.DocsURL, code.Name)
		}
		c.types[s.Config.DocsURL+"/errors/"+code.Name] = true
	}
	checkProblemPages(t, c)
	res := s.Do(apitest.Request{Method: "GET", Path: "/docs/errors/no-such-code"}).Expect(t, http.StatusNotFound, "not-found")
	if err := c.checkProblem(res); err != nil {
		t.Error(err)
	}
}

// checkProblemPages fetches the page of every problem type c has seen.
func checkProblemPages(t *testing.T, c *contract) {
	t.Helper()
	if len(c.types) == 0 {
		t.Fatal("no problem types to check")
	}
	for typ := range c.types {
		page := getPage(t, typ, http.StatusOK)
		code := typ[strings.LastIndexByte(typ, '/')+1:]
		if !strings.Contains(page, "<code>"+code+"</code>") {
			t.Errorf("the page %s does not name %s", typ, code)
		}
	}
}

func getPage(t *testing.T, url string, status int) string {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	if res.StatusCode != status || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("GET %s = %d %s, want %d HTML", url, res.StatusCode, res.Header.Get("Content-Type"), status)
	}
	return string(b)
}
