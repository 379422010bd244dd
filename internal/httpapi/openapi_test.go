package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
	"google.golang.org/grpc/codes"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/otlp"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/store"
)

// The contract tests hold the served OpenAPI document to the real server:
// every documented route exists and every real answer matches its schema.

// unknownIDs fill path parameters with well-formed identifiers that name
// nothing. A new path parameter must be added here.
var unknownIDs = map[string]string{
	"org_id":        "org_" + zeros,
	"project_id":    "prj_" + zeros,
	"member_id":     "mem_" + zeros,
	"invitation_id": "inv_" + zeros,
	"key_id":        "key_" + zeros,
	"channel_id":    "chn_" + zeros,
	"ticket_id":     "tkt_" + zeros,
	"group_id":      "grp_" + zeros,
	"summary_id":    "ism_" + zeros,
	"delivery_id":   "dlv_" + zeros,
	"comment_id":    "cmt_" + zeros,
	"token_id":      "pat_" + zeros,
	"release_id":    "rel_" + zeros,
	"event_id":      "999999999999",
	"session_id":    "ses_" + zeros,
}

const zeros = "00000000000000000000000000"

// contract is the OpenAPI document served by one server.
type contract struct {
	s      *apitest.Server
	raw    []byte
	doc    *openapi3.T
	router routers.Router
	// answered records every (method, path template, status) seen, and
	// types every problem type.
	answered map[string]bool
	types    map[string]bool
}

// loadContract fetches GET /v1/openapi.json and loads and validates it.
func loadContract(t *testing.T, s *apitest.Server) *contract {
	t.Helper()
	r := s.Do(apitest.Request{Method: "GET", Path: "/v1/openapi.json"}).Expect(t, http.StatusOK, "")
	var head struct {
		OpenAPI string `json:"openapi"`
	}
	if err := json.Unmarshal(r.Body, &head); err != nil {
		t.Fatalf("openapi.json is not JSON: %v", err)
	}
	if !strings.HasPrefix(head.OpenAPI, "3.1.") {
		t.Fatalf("openapi = %q, want 3.1.x", head.OpenAPI)
	}
	doc, err := openapi3.NewLoader().LoadFromData(r.Body)
	if err != nil {
		t.Fatalf("load openapi.json: %v", err)
	}
	if !doc.IsOpenAPI31OrLater() {
		t.Fatalf("kin-openapi does not read the document as 3.1")
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("openapi.json is not a valid OpenAPI document: %v", err)
	}
	router, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatalf("route the document: %v", err)
	}
	return &contract{s: s, raw: r.Body, doc: doc, router: router, answered: map[string]bool{}, types: map[string]bool{}}
}

// operation is one method on one path of the document.
type operation struct {
	method, path string
	op           *openapi3.Operation
}

func (o operation) String() string { return o.method + " " + o.path }

// secured reports whether the operation takes a credential.
func (o operation) secured() bool { return o.op.Security != nil && len(*o.op.Security) > 0 }

func (c *contract) operations() []operation {
	var out []operation
	for path, item := range c.doc.Paths.Map() {
		for method, op := range item.Operations() {
			out = append(out, operation{method, path, op})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

var paramRe = regexp.MustCompile(`\{([^}]+)\}`)

// methodsAt returns the documented methods whose path matches a concrete
// path exactly (kin-openapi's router also takes a trailing slash). More than
// one path can match: /v1/invitations/accept and /v1/invitations/{id}.
func (c *contract) methodsAt(path string) []string {
	var out []string
	for _, o := range c.operations() {
		parts := paramRe.Split(o.path, -1)
		for i := range parts {
			parts[i] = regexp.QuoteMeta(parts[i])
		}
		if regexp.MustCompile("^" + strings.Join(parts, "[^/]+") + "$").MatchString(path) {
			out = append(out, o.method)
		}
	}
	return out
}

// fill replaces the path parameters of a template with unknown identifiers.
func fill(t *testing.T, path string) string {
	t.Helper()
	return paramRe.ReplaceAllStringFunc(path, func(m string) string {
		v, ok := unknownIDs[m[1:len(m)-1]]
		if !ok {
			t.Fatalf("%s: no placeholder for path parameter %s; add it to unknownIDs", path, m)
		}
		return v
	})
}

// call sends req, expects status (and code, for a problem) and checks the
// exchange against the document.
func (c *contract) call(t *testing.T, req apitest.Request, status int, code string) *apitest.Response {
	t.Helper()
	res := c.s.Do(req).Expect(t, status, code)
	if err := c.check(req, res); err != nil {
		t.Errorf("%s %s answered %d, which the document does not describe:\n%v\nbody: %s", req.Method, req.Path, res.Status, err, res.Body)
	}
	return res
}

// check validates one exchange with kin-openapi: the request must map to a
// documented operation (and, when it succeeded, match its parameters and
// body); the answer's status must be documented and its headers and body
// must match the schema. It adds what kin-openapi leaves out: content types,
// empty 204 bodies, complete problems, no $schema field, no Link header.
func (c *contract) check(req apitest.Request, res *apitest.Response) error {
	ctx := context.Background()
	hr, err := c.httpRequest(req)
	if err != nil {
		return err
	}
	route, params, err := c.router.FindRoute(hr)
	if err != nil {
		return fmt.Errorf("no documented operation: %w", err)
	}
	opts := &openapi3filter.Options{IncludeResponseStatus: true, AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}
	in := &openapi3filter.RequestValidationInput{Request: hr, PathParams: params, Route: route, Options: opts}
	if res.Status < 300 {
		if err := openapi3filter.ValidateRequest(ctx, in); err != nil {
			return fmt.Errorf("the request that succeeded does not match the document: %w", err)
		}
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: res.Status, Header: res.Header, Options: opts}
	out.SetBodyBytes(res.Body)
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		return err
	}
	c.answered[fmt.Sprintf("%s %s %d", route.Method, route.Path, res.Status)] = true
	if link := res.Header.Get("Link"); link != "" {
		return fmt.Errorf("unexpected Link header %q", link)
	}
	ct := res.Header.Get("Content-Type")
	switch {
	case res.Status == http.StatusNoContent:
		if len(res.Body) != 0 {
			return fmt.Errorf("204 with a body")
		}
		return nil
	case res.Status >= 400:
		if r := route.Operation.Responses.Status(res.Status); r != nil && r.Value.Content.Get(problem.ContentType) == nil {
			return nil // an OTLP answer: a google.rpc.Status, validated above
		}
		return c.checkProblem(res)
	case ct != "application/json":
		return nil // another documented media type (OTLP protobuf), as kin-openapi checked
	}
	var body map[string]any
	if err := json.Unmarshal(res.Body, &body); err == nil {
		if _, ok := body["$schema"]; ok {
			return fmt.Errorf("the body carries a $schema field")
		}
	}
	return nil
}

// checkProblem checks that res is a complete RFC 9457 problem of a
// documented code, matching the document's Problem schema.
func (c *contract) checkProblem(res *apitest.Response) error {
	if ct := res.Header.Get("Content-Type"); ct != problem.ContentType {
		return fmt.Errorf("Content-Type = %q, want %s", ct, problem.ContentType)
	}
	schema := c.doc.Components.Schemas["Problem"]
	if schema == nil {
		return errors.New("the document has no Problem schema")
	}
	var v any
	if err := json.Unmarshal(res.Body, &v); err != nil {
		return fmt.Errorf("problem is not JSON: %w", err)
	}
	if err := schema.Value.VisitJSON(v, openapi3.EnableJSONSchema2020(), openapi3.VisitAsResponse()); err != nil {
		return fmt.Errorf("problem does not match the Problem schema: %w", err)
	}
	var p problem.Problem
	_ = json.Unmarshal(res.Body, &p)
	prefix := c.s.Config.DocsURL + "/errors/"
	code, ok := strings.CutPrefix(p.Type, prefix)
	if !ok {
		return fmt.Errorf("type = %q, want %s<code>", p.Type, prefix)
	}
	if _, ok := problem.Lookup(code); !ok {
		return fmt.Errorf("type %q is not a documented code", p.Type)
	}
	if p.Status != res.Status || p.Title == "" || p.Detail == "" {
		return fmt.Errorf("incomplete problem (status %d, title %q, detail %q)", p.Status, p.Title, p.Detail)
	}
	if rid := res.Header.Get("Request-Id"); p.Instance != rid || !strings.HasPrefix(rid, "req_") {
		return fmt.Errorf("instance = %q, want the Request-Id header %q (req_…)", p.Instance, rid)
	}
	c.types[p.Type] = true
	return nil
}

// httpRequest rebuilds req as apitest.Server.Do sends it.
func (c *contract) httpRequest(req apitest.Request) (*http.Request, error) {
	var body []byte
	switch b := req.Body.(type) {
	case nil:
	case string:
		body = []byte(b)
	case []byte:
		body = b
	default:
		var err error
		if body, err = json.Marshal(b); err != nil {
			return nil, err
		}
	}
	hr, err := http.NewRequest(req.Method, c.s.URL+req.Path, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if req.Body != nil {
		hr.Header.Set("Content-Type", "application/json")
	}
	if req.Token != "" {
		hr.Header.Set("Authorization", "Bearer "+req.Token)
	}
	for k, v := range req.Headers {
		hr.Header.Set(k, v)
	}
	for _, ck := range req.Cookies {
		hr.AddCookie(ck)
	}
	return hr, nil
}

// TestOpenAPIRoutesExist sends every documented operation a request without
// a credential: the route must exist, a secured operation must answer 401
// unauthorized (and document it), and an operation that answers 401 must
// declare its security.
func TestOpenAPIRoutesExist(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		c := loadContract(t, s)
		ops := c.operations()
		if len(ops) < 20 {
			t.Fatalf("the document has %d operations; is it the real route table?", len(ops))
		}
		for _, o := range ops {
			req := apitest.Request{Method: o.method, Path: fill(t, o.path)}
			if o.op.RequestBody != nil {
				req.Body = map[string]any{}
			}
			res := s.Do(req)
			if res.Status == http.StatusMethodNotAllowed || res.Status == http.StatusNotFound && strings.HasPrefix(res.Str(t, "detail"), "no route") {
				t.Errorf("%s: documented but not routed: %d %s", o, res.Status, res.Body)
				continue
			}
			switch {
			case o.path == otlp.Path: // answers a google.rpc.Status
				if res.Status != http.StatusUnauthorized || res.JSON(t)["code"] != float64(codes.Unauthenticated) {
					t.Errorf("%s without a credential = %d %s, want 401 UNAUTHENTICATED", o, res.Status, res.Body)
				}
			case o.secured():
				if res.Status != http.StatusUnauthorized || res.Code(t) != "unauthorized" {
					t.Errorf("%s without a credential = %d %s, want 401 unauthorized", o, res.Status, res.Body)
				}
				if o.op.Responses.Status(http.StatusUnauthorized) == nil {
					t.Errorf("%s: 401 is not among its documented responses", o)
				}
			case res.Status == http.StatusUnauthorized:
				t.Errorf("%s answers 401 without a credential but declares no security", o)
			}
			if err := c.check(req, res); err != nil {
				t.Errorf("%s: answer %d does not match the document: %v\nbody: %s", o, res.Status, err, res.Body)
			}
		}
	})
}

// TestOpenAPIUnknownRoutesAndMethods checks that undocumented paths under
// /v1/ are 404 not-found problems and that an undocumented method on a
// documented path is a 405 method-not-allowed problem with an Allow header.
func TestOpenAPIUnknownRoutesAndMethods(t *testing.T) {
	s := apitest.Start(t, store.SQLite)
	c := loadContract(t, s)
	probes := []string{"/v1", "/v1/", "/v1/no-such-thing", "/v1/orgs/" + unknownIDs["org_id"] + "/no-such-thing", "/v2/orgs"}
	paths := map[string]bool{}
	for _, o := range c.operations() {
		paths[fill(t, o.path)] = true
	}
	for p := range paths {
		probes = append(probes, p+"/", p+"/no-such-thing")
	}
	for _, p := range probes {
		if len(c.methodsAt(p)) > 0 {
			continue // the probe happens to match a documented path
		}
		for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodDelete} {
			res := s.Do(apitest.Request{Method: m, Path: p})
			if res.Status != http.StatusNotFound {
				t.Errorf("%s %s = %d %s, want 404", m, p, res.Status, res.Body)
				continue
			}
			if err := c.checkProblem(res); err != nil || res.Code(t) != "not-found" {
				t.Errorf("%s %s: %v (code %q, want not-found)", m, p, err, res.Code(t))
			}
		}
	}
	// The detail names the path as asked, under a prefix a handler strips too.
	for _, p := range []string{"/v1/nope", "/docs/nope.md", "/docs/errors/nope", "/v1/projects//channels"} {
		if d := s.Do(apitest.Request{Method: http.MethodGet, Path: p, Headers: map[string]string{"Accept": "application/json"}}).Expect(t, http.StatusNotFound, "not-found").Str(t, "detail"); d != "no route GET "+p {
			t.Errorf("GET %s: detail %q", p, d)
		}
	}
	for p := range paths {
		methods := c.methodsAt(p)
		for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
			if slices.Contains(methods, m) {
				continue
			}
			res := s.Do(apitest.Request{Method: m, Path: p})
			if res.Status != http.StatusMethodNotAllowed {
				t.Errorf("%s %s = %d %s, want 405", m, p, res.Status, res.Body)
				continue
			}
			if err := c.checkProblem(res); err != nil || res.Code(t) != "method-not-allowed" {
				t.Errorf("%s %s: %v (code %q, want method-not-allowed)", m, p, err, res.Code(t))
			}
			allow := strings.Split(strings.ReplaceAll(res.Header.Get("Allow"), " ", ""), ",")
			for _, want := range methods {
				if !slices.Contains(allow, want) {
					t.Errorf("%s %s: Allow = %q, want it to list %s", m, p, res.Header.Get("Allow"), want)
				}
			}
			if slices.Contains(allow, m) {
				t.Errorf("%s %s: Allow = %q lists the refused method", m, p, res.Header.Get("Allow"))
			}
			if res.Header.Get("RateLimit-Limit") == "" || res.Header.Get("RateLimit-Remaining") == "" || res.Header.Get("RateLimit-Reset") == "" {
				t.Errorf("%s %s: 405 without the RateLimit-* headers every answer carries", m, p)
			}
		}
	}
}

// TestOpenAPINamesEveryProblemCode: the Problem schema's type lists every
// code the server answers with and its status (interface section 7:
// clients switch on type), so that a generated client knows them all.
func TestOpenAPINamesEveryProblemCode(t *testing.T) {
	s := apitest.Start(t, store.SQLite)
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct{ Description string }
			}
		}
	}
	if err := json.Unmarshal(s.Do(apitest.Request{Method: "GET", Path: "/v1/openapi.json"}).Expect(t, http.StatusOK, "").Body, &doc); err != nil {
		t.Fatal(err)
	}
	desc := doc.Components.Schemas["Problem"].Properties["type"].Description
	for _, c := range problem.All() {
		if !strings.Contains(desc, fmt.Sprintf("%s (%d)", c.Name, c.Status)) {
			t.Errorf("Problem.type does not name %s (%d): %q", c.Name, c.Status, desc)
		}
	}
}

// TestOpenAPIStatesEveryAccessRule: every operation states its minimum
// role (interface section 5) and the token scope it takes, in its
// description and as x-minimum-role and x-token-scope, the same rule the
// server enforces.
func TestOpenAPIStatesEveryAccessRule(t *testing.T) {
	s := apitest.Start(t, store.SQLite)
	var doc struct {
		Paths map[string]map[string]struct {
			Description string         `json:"description"`
			Role        string         `json:"x-minimum-role"`
			Scope       string         `json:"x-token-scope"`
			Responses   map[string]any `json:"responses"`
		}
	}
	if err := json.Unmarshal(s.Do(apitest.Request{Method: "GET", Path: "/v1/openapi.json"}).Expect(t, http.StatusOK, "").Body, &doc); err != nil {
		t.Fatal(err)
	}
	n := 0
	for path, ops := range doc.Paths {
		for method, op := range ops {
			n++
			if op.Role == "" || !strings.Contains(op.Description, "Minimum role: "+op.Role) && !strings.Contains(op.Description, "Access: ") {
				t.Errorf("%s %s: x-minimum-role %q, description %q; want the rule stated", method, path, op.Role, op.Description)
			}
		}
	}
	if n < 50 {
		t.Fatalf("%d operations checked; is it the real document?", n)
	}
	ch := doc.Paths["/v1/projects/{project_id}/channels"]["post"]
	if ch.Role != "admin" || ch.Scope != "project:write" {
		t.Errorf("channel creation: role %q, scope %q; want admin (interface 4.5) and project:write", ch.Role, ch.Scope)
	}
	for _, p := range []string{"/v1/ingest", "/v1/logs"} {
		if d := doc.Paths[p]["post"]; d.Role != "project-api-key" {
			t.Errorf("%s: role %q, want project-api-key", p, d.Role)
		}
	}
	if d := doc.Paths["/v1/groups/{group_id}"]["patch"]; d.Role != "member" {
		t.Errorf("changing a group: role %q, want member (CONTRACT 2)", d.Role)
	}
}

// TestOpenAPIListsUnavailable: every operation answers 503 unavailable with
// Retry-After when the database is unreachable or read-only (CONTRACT 7),
// so every operation lists it, but channel creation, whose six problem
// answers CONTRACT 6 fixes.
func TestOpenAPIListsUnavailable(t *testing.T) {
	s := apitest.Start(t, store.SQLite)
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]struct {
				Headers map[string]any `json:"headers"`
			} `json:"responses"`
		}
	}
	if err := json.Unmarshal(s.Do(apitest.Request{Method: "GET", Path: "/v1/openapi.json"}).Expect(t, http.StatusOK, "").Body, &doc); err != nil {
		t.Fatal(err)
	}
	n := 0
	for path, ops := range doc.Paths {
		for method, op := range ops {
			if path == "/v1/projects/{project_id}/channels" && method == "post" {
				if _, ok := op.Responses["503"]; ok {
					t.Errorf("channel creation lists 503; CONTRACT 6 fixes its six")
				}
				continue
			}
			n++
			r, ok := op.Responses["503"]
			if !ok {
				t.Errorf("%s %s lists no 503", method, path)
			} else if r.Headers["Retry-After"] == nil {
				t.Errorf("%s %s: 503 without Retry-After", method, path)
			}
		}
	}
	if n < 50 {
		t.Fatalf("%d operations checked; is it the real document?", n)
	}
}
