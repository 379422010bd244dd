package httpapi_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"sync"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
)

func auditLog(t *testing.T, s *apitest.Server, token, orgID, query string) []map[string]any {
	t.Helper()
	return items(t, s, token, "/v1/orgs/"+orgID+"/audit-log?limit=100"+query)
}

func actions(entries []map[string]any) map[string]int {
	m := map[string]int{}
	for _, e := range entries {
		m[e["action"].(string)]++
	}
	return m
}

// TestAuditLog: the changes of an organization and its members' sign-ins
// are in its audit log with their actor, target, address and user agent;
// admins and owners read it, filtered by action and actor and paged; no
// one else does.
func TestAuditLog(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		owner := w.Owner.Token
		s.Do(apitest.Request{Method: "PATCH", Path: "/v1/members/" + w.Viewer.MemberID, Token: owner, Body: map[string]any{"role": "member"}}).Expect(t, http.StatusOK, "")
		keyID, _ := s.CreateKey(t, owner, w.ProjectID)
		// Revoked three times, two of them at once: revoked once, one entry.
		var wg sync.WaitGroup
		statuses := make([]int, 2)
		for i := range statuses {
			wg.Go(func() {
				statuses[i] = s.Do(apitest.Request{Method: "DELETE", Path: "/v1/keys/" + keyID, Token: owner}).Status
			})
		}
		wg.Wait()
		if statuses[0] != http.StatusNoContent || statuses[1] != http.StatusNoContent {
			t.Fatalf("two revocations at once: %v, want 204 each", statuses)
		}
		s.Do(apitest.Request{Method: "DELETE", Path: "/v1/keys/" + keyID, Token: owner}).Expect(t, http.StatusNoContent, "")
		ch := s.Do(apitest.Request{Method: "POST", Path: "/v1/projects/" + w.ProjectID + "/channels", Token: w.Admin.Token,
			Body: map[string]any{"member_id": w.Admin.MemberID, "name": "mine", "type": "email"}}).Expect(t, http.StatusCreated, "").Str(t, "id")
		patchJSON(s, w.Admin.Token, "/v1/channels/"+ch, map[string]any{"name": "renamed", "filters": map[string]any{"min_severity": "medium", "environments": []string{"prod"}}}).Expect(t, http.StatusOK, "")
		s.Do(apitest.Request{Method: "DELETE", Path: "/v1/channels/" + ch, Token: w.Admin.Token}).Expect(t, http.StatusNoContent, "")
		patchJSON(s, owner, "/v1/orgs/"+w.OrgID, map[string]any{"name": "Acme Inc"}).Expect(t, http.StatusOK, "")
		// Settings of projects and keys too; a role set to what it was is
		// no change.
		patchJSON(s, owner, "/v1/projects/"+w.ProjectID, map[string]any{"name": "Shop", "slug": "shop-2"}).Expect(t, http.StatusOK, "")
		browserKey, _ := s.CreateKey(t, owner, w.ProjectID)
		patchJSON(s, owner, "/v1/keys/"+browserKey, map[string]any{"allowed_origins": []string{"https://shop.example.com"}}).Expect(t, http.StatusOK, "")
		patchJSON(s, owner, "/v1/keys/"+browserKey, map[string]any{"allowed_origins": []string{"https://shop.example.com"}}).Expect(t, http.StatusOK, "")
		s.Do(apitest.Request{Method: "PATCH", Path: "/v1/members/" + w.Viewer.MemberID, Token: owner, Body: map[string]any{"role": "member"}}).Expect(t, http.StatusOK, "")
		invID, _ := s.Invite(t, owner, w.OrgID, "new@example.com", "viewer")
		s.Do(apitest.Request{Method: "DELETE", Path: "/v1/invitations/" + invID, Token: owner}).Expect(t, http.StatusNoContent, "")
		signInWith(s, "member@example.com", "wrong password", "", "curl/8").Expect(t, http.StatusUnauthorized, "invalid-credentials")
		tok := signInWith(s, "member@example.com", apitest.Password, "", "curl/8").Expect(t, http.StatusOK, "").Str(t, "token")
		s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/sign-out", Token: tok}).Expect(t, http.StatusNoContent, "")
		doomed := s.CreateProject(t, owner, w.OrgID, "doomed")
		s.Do(apitest.Request{Method: "DELETE", Path: "/v1/projects/" + doomed, Token: owner}).Expect(t, http.StatusNoContent, "")
		pat := s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/tokens", Token: owner,
			Body: map[string]any{"name": "ci", "scopes": []string{"project:releases"}}}).Expect(t, http.StatusCreated, "").Str(t, "id")
		s.Do(apitest.Request{Method: "DELETE", Path: "/v1/auth/tokens/" + pat, Token: owner}).Expect(t, http.StatusNoContent, "")
		s.Do(apitest.Request{Method: "PUT", Path: "/v1/projects/" + w.ProjectID + "/grouping-rules", Token: owner,
			Body: map[string]any{"fingerprint": "error.type:LedgerError -> ledger", "stack_trace": ""}}).Expect(t, http.StatusOK, "")
		// A change made with an API token is its user's.
		writer := s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/tokens", Token: owner,
			Body: map[string]any{"name": "writer", "scopes": []string{"project:write"}}}).Expect(t, http.StatusCreated, "").Str(t, "token")
		viaToken := s.Do(apitest.Request{Method: "POST", Path: "/v1/projects/" + w.ProjectID + "/keys", Token: writer,
			Body: map[string]any{"name": "via token"}}).Expect(t, http.StatusCreated, "").Str(t, "id")

		all := auditLog(t, s, w.Admin.Token, w.OrgID, "")
		got := actions(all)
		for _, a := range []string{"member.role_changed", "api_key.created", "api_key.revoked", "channel.created", "channel.updated", "channel.deleted",
			"org.renamed", "invitation.created", "invitation.revoked", "invitation.accepted", "user.sign_in_failed", "user.signed_in", "session.ended", "project.deleted",
			"api_token.created", "api_token.revoked", "grouping_rules.changed", "project.renamed", "project.slug_changed"} {
			if got[a] == 0 {
				t.Errorf("no %s entry in %v", a, got)
			}
		}
		for i := 1; i < len(all); i++ {
			if all[i-1]["id"].(string) <= all[i]["id"].(string) {
				t.Fatalf("entries not newest first: %v then %v", all[i-1]["id"], all[i]["id"])
			}
		}
		role := auditLog(t, s, owner, w.OrgID, "&action=member.role_changed")
		if len(role) != 1 {
			t.Fatalf("action filter: %v", role)
		}
		e := role[0]
		actor := e["actor"].(map[string]any)
		data := e["data"].(map[string]any)
		if actor["user_id"] != w.Owner.UserID || actor["email"] != "owner@example.com" || e["target"] != w.Viewer.MemberID ||
			data["from"] != "viewer" || data["to"] != "member" || e["ip"] != "127.0.0.1" || e["user_agent"] == "" || e["created_at"] == nil {
			t.Fatalf("role change entry = %v", e)
		}
		if revoked := auditLog(t, s, owner, w.OrgID, "&action=api_key.revoked"); len(revoked) != 1 {
			t.Fatalf("api_key.revoked entries = %v, want one for the key revoked three times", revoked)
		}
		if keys := auditLog(t, s, owner, w.OrgID, "&action=api_key.updated"); len(keys) != 1 || keys[0]["target"] != browserKey {
			t.Fatalf("api_key.updated entries = %v, want one (the second PATCH changed nothing)", keys)
		} else if changes, _ := json.Marshal(keys[0]["data"].(map[string]any)["changes"]); string(changes) != `{"allowed_origins":{"from":["*"],"to":["https://shop.example.com"]}}` {
			t.Fatalf("api_key.updated changes = %s", changes)
		}
		// A channel's changed filters read as the channel object's.
		upd := auditLog(t, s, owner, w.OrgID, "&action=channel.updated")
		if len(upd) != 1 {
			t.Fatalf("channel.updated entries = %v", upd)
		}
		filters, _ := json.Marshal(upd[0]["data"].(map[string]any)["changes"].(map[string]any)["filters"])
		if want := `{"from":{"environments":[],"min_severity":"high","services":[]},"to":{"environments":["prod"],"min_severity":"medium","services":[]}}`; string(filters) != want {
			t.Errorf("channel.updated filters = %s, want %s", filters, want)
		}
		failed := auditLog(t, s, owner, w.OrgID, "&action=user.sign_in_failed")
		if len(failed) != 1 || failed[0]["user_agent"] != "curl/8" || failed[0]["actor"].(map[string]any)["email"] != "member@example.com" {
			t.Fatalf("failed sign-in entries = %v", failed)
		}
		byAdmin := auditLog(t, s, owner, w.OrgID, "&actor="+url.QueryEscape("ADMIN@example.com"))
		byAdminID := auditLog(t, s, owner, w.OrgID, "&actor="+w.Admin.UserID)
		if len(byAdmin) == 0 || len(byAdmin) != len(byAdminID) {
			t.Fatalf("actor filter: %d by email, %d by id", len(byAdmin), len(byAdminID))
		}
		for _, e := range byAdmin {
			if e["actor"].(map[string]any)["user_id"] != w.Admin.UserID {
				t.Fatalf("actor filter let through %v", e)
			}
		}
		var tokenEntry map[string]any
		for _, e := range auditLog(t, s, owner, w.OrgID, "&actor="+w.Owner.UserID) {
			if e["action"] == "api_key.created" && e["target"] == viaToken {
				tokenEntry = e
			}
		}
		if tokenEntry == nil || tokenEntry["actor"].(map[string]any)["email"] != "owner@example.com" {
			t.Fatalf("the key created with the owner's API token is not the owner's in the audit log: %v", tokenEntry)
		}
		pages := pageAll(t, s, owner, "/v1/orgs/"+w.OrgID+"/audit-log?limit=3", "")
		n := 0
		for _, p := range pages {
			n += len(p)
		}
		if n != len(all) {
			t.Fatalf("paging by 3 gave %d entries, want %d", n, len(all))
		}

		s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs/" + w.OrgID + "/audit-log", Token: w.Member.Token}).Expect(t, http.StatusForbidden, "forbidden")
		s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs/" + w.OrgID + "/audit-log", Token: w.Outsider.Token}).Expect(t, http.StatusNotFound, "not-found")
		for _, e := range auditLog(t, s, w.Outsider.Token, w.OtherOrgID, "") {
			if e["action"] == "member.role_changed" {
				t.Fatalf("another organization's entry leaked: %v", e)
			}
		}
	})
}
