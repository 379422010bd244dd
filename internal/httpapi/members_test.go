package httpapi_test

import (
	"net/http"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
)

func TestListMembers(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		page := s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs/" + w.OrgID + "/members", Token: w.Viewer.Token}).Expect(t, http.StatusOK, "").JSON(t)
		if page["next_cursor"] != nil {
			t.Errorf("next_cursor = %v, want null on the only page", page["next_cursor"])
		}
		want := map[string]apitest.Actor{"owner": w.Owner, "admin": w.Admin, "member": w.Member, "viewer": w.Viewer}
		var roles []string
		for _, v := range page["data"].([]any) {
			m := v.(map[string]any)
			roles = append(roles, m["role"].(string))
			a := want[m["role"].(string)]
			if m["id"] != a.MemberID || m["user_id"] != a.UserID || m["email"] != a.Email || m["name"] != "User "+a.Email || m["organization_id"] != w.OrgID {
				t.Errorf("member = %v, want %+v in %s", m, a, w.OrgID)
			}
			if ts, _ := m["created_at"].(string); !apiTimeRe.MatchString(ts) {
				t.Errorf("created_at = %v, want a timestamp", m["created_at"])
			}
		}
		sort.Strings(roles)
		if !reflect.DeepEqual(roles, []string{"admin", "member", "owner", "viewer"}) {
			t.Errorf("roles = %v, want one of each (the outsider left)", roles)
		}
		ids, pages := pageIDs(t, s, w.Viewer.Token, "/v1/orgs/"+w.OrgID+"/members", "3")
		if len(ids) != 4 || pages != 2 {
			t.Errorf("paging by 3: %v in %d pages, want 4 in 2", ids, pages)
		}
	})
}

// TestChangeRole walks the rules of who may give which role.
func TestChangeRole(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		setRole := func(actor apitest.Actor, memberID, role string, status int, code string) {
			t.Helper()
			r := s.Do(apitest.Request{Method: "PATCH", Path: "/v1/members/" + memberID, Token: actor.Token, Body: map[string]any{"role": role}}).Expect(t, status, code)
			if status == http.StatusOK {
				if m := r.JSON(t); m["role"] != role || m["id"] != memberID || m["organization_id"] != w.OrgID || m["email"] == "" {
					t.Errorf("answer = %v, want member %s with role %s", m, memberID, role)
				}
			}
		}
		target := s.AddMember(t, w.Owner.Token, w.OrgID, "target@example.com", "viewer")
		// An admin may move others between viewer, member and admin.
		for _, role := range []string{"member", "admin", "viewer", "viewer"} {
			setRole(w.Admin, target.MemberID, role, http.StatusOK, "")
		}
		if got := roleOf(t, s, w, target.MemberID); got != "viewer" {
			t.Errorf("stored role = %q, want viewer", got)
		}
		// Making or changing an owner takes an owner.
		setRole(w.Admin, target.MemberID, "owner", http.StatusForbidden, "forbidden")
		setRole(w.Admin, w.Admin.MemberID, "owner", http.StatusForbidden, "forbidden")
		setRole(w.Admin, w.Owner.MemberID, "admin", http.StatusForbidden, "forbidden")
		setRole(w.Member, target.MemberID, "member", http.StatusForbidden, "forbidden")
		setRole(w.Viewer, w.Viewer.MemberID, "admin", http.StatusForbidden, "forbidden")
		if got := roleOf(t, s, w, w.Admin.MemberID); got != "admin" {
			t.Errorf("admin's role after refused self-promotion = %q, want admin", got)
		}
		// Invalid roles name the field.
		for _, bad := range []any{"boss", "", "Owner", 3} {
			r := s.Do(apitest.Request{Method: "PATCH", Path: "/v1/members/" + target.MemberID, Token: w.Owner.Token, Body: map[string]any{"role": bad}}).
				Expect(t, http.StatusUnprocessableEntity, "validation-failed")
			if d := r.Str(t, "detail"); !namesField(d, "role") {
				t.Errorf("role %v: detail = %q, want it to name role", bad, d)
			}
		}
		// The last owner cannot be demoted, not even by themselves.
		setRole(w.Owner, w.Owner.MemberID, "admin", http.StatusConflict, "last-owner")
		setRole(w.Owner, w.Owner.MemberID, "owner", http.StatusOK, "")
		// An owner may promote; with two owners, one may step down.
		setRole(w.Owner, target.MemberID, "owner", http.StatusOK, "")
		setRole(w.Admin, target.MemberID, "viewer", http.StatusForbidden, "forbidden")
		setRole(w.Owner, w.Owner.MemberID, "admin", http.StatusOK, "")
		// The former owner is now an admin and cannot touch the owner.
		setRole(w.Owner, target.MemberID, "admin", http.StatusForbidden, "forbidden")
		setRole(target, target.MemberID, "member", http.StatusConflict, "last-owner")
		setRole(target, w.Owner.MemberID, "owner", http.StatusOK, "")
		setRole(w.Owner, target.MemberID, "viewer", http.StatusOK, "")
	})
}

func roleOf(t *testing.T, s *apitest.Server, w apitest.World, memberID string) string {
	t.Helper()
	page := s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs/" + w.OrgID + "/members?limit=100", Token: w.Owner.Token}).Expect(t, http.StatusOK, "").JSON(t)
	for _, v := range page["data"].([]any) {
		if m := v.(map[string]any); m["id"] == memberID {
			return m["role"].(string)
		}
	}
	return ""
}

// TestRemoveMember: anyone may leave; removing another takes an admin, and
// removing an owner takes an owner; the last owner cannot leave.
func TestRemoveMember(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		remove := func(actor apitest.Actor, memberID string, status int, code string) {
			t.Helper()
			s.Do(apitest.Request{Method: "DELETE", Path: "/v1/members/" + memberID, Token: actor.Token}).Expect(t, status, code)
		}
		extra := s.AddMember(t, w.Owner.Token, w.OrgID, "extra@example.com", "member")
		remove(w.Member, w.Viewer.MemberID, http.StatusForbidden, "forbidden")
		remove(w.Viewer, extra.MemberID, http.StatusForbidden, "forbidden")
		remove(w.Admin, w.Owner.MemberID, http.StatusForbidden, "forbidden")
		remove(w.Owner, w.Owner.MemberID, http.StatusConflict, "last-owner")

		// Leaving: a viewer and a member remove themselves.
		remove(w.Viewer, w.Viewer.MemberID, http.StatusNoContent, "")
		remove(w.Member, w.Member.MemberID, http.StatusNoContent, "")
		for _, a := range []apitest.Actor{w.Viewer, w.Member} {
			s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs/" + w.OrgID, Token: a.Token}).Expect(t, http.StatusNotFound, "not-found")
			remove(a, a.MemberID, http.StatusNotFound, "not-found")
		}
		// An admin removes another member; the email channel that sent the
		// organization's tickets to them stops.
		mailCh := s.Do(apitest.Request{Method: "POST", Path: "/v1/projects/" + w.ProjectID + "/channels", Token: w.Admin.Token,
			Body: map[string]any{"member_id": extra.MemberID, "name": "extra's mail", "type": "email"}}).Expect(t, http.StatusCreated, "").Str(t, "id")
		remove(w.Admin, extra.MemberID, http.StatusNoContent, "")
		if ch := s.Do(apitest.Request{Method: "GET", Path: "/v1/channels/" + mailCh, Token: w.Admin.Token}).Expect(t, http.StatusOK, "").JSON(t); ch["enabled"] != false {
			t.Errorf("the removed member's email channel = %v, want disabled", ch)
		}
		remove(w.Admin, extra.MemberID, http.StatusNotFound, "not-found")
		s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs/" + w.OrgID + "/projects", Token: extra.Token}).Expect(t, http.StatusNotFound, "not-found")

		// With a second owner, an owner may remove an owner, and may leave.
		second := s.AddMember(t, w.Owner.Token, w.OrgID, "second@example.com", "owner")
		remove(w.Admin, second.MemberID, http.StatusForbidden, "forbidden")
		remove(second, w.Owner.MemberID, http.StatusNoContent, "")
		remove(second, second.MemberID, http.StatusConflict, "last-owner")
		remove(second, w.Admin.MemberID, http.StatusNoContent, "")
		page := s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs/" + w.OrgID + "/members", Token: second.Token}).Expect(t, http.StatusOK, "").JSON(t)
		if data := page["data"].([]any); len(data) != 1 || data[0].(map[string]any)["id"] != second.MemberID {
			t.Errorf("members = %v, want the second owner alone", data)
		}
		// A member of two organizations leaves one and keeps the other.
		third := s.CreateOrg(t, second.Token, "Third")
		mid := join(t, s, second.Token, third, w.Outsider, "admin")
		remove(w.Outsider, mid, http.StatusNoContent, "")
		s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs/" + w.OtherOrgID, Token: w.Outsider.Token}).Expect(t, http.StatusOK, "")
		if !strings.HasPrefix(mid, "mem_") {
			t.Errorf("accepted member id = %q, want mem_…", mid)
		}
	})
}
