package sentryhttp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/store/storetest"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// world is a project "shop" with an API key and its DSN, and a second
// project with a key of its own.
type world struct {
	s                 *apitest.Server
	token, orgID      string
	projectID         string
	number            int64
	keyID, key, dsn   string
	otherID, otherKey string
	otherNumber       int64
	envelopePath      string
	storePath         string
	client            *http.Client
}

func newWorld(t *testing.T, s *apitest.Server) *world {
	t.Helper()
	owner := s.SignUp(t, "owner@example.com")
	org := s.CreateOrg(t, owner.Token, "Acme")
	w := &world{s: s, token: owner.Token, orgID: org, client: &http.Client{}}
	w.projectID, w.number = createProject(t, s, owner.Token, org, "shop")
	w.keyID, w.key, w.dsn = s.CreateKeyDSN(t, owner.Token, w.projectID)
	w.otherID, w.otherNumber = createProject(t, s, owner.Token, org, "other")
	_, w.otherKey = s.CreateKey(t, owner.Token, w.otherID)
	w.envelopePath = fmt.Sprintf("/api/%d/envelope/", w.number)
	w.storePath = fmt.Sprintf("/api/%d/store/", w.number)
	return w
}

func createProject(t *testing.T, s *apitest.Server, token, org, name string) (string, int64) {
	t.Helper()
	r := s.Do(apitest.Request{Method: "POST", Path: "/v1/orgs/" + org + "/projects", Token: token, Body: map[string]any{"name": name}}).
		Expect(t, http.StatusCreated, "")
	n, _ := r.JSON(t)["number"].(float64)
	if n < 1 {
		t.Fatalf("project %s has no number: %s", name, r.Body)
	}
	return r.Str(t, "id"), int64(n)
}

// answer is an answer of a Sentry endpoint.
type answer struct {
	status int
	header http.Header
	body   []byte
}

// json decodes the answer, which must be a JSON object.
func (a *answer) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(a.body, &m); err != nil {
		t.Fatalf("answer %d is not a JSON object: %v: %s", a.status, err, a.body)
	}
	return m
}

// expect checks the status and, for failures, the {"detail": …} shape.
func (a *answer) expect(t *testing.T, status int) *answer {
	t.Helper()
	if a.status != status {
		t.Fatalf("status %d, want %d: %s", a.status, status, a.body)
	}
	if got := a.header.Get("Access-Control-Allow-Origin"); got != "*" {
		t.Errorf("Access-Control-Allow-Origin %q, want *", got)
	}
	if status >= 400 {
		if d, _ := a.json(t)["detail"].(string); d == "" {
			t.Errorf("failure without a detail: %s", a.body)
		}
	}
	return a
}

// send posts body to path with headers (name, value pairs).
func (w *world) send(t *testing.T, path string, body []byte, headers ...string) *answer {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, w.s.URL+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Add(headers[i], headers[i+1]) // a header named twice is sent as two lines
	}
	return w.do(t, req)
}

func (w *world) do(t *testing.T, req *http.Request) *answer {
	t.Helper()
	res, err := w.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return &answer{status: res.StatusCode, header: res.Header, body: b}
}

// withKey is path with the key in the query, as the JavaScript SDKs send it.
func withKey(path, key string) string {
	return path + "?sentry_version=7&sentry_client=test%2F1.0&sentry_key=" + url.QueryEscape(key)
}

// authHeader is X-Sentry-Auth as sentry-go sends it.
func authHeader(key string) string {
	return "Sentry sentry_version=7, sentry_client=sentry.go/0.50.0, sentry_key=" + key
}

// envelope builds an envelope body: a header and items of (type, payload).
func envelope(header string, items ...string) []byte {
	var b strings.Builder
	b.WriteString(header + "\n")
	for i := 0; i+1 < len(items); i += 2 {
		fmt.Fprintf(&b, `{"type":%q,"length":%d}`+"\n%s\n", items[i], len(items[i+1]), items[i+1])
	}
	return []byte(b.String())
}

// eventEnvelope is a single-event envelope as SDKs send it.
func eventEnvelope(eventID, message string) []byte {
	ev := fmt.Sprintf(`{"event_id":%q,"level":"error","platform":"go","message":%q,"tags":{"region":"eu"}}`, eventID, message)
	return envelope(fmt.Sprintf(`{"event_id":%q,"sent_at":"2026-11-24T10:00:00Z"}`, eventID), "event", ev)
}

// groups drains the queue and returns the project's groups by title.
func (w *world) groups(t *testing.T) map[string]map[string]any {
	t.Helper()
	if err := w.s.App.Processor.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	r := w.s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.projectID + "/groups?limit=100", Token: w.token}).Expect(t, http.StatusOK, "")
	out := map[string]map[string]any{}
	for _, g := range r.JSON(t)["data"].([]any) {
		g := g.(map[string]any)
		out[g["title"].(string)] = g
	}
	return out
}

// metric returns the value of one series of /metrics ("" when absent).
func (w *world) metric(t *testing.T, series string) string {
	t.Helper()
	r := w.s.Do(apitest.Request{Method: "GET", Path: "/metrics"})
	for _, line := range strings.Split(string(r.Body), "\n") {
		if v, ok := strings.CutPrefix(line, series+" "); ok {
			return v
		}
	}
	return ""
}
