package httpapi_test

import (
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
)

// keyRe is the credential format: svc_live_<key_id without key_>_<secret>.
var keyRe = regexp.MustCompile(`^svc_live_([0-9a-hjkmnp-tv-z]{26})_([a-z2-7]+)$`)

func TestCreateKey(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		r := s.Do(apitest.Request{Method: "POST", Path: "/v1/projects/" + w.ProjectID + "/keys", Token: w.Admin.Token,
			Body: map[string]any{"name": " ci ", "secret": "mine", "project_id": w.OtherProjectID}}).Expect(t, http.StatusCreated, "")
		k := r.JSON(t)
		kid, _ := k["id"].(string)
		if !strings.HasPrefix(kid, "key_") || k["project_id"] != w.ProjectID || k["name"] != "ci" {
			t.Errorf("key = %v, want key_… named ci of %s", k, w.ProjectID)
		}
		if v, _ := k["created_at"].(string); !apiTimeRe.MatchString(v) {
			t.Errorf("created_at = %v, want a timestamp", k["created_at"])
		}
		for _, f := range []string{"last_used_at", "revoked_at"} {
			if v, present := k[f]; !present || v != nil {
				t.Errorf("%s = %v (present %v), want null", f, v, present)
			}
		}
		cred := r.Str(t, "key")
		m := keyRe.FindStringSubmatch(cred)
		if m == nil || "key_"+m[1] != kid || len(m[2]) < 43 {
			t.Fatalf("key = %q, want svc_live_%s_<secret of 32+ random bytes>", cred, strings.TrimPrefix(kid, "key_"))
		}
		// The DSN carries the key, the server's base URL and the project's
		// number, shown only in this answer.
		num := s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.ProjectID, Token: w.Admin.Token}).Expect(t, http.StatusOK, "").JSON(t)["number"]
		if dsn, want := r.Str(t, "dsn"), "http://"+cred+"@"+strings.TrimPrefix(s.URL, "http://")+"/"+strconv.Itoa(int(num.(float64))); dsn != want {
			t.Errorf("dsn = %q, want %q", dsn, want)
		}
		// Two keys never share a secret.
		_, cred2 := s.CreateKey(t, w.Owner.Token, w.ProjectID)
		if m2 := keyRe.FindStringSubmatch(cred2); m2 == nil || m2[2] == m[2] {
			t.Errorf("second key = %q, want a different secret from %q", cred2, cred)
		}

		for _, c := range []struct {
			name string
			body any
		}{
			{"empty", map[string]any{"name": ""}},
			{"blank", map[string]any{"name": "  "}},
			{"missing", map[string]any{}},
			{"too long", map[string]any{"name": strings.Repeat("k", 101)}},
		} {
			r := s.Do(apitest.Request{Method: "POST", Path: "/v1/projects/" + w.ProjectID + "/keys", Token: w.Admin.Token, Body: c.body}).
				Expect(t, http.StatusUnprocessableEntity, "validation-failed")
			if d := r.Str(t, "detail"); !namesField(d, "name") {
				t.Errorf("%s name: detail = %q, want it to name name", c.name, d)
			}
		}
		s.Do(apitest.Request{Method: "POST", Path: "/v1/projects/" + w.ProjectID + "/keys", Token: w.Admin.Token, Body: `{"name"`}).
			Expect(t, http.StatusBadRequest, "malformed-body")
	})
}

func TestListAndRevokeKeys(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		first, cred1 := s.CreateKey(t, w.Admin.Token, w.ProjectID)
		second, cred2 := s.CreateKey(t, w.Admin.Token, w.ProjectID)
		otherKey, _ := s.CreateKey(t, w.Outsider.Token, w.OtherProjectID)

		list := s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.ProjectID + "/keys", Token: w.Viewer.Token}).Expect(t, http.StatusOK, "")
		for _, secret := range []string{cred1, cred2, keyRe.FindStringSubmatch(cred1)[2]} {
			if strings.Contains(string(list.Body), secret) {
				t.Fatalf("key list shows a secret: %s", list.Body)
			}
		}
		page := list.JSON(t)
		data := page["data"].([]any)
		if len(data) != 2 || page["next_cursor"] != nil {
			t.Fatalf("keys = %v, want two on one page", page)
		}
		for i, want := range []string{second, first} { // newest first
			k := data[i].(map[string]any)
			if k["id"] != want || k["project_id"] != w.ProjectID || k["name"] != "ci" {
				t.Errorf("keys[%d] = %v, want %s", i, k, want)
			}
			if _, has := k["key"]; has {
				t.Errorf("keys[%d] has a key field: %v", i, k)
			}
			if _, has := k["dsn"]; has {
				t.Errorf("keys[%d] has a dsn field: %v", i, k)
			}
			if v, present := k["last_used_at"]; !present || v != nil {
				t.Errorf("keys[%d].last_used_at = %v, want null", i, v)
			}
			if v, present := k["revoked_at"]; !present || v != nil {
				t.Errorf("keys[%d].revoked_at = %v, want null", i, v)
			}
		}
		ids, pages := pageIDs(t, s, w.Viewer.Token, "/v1/projects/"+w.ProjectID+"/keys", "1")
		if len(ids) != 2 || pages != 2 {
			t.Errorf("paging by 1: %v in %d pages, want 2 in 2", ids, pages)
		}

		// Revoking: 204, then revoked_at is set; revoking again is still 204
		// and keeps the first time.
		s.Do(apitest.Request{Method: "DELETE", Path: "/v1/keys/" + first, Token: w.Member.Token}).Expect(t, http.StatusForbidden, "forbidden")
		s.Do(apitest.Request{Method: "DELETE", Path: "/v1/keys/" + first, Token: w.Admin.Token}).Expect(t, http.StatusNoContent, "")
		revokedAt := keyField(t, s, w, first, "revoked_at")
		if v, _ := revokedAt.(string); !apiTimeRe.MatchString(v) {
			t.Fatalf("revoked_at = %v, want a timestamp", revokedAt)
		}
		if v := keyField(t, s, w, second, "revoked_at"); v != nil {
			t.Errorf("the other key's revoked_at = %v, want null", v)
		}
		s.Do(apitest.Request{Method: "DELETE", Path: "/v1/keys/" + first, Token: w.Owner.Token}).Expect(t, http.StatusNoContent, "")
		if again := keyField(t, s, w, first, "revoked_at"); again != revokedAt {
			t.Errorf("revoked_at after a second revoke = %v, want the first time %v", again, revokedAt)
		}
		// A revoked key is still listed.
		if ids, _ := pageIDs(t, s, w.Viewer.Token, "/v1/projects/"+w.ProjectID+"/keys", "50"); len(ids) != 2 {
			t.Errorf("keys after revoke = %v, want both", ids)
		}
		// Another organization's key, or no key, is not found.
		s.Do(apitest.Request{Method: "DELETE", Path: "/v1/keys/" + otherKey, Token: w.Owner.Token}).Expect(t, http.StatusNotFound, "not-found")
		s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.OtherProjectID + "/keys", Token: w.Owner.Token}).Expect(t, http.StatusNotFound, "not-found")
		s.Do(apitest.Request{Method: "DELETE", Path: "/v1/keys/key_nope", Token: w.Owner.Token}).Expect(t, http.StatusNotFound, "not-found")
		// The revoke left the other organization's key alone.
		list2 := s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.OtherProjectID + "/keys", Token: w.Outsider.Token}).Expect(t, http.StatusOK, "").JSON(t)
		if k := list2["data"].([]any)[0].(map[string]any); k["revoked_at"] != nil {
			t.Errorf("other org's key = %v, want it not revoked", k)
		}
	})
}

func keyField(t *testing.T, s *apitest.Server, w apitest.World, keyID, field string) any {
	t.Helper()
	page := s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.ProjectID + "/keys?limit=100", Token: w.Viewer.Token}).Expect(t, http.StatusOK, "").JSON(t)
	for _, v := range page["data"].([]any) {
		if k := v.(map[string]any); k["id"] == keyID {
			return k[field]
		}
	}
	t.Fatalf("key %s is not listed", keyID)
	return nil
}

// TestAPIKeyIsNotASessionToken: a project API key, live or revoked, is the
// wrong kind of credential for management endpoints.
func TestAPIKeyIsNotASessionToken(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		kid, cred := s.CreateKey(t, w.Owner.Token, w.ProjectID)
		check := func() {
			t.Helper()
			for _, r := range []apitest.Request{
				{Method: "GET", Path: "/v1/orgs"},
				{Method: "GET", Path: "/v1/projects/" + w.ProjectID},
				{Method: "GET", Path: "/v1/projects/" + w.ProjectID + "/keys"},
				{Method: "POST", Path: "/v1/projects/" + w.ProjectID + "/keys", Body: map[string]any{"name": "x"}},
				{Method: "DELETE", Path: "/v1/keys/" + kid},
				{Method: "GET", Path: "/v1/auth/session"},
			} {
				r.Token = cred
				res := s.Do(r).Expect(t, http.StatusUnauthorized, "unauthorized")
				if d := res.Str(t, "detail"); !strings.Contains(d, "API key") {
					t.Errorf("%s %s: detail = %q, want it to say API keys are the wrong credential", r.Method, r.Path, d)
				}
			}
			if v := keyField(t, s, w, kid, "last_used_at"); v != nil {
				t.Errorf("last_used_at = %v after management requests, want null", v)
			}
		}
		check()
		s.Do(apitest.Request{Method: "DELETE", Path: "/v1/keys/" + kid, Token: w.Admin.Token}).Expect(t, http.StatusNoContent, "")
		check()
	})
}
