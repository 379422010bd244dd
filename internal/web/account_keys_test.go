package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
)

// accountKeyRe finds a full API key credential in a page.
var accountKeyRe = regexp.MustCompile(`svc_live_[a-z0-9]+_[a-z2-7]{20,}`)

// accountIngest sends one event with key and returns the status.
func accountIngest(t *testing.T, s *apitest.Server, key string) int {
	t.Helper()
	return s.Do(apitest.Request{Method: "POST", Path: "/v1/ingest", Token: key, Body: map[string]any{"service": "checkout",
		"events": []any{map[string]any{"message": "card declined", "level": "error"}}}}).Status
}

func TestAccountKeys(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		keysPath := "/projects/" + w.ProjectID + "/keys"
		admin := newBrowser(t, s)
		admin.signIn(w.Admin.Email)
		admin.get(keysPath).expect(t, http.StatusOK, "No API keys yet", `<label for="key-name">`, `action="`+keysPath+`"`,
			`<a href="`+keysPath+`" aria-current="page">API keys</a>`)
		admin.post(keysPath, url.Values{"name": {" "}}).expect(t, http.StatusUnprocessableEntity, `role="alert"`, "not blank")

		created := admin.post(keysPath, url.Values{"name": {"checkout production"}}).expect(t, http.StatusCreated,
			"API key created", "checkout production", `<code id="api-key"`, `data-copy="#api-key"`, "shown only this once",
			s.URL+"/v1/ingest", s.URL+"/v1/logs")
		key := accountKeyRe.FindString(created.Body)
		if key == "" {
			t.Fatalf("no key on the page: %s", created.Body)
		}
		// Shown in its box and filled into both snippets (curl, OpenTelemetry).
		if !strings.Contains(created.Body, `class="account-secret">`+key+`</code>`) || !strings.Contains(created.Body, "Bearer "+key) || strings.Count(created.Body, key) < 3 {
			t.Errorf("the key is not in its box and both snippets: %s", created.Body)
		}
		if accountIngest(t, s, key) != http.StatusAccepted {
			t.Fatalf("the key shown does not ingest")
		}
		// The key as a Sentry DSN, in its box and in the four SDK
		// snippets, and it works on the Sentry endpoint.
		number := int64(s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.ProjectID, Token: w.Admin.Token}).Expect(t, http.StatusOK, "").JSON(t)["number"].(float64))
		dsn := "http://" + key + "@" + strings.TrimPrefix(s.URL, "http://") + "/" + strconv.FormatInt(number, 10)
		if !strings.Contains(created.Body, `<code id="sentry-dsn" class="account-secret">`+dsn+`</code>`) || !strings.Contains(created.Body, `data-copy="#sentry-dsn"`) {
			t.Errorf("the DSN %s is not in its box: %s", dsn, created.Body)
		}
		for _, snippet := range []string{`dsn: "` + dsn + `"`, `dsn="` + dsn + `"`, `Dsn:              "` + dsn + `"`, `options.setDsn("` + dsn + `")`} {
			if !strings.Contains(created.Body, snippet) {
				t.Errorf("no snippet with %s", snippet)
			}
		}
		env := "{}\n" + `{"type":"event"}` + "\n" + `{"message":"sent with the DSN shown"}` + "\n"
		if r := s.Do(apitest.Request{Method: "POST", Path: "/api/" + strconv.FormatInt(number, 10) + "/envelope/?sentry_key=" + key, Body: env}); r.Status != http.StatusOK {
			t.Fatalf("the DSN shown does not report: %d %s", r.Status, r.Body)
		}

		list := admin.get(keysPath).expect(t, http.StatusOK, "checkout production", `data-confirm="Revoke the key checkout production?`,
			"already uses a Sentry SDK", "docs/sentry.md")
		if strings.Contains(list.Body, "sentry-dsn") {
			t.Errorf("the keys page shows a DSN again")
		}
		secret := key[strings.LastIndexByte(key, '_')+1:]
		if strings.Contains(list.Body, secret) {
			t.Fatalf("the keys page shows the secret again")
		}
		if !strings.Contains(list.Body, key[:len(key)-len(secret)]+"…") {
			t.Errorf("the keys page lacks the key's public start %q", key[:len(key)-len(secret)])
		}
		if strings.Contains(list.Body, "<td>never</td>") {
			t.Errorf("a used key shows as never used")
		}
		r := s.Do(apitest.Request{Method: "GET", Path: "/v1" + keysPath, Token: w.Admin.Token}).Expect(t, http.StatusOK, "")
		keyID := r.JSON(t)["data"].([]any)[0].(map[string]any)["id"].(string)

		// Lower roles read but cannot create or revoke; other organizations
		// see nothing.
		for _, who := range []apitest.Actor{w.Viewer, w.Member} {
			b := newBrowser(t, s)
			b.signIn(who.Email)
			p := b.get(keysPath).expect(t, http.StatusOK, "checkout production")
			if strings.Contains(p.Body, "/revoke") || strings.Contains(p.Body, `action="`+keysPath+`"`) {
				t.Errorf("%s is offered admin actions on keys", who.Email)
			}
			b.post(keysPath, url.Values{"name": {"forced"}}).expect(t, http.StatusForbidden, "forbidden")
			b.post("/keys/"+keyID+"/revoke", url.Values{}).expect(t, http.StatusForbidden, "forbidden")
		}
		out := newBrowser(t, s)
		out.signIn(w.Outsider.Email)
		out.get(keysPath).expect(t, http.StatusNotFound)
		out.post("/keys/"+keyID+"/revoke", url.Values{}).expect(t, http.StatusNotFound)
		admin.get("/projects/"+w.OtherProjectID+"/keys").expect(t, http.StatusNotFound)
		if n := len(s.Do(apitest.Request{Method: "GET", Path: "/v1" + keysPath, Token: w.Admin.Token}).Expect(t, http.StatusOK, "").JSON(t)["data"].([]any)); n != 1 {
			t.Fatalf("%d keys after refused attempts, want 1", n)
		}
		if accountIngest(t, s, key) != http.StatusAccepted {
			t.Fatalf("a refused revoke revoked the key")
		}

		// Revoking stops ingestion at once.
		if loc := admin.post("/keys/"+keyID+"/revoke", url.Values{}).expect(t, http.StatusSeeOther).Header.Get("Location"); loc != keysPath {
			t.Fatalf("Location after revoking = %q", loc)
		}
		if st := accountIngest(t, s, key); st != http.StatusUnauthorized {
			t.Fatalf("ingest with a revoked key = %d, want 401", st)
		}
		rev := admin.get(keysPath).expect(t, http.StatusOK, `<span class="badge">revoked</span>`)
		if strings.Contains(rev.Body, "/keys/"+keyID+"/revoke") {
			t.Errorf("a revoked key is offered for revoking")
		}
	})
}

// TestKeyOriginsForm: the keys page shows each key's allowed origins and
// lets admins set them, at creation and afterwards; a malformed origin is
// shown next to the form (422) and changes nothing; an empty field allows
// every origin again; lower roles cannot set them.
func TestKeyOriginsForm(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		keysPath := "/projects/" + w.ProjectID + "/keys"
		admin := newBrowser(t, s)
		admin.signIn(w.Admin.Email)
		admin.get(keysPath).expect(t, http.StatusOK, `<label for="key-origins">`)
		admin.post(keysPath, url.Values{"name": {"web"}, "allowed_origins": {"https://app.example.com, not-an-origin"}}).
			expect(t, http.StatusUnprocessableEntity, `role="alert"`, "Allowed origins (entry 2): &#34;not-an-origin&#34; is not an origin", `value="https://app.example.com, not-an-origin"`)
		admin.post(keysPath, url.Values{"name": {"web"}, "allowed_origins": {"https://App.example.com https://*.example.org"}}).expect(t, http.StatusCreated)
		r := s.Do(apitest.Request{Method: "GET", Path: "/v1" + keysPath, Token: w.Admin.Token}).Expect(t, http.StatusOK, "")
		keyID := r.JSON(t)["data"].([]any)[0].(map[string]any)["id"].(string)
		admin.get(keysPath).expect(t, http.StatusOK, `action="/keys/`+keyID+`/origins"`, `value="https://app.example.com https://*.example.org"`)

		admin.post("/keys/"+keyID+"/origins", url.Values{"allowed_origins": {"ftp:/nope"}}).expect(t, http.StatusUnprocessableEntity, `role="alert"`, "Key web: Allowed origins (entry 1): &#34;ftp:/nope&#34; is not an origin")
		admin.post("/keys/"+keyID+"/origins", url.Values{"allowed_origins": {"https://shop.example.com"}}).expect(t, http.StatusSeeOther)
		admin.get(keysPath).expect(t, http.StatusOK, `value="https://shop.example.com"`)
		viewer := newBrowser(t, s)
		viewer.signIn(w.Viewer.Email)
		page := viewer.get(keysPath).expect(t, http.StatusOK, "<code>https://shop.example.com</code>")
		if strings.Contains(page.Body, "/origins\"") {
			t.Error("a viewer is offered the origins form")
		}
		viewer.post("/keys/"+keyID+"/origins", url.Values{"allowed_origins": {"*"}}).expect(t, http.StatusForbidden, "forbidden")
		admin.post("/keys/"+keyID+"/origins", url.Values{"allowed_origins": {""}}).expect(t, http.StatusSeeOther)
		admin.get(keysPath).expect(t, http.StatusOK, `value="*"`)

		// A key of no origin (the API's []) shows "none", and saving the
		// field as shown keeps it: a blank field would open it to every
		// origin.
		s.Do(apitest.Request{Method: "PATCH", Path: "/v1/keys/" + keyID, Token: w.Admin.Token, Body: map[string]any{"allowed_origins": []string{}}}).Expect(t, http.StatusOK, "")
		admin.get(keysPath).expect(t, http.StatusOK, `value="none"`, "<code>none</code>")
		admin.post("/keys/"+keyID+"/origins", url.Values{"allowed_origins": {"none"}}).expect(t, http.StatusSeeOther)
		for _, k := range s.Do(apitest.Request{Method: "GET", Path: "/v1" + keysPath, Token: w.Admin.Token}).Expect(t, http.StatusOK, "").JSON(t)["data"].([]any) {
			if k := k.(map[string]any); k["id"] == keyID {
				if l, ok := k["allowed_origins"].([]any); !ok || len(l) != 0 {
					t.Fatalf("saved as shown, allowed_origins = %v, want []", k["allowed_origins"])
				}
			}
		}
		admin.post(keysPath, url.Values{"name": {"locked"}, "allowed_origins": {"None"}}).expect(t, http.StatusCreated)
	})
}
