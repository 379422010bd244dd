package httpapi_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/httpapi"
	"github.com/errata-dev/errata/internal/store"
)

// tokenRe is the credential format: errata_pat_<id without pat_>_<secret>.
var tokenRe = regexp.MustCompile(`^errata_pat_([0-9a-hjkmnp-tv-z]{26})_([a-z2-7]{43,})$`)

// createToken makes a personal API token with scopes and returns its id and credential.
func createToken(t *testing.T, s *apitest.Server, session string, scopes ...string) (string, string) {
	t.Helper()
	r := s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/tokens", Token: session, Body: map[string]any{"name": "ci", "scopes": scopes}}).
		Expect(t, http.StatusCreated, "")
	return r.Str(t, "id"), r.Str(t, "token")
}

func TestAPITokens(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		r := s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/tokens", Token: w.Member.Token,
			Body: map[string]any{"name": " deploy ", "scopes": []string{"project:read", "event:read", "project:read"}}}).Expect(t, http.StatusCreated, "")
		tok := r.JSON(t)
		tid, _ := tok["id"].(string)
		m := tokenRe.FindStringSubmatch(r.Str(t, "token"))
		if m == nil || "pat_"+m[1] != tid {
			t.Fatalf("token = %q (id %q), want errata_pat_<id without pat_>_<secret>", r.Str(t, "token"), tid)
		}
		if tok["name"] != "deploy" || tok["last_used_at"] != nil || tok["expires_at"] != nil {
			t.Errorf("token = %v, want name deploy, never used, never expiring", tok)
		}
		if sc, _ := tok["scopes"].([]any); len(sc) != 2 {
			t.Errorf("scopes = %v, want the two distinct scopes", tok["scopes"])
		}
		cred := r.Str(t, "token")

		// It acts as its user within its scopes.
		s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.ProjectID, Token: cred}).Expect(t, http.StatusOK, "")
		s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.ProjectID + "/groups", Token: cred}).Expect(t, http.StatusOK, "")
		s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.OtherProjectID, Token: cred}).Expect(t, http.StatusNotFound, "not-found")
		for _, c := range []struct{ method, path string }{
			{"GET", "/v1/orgs/" + w.OrgID},                    // org:read
			{"GET", "/v1/orgs/" + w.OrgID + "/members"},       // member:read
			{"PATCH", "/v1/projects/" + w.ProjectID},          // project:write
			{"POST", "/v1/projects/" + w.ProjectID + "/keys"}, // project:write
			{"GET", "/v1/auth/tokens"},                        // sessions only
			{"POST", "/v1/auth/tokens"},
		} {
			r := s.Do(apitest.Request{Method: c.method, Path: c.path, Token: cred, Body: map[string]any{"name": "x", "scopes": []string{"org:read"}}}).
				Expect(t, http.StatusForbidden, "insufficient-scope")
			_ = r
		}
		// Within the user's roles: a member's project:write token cannot do what members cannot.
		_, writer := createToken(t, s, w.Member.Token, "project:write", "project:read")
		s.Do(apitest.Request{Method: "POST", Path: "/v1/projects/" + w.ProjectID + "/keys", Token: writer, Body: map[string]any{"name": "k"}}).
			Expect(t, http.StatusForbidden, "forbidden")
		_, adminWriter := createToken(t, s, w.Admin.Token, "project:write")
		s.Do(apitest.Request{Method: "POST", Path: "/v1/projects/" + w.ProjectID + "/keys", Token: adminWriter, Body: map[string]any{"name": "k"}}).
			Expect(t, http.StatusCreated, "")

		// Listed with last_used_at, only to its owner.
		list := s.Do(apitest.Request{Method: "GET", Path: "/v1/auth/tokens", Token: w.Member.Token}).Expect(t, http.StatusOK, "").JSON(t)
		data, _ := list["data"].([]any)
		if len(data) != 2 {
			t.Fatalf("list = %v, want the member's two tokens", list)
		}
		found := false
		for _, d := range data {
			d := d.(map[string]any)
			if _, has := d["token"]; has {
				t.Errorf("listed token %v shows its credential", d)
			}
			if d["id"] == tid {
				found = true
				if v, _ := d["last_used_at"].(string); !apiTimeRe.MatchString(v) {
					t.Errorf("last_used_at = %v, want the time of its use", d["last_used_at"])
				}
			}
		}
		if !found {
			t.Errorf("list = %v, want %s", data, tid)
		}
		s.Do(apitest.Request{Method: "DELETE", Path: "/v1/auth/tokens/" + tid, Token: w.Admin.Token}).Expect(t, http.StatusNotFound, "not-found")
		s.Do(apitest.Request{Method: "DELETE", Path: "/v1/auth/tokens/" + tid, Token: w.Member.Token}).Expect(t, http.StatusNoContent, "")
		s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.ProjectID, Token: cred}).Expect(t, http.StatusUnauthorized, "unauthorized")
		// A wrong secret for a real id is unknown too.
		_, other := createToken(t, s, w.Member.Token, "project:read")
		bad := other[:len(other)-4] + "aaaa"
		s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.ProjectID, Token: bad}).Expect(t, http.StatusUnauthorized, "unauthorized")
	})
}

func TestAPITokenValidationAndExpiry(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		u := s.SignUp(t, "owner@example.com")
		for _, c := range []struct {
			field string
			body  any
		}{
			{"name", map[string]any{"name": "", "scopes": []string{"org:read"}}},
			{"scopes", map[string]any{"name": "a", "scopes": []string{}}},
			{"scopes[0]", map[string]any{"name": "a", "scopes": []string{"admin"}}},
			{"scopes", map[string]any{"name": "a"}},
			{"expires_at", map[string]any{"name": "a", "scopes": []string{"org:read"}, "expires_at": "2001-01-01T00:00:00Z"}},
			{"expires_at", map[string]any{"name": "a", "scopes": []string{"org:read"}, "expires_at": "soon"}},
		} {
			r := s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/tokens", Token: u.Token, Body: c.body}).Expect(t, http.StatusUnprocessableEntity, "validation-failed")
			if d := r.Str(t, "detail"); !namesField(d, c.field) {
				t.Errorf("%v: detail = %q, want it to name %s", c.body, d, c.field)
			}
		}
		exp := time.Now().Add(1500 * time.Millisecond).UTC().Format(time.RFC3339Nano)
		r := s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/tokens", Token: u.Token,
			Body: map[string]any{"name": "short", "scopes": []string{"org:read"}, "expires_at": exp}}).Expect(t, http.StatusCreated, "")
		if v, _ := r.JSON(t)["expires_at"].(string); !strings.HasPrefix(v, exp[:19]) {
			t.Errorf("expires_at = %q, want %q", v, exp)
		}
		cred := r.Str(t, "token")
		s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs", Token: cred}).Expect(t, http.StatusOK, "")
		time.Sleep(1600 * time.Millisecond)
		s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs", Token: cred}).Expect(t, http.StatusUnauthorized, "unauthorized")
		s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs", Token: "errata_pat_nonsense"}).Expect(t, http.StatusUnauthorized, "unauthorized")
	})
}

// TestEveryOperationHasATokenScope: every documented operation takes a
// token scope, except the session-only /v1/auth/* and the changes to
// organizations and members that tokens may not make (docs/security.md).
// A new route whose path names no known resource fails here until
// tokenscope.go maps it.
func TestEveryOperationHasATokenScope(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, store.SQLite)
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(s.Do(apitest.Request{Method: "GET", Path: "/v1/openapi.json"}).Expect(t, http.StatusOK, "").Body, &doc); err != nil {
		t.Fatal(err)
	}
	orgOrMember := regexp.MustCompile(`^/v1/(orgs(/\{org_id\}(/members|/invitations)?)?|members/\{member_id\}|invitations/\{invitation_id\}|invitations/accept)$`)
	for path, ops := range doc.Paths {
		for method := range ops {
			m := strings.ToUpper(method)
			if m != "GET" && m != "POST" && m != "PUT" && m != "PATCH" && m != "DELETE" {
				continue
			}
			got := httpapi.TokenScope(m, path)
			none := strings.HasPrefix(path, "/v1/auth/") || (m != "GET" && orgOrMember.MatchString(path)) || !strings.HasPrefix(path, "/v1/") || path == "/v1/ingest" || path == "/v1/logs"
			if none != (got == "") {
				t.Errorf("%s %s: token scope %q; want one unless the operation is session-only", m, path, got)
			}
		}
	}
	for _, c := range []struct{ method, path, want string }{
		{"GET", "/v1/projects/{project_id}/groups", "event:read"},
		{"PATCH", "/v1/groups/{group_id}", "event:write"},
		{"POST", "/v1/orgs/{org_id}/projects", "project:write"},
		{"GET", "/v1/orgs/{org_id}/members", "member:read"},
		{"GET", "/v1/releases/{release_id}", "project:read or project:releases"},
		{"GET", "/v1/auth/session", ""},
	} {
		if got := httpapi.TokenScope(c.method, c.path); got != c.want {
			t.Errorf("%s %s: %q, want %q", c.method, c.path, got, c.want)
		}
	}
}
