package httpapi_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/secret"
	"github.com/errata-dev/errata/internal/store"
)

func TestCreateAndListInvitations(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		r := s.Do(apitest.Request{Method: "POST", Path: "/v1/orgs/" + w.OrgID + "/invitations", Token: w.Admin.Token,
			Body: map[string]any{"email": "New@Example.com", "role": "admin", "message": "ignored"}}).Expect(t, http.StatusCreated, "")
		inv := r.JSON(t)
		tok := r.Str(t, "token")
		if !strings.HasPrefix(inv["id"].(string), "inv_") || inv["organization_id"] != w.OrgID || inv["email"] != "new@example.com" ||
			inv["role"] != "admin" || inv["status"] != "pending" || tok == "" {
			t.Errorf("invitation = %v, want a pending admin invitation of new@example.com with a token", inv)
		}
		if au, _ := url.Parse(r.Str(t, "accept_url")); au == nil || au.Query().Get("token") != tok || !strings.HasPrefix(au.String(), s.Config.AppURL) {
			t.Errorf("accept_url = %q, want a link under %s carrying the token", r.Str(t, "accept_url"), s.Config.AppURL)
		}
		created, err1 := time.Parse(time.RFC3339, inv["created_at"].(string))
		expires, err2 := time.Parse(time.RFC3339, inv["expires_at"].(string))
		if err1 != nil || err2 != nil || expires.Sub(created) != 7*24*time.Hour || !apiTimeRe.MatchString(inv["expires_at"].(string)) {
			t.Errorf("created_at %v, expires_at %v: want expiry seven days after creation", inv["created_at"], inv["expires_at"])
		}
		// The role defaults to member.
		def := s.Do(apitest.Request{Method: "POST", Path: "/v1/orgs/" + w.OrgID + "/invitations", Token: w.Owner.Token, Body: map[string]any{"email": "d@example.com"}}).
			Expect(t, http.StatusCreated, "").JSON(t)
		if def["role"] != "member" {
			t.Errorf("role without one = %v, want member", def["role"])
		}
		// Lists never show the token, to any role.
		for _, a := range []apitest.Actor{w.Viewer, w.Owner} {
			page := s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs/" + w.OrgID + "/invitations", Token: a.Token}).Expect(t, http.StatusOK, "")
			if strings.Contains(string(page.Body), tok) || strings.Contains(string(page.Body), "token") || strings.Contains(string(page.Body), "accept_url") {
				t.Errorf("invitation list shows a token: %s", page.Body)
			}
			data := page.JSON(t)["data"].([]any)
			// The world's four accepted invitations, then these two, newest first.
			if len(data) != 6 || data[0].(map[string]any)["id"] != def["id"] || data[1].(map[string]any)["id"] != inv["id"] {
				t.Errorf("invitations = %v, want six, the two new ones first", data)
			}
		}
		ids, pages := pageIDs(t, s, w.Owner.Token, "/v1/orgs/"+w.OrgID+"/invitations", "1")
		if len(ids) != 6 || pages != 6 {
			t.Errorf("paging by 1: %v in %d pages, want 6 in 6", ids, pages)
		}
	})
}

func TestInvitationRules(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		invite := func(a apitest.Actor, body map[string]any, status int, code string) *apitest.Response {
			t.Helper()
			return s.Do(apitest.Request{Method: "POST", Path: "/v1/orgs/" + w.OrgID + "/invitations", Token: a.Token, Body: body}).Expect(t, status, code)
		}
		// Inviting an owner takes an owner.
		invite(w.Admin, map[string]any{"email": "boss@example.com", "role": "owner"}, http.StatusForbidden, "forbidden")
		invite(w.Owner, map[string]any{"email": "boss@example.com", "role": "owner"}, http.StatusCreated, "")
		// Members (any case of their address) cannot be invited again.
		for _, email := range []string{w.Viewer.Email, "ADMIN@example.com", w.Owner.Email} {
			invite(w.Admin, map[string]any{"email": email, "role": "member"}, http.StatusConflict, "already-member")
		}
		// A user of another organization can be.
		invite(w.Admin, map[string]any{"email": w.Outsider.Email, "role": "viewer"}, http.StatusCreated, "")
		for _, c := range []struct {
			body  map[string]any
			field string
		}{
			{map[string]any{"email": "not an address", "role": "member"}, "email"},
			{map[string]any{"email": "", "role": "member"}, "email"},
			{map[string]any{"email": "Ann <ann@example.com>", "role": "member"}, "email"},
			{map[string]any{"email": strings.Repeat("a", 250) + "@example.com"}, "email"},
			{map[string]any{"role": "member"}, "email"},
			{map[string]any{"email": "ok@example.com", "role": "king"}, "role"},
		} {
			r := invite(w.Owner, c.body, http.StatusUnprocessableEntity, "validation-failed")
			if d := r.Str(t, "detail"); !namesField(d, c.field) {
				t.Errorf("invite %v: detail = %q, want it to name %s", c.body, d, c.field)
			}
		}
	})
}

// accept accepts token as a.
func accept(s *apitest.Server, a apitest.Actor, token any) *apitest.Response {
	return s.Do(apitest.Request{Method: "POST", Path: "/v1/invitations/accept", Token: a.Token, Body: map[string]any{"token": token}})
}

func TestAcceptInvitation(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		invID, tok := s.Invite(t, w.Admin.Token, w.OrgID, w.Outsider.Email, "member")
		m := accept(s, w.Outsider, tok).Expect(t, http.StatusOK, "").JSON(t)
		if !strings.HasPrefix(m["id"].(string), "mem_") || m["organization_id"] != w.OrgID || m["user_id"] != w.Outsider.UserID ||
			m["role"] != "member" || m["email"] != w.Outsider.Email || m["name"] != "User "+w.Outsider.Email {
			t.Errorf("member = %v, want the outsider as member of %s", m, w.OrgID)
		}
		if got := roleOf(t, s, w, m["id"].(string)); got != "member" {
			t.Errorf("listed role = %q, want member", got)
		}
		s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.ProjectID, Token: w.Outsider.Token}).Expect(t, http.StatusOK, "")
		if st := invitationStatus(t, s, w, invID); st != "accepted" {
			t.Errorf("status after accept = %q, want accepted", st)
		}
		// A used token cannot be used again, and the invitation cannot be revoked.
		accept(s, w.Outsider, tok).Expect(t, http.StatusUnprocessableEntity, "invitation-invalid")
		s.Do(apitest.Request{Method: "DELETE", Path: "/v1/invitations/" + invID, Token: w.Owner.Token}).Expect(t, http.StatusConflict, "conflict")

		// Someone already a member cannot accept a second invitation.
		_, tok2 := s.Invite(t, w.Owner.Token, w.OrgID, "someone@example.com", "admin")
		accept(s, w.Viewer, tok2).Expect(t, http.StatusConflict, "already-member")
		if got := roleOf(t, s, w, w.Viewer.MemberID); got != "viewer" {
			t.Errorf("viewer's role after refused accept = %q, want viewer", got)
		}

		for _, bad := range []any{"not-a-token", strings.Repeat("x", 64)} {
			r := accept(s, w.Outsider, bad).Expect(t, http.StatusUnprocessableEntity, "invitation-invalid")
			if d := r.Str(t, "detail"); !strings.HasPrefix(d, "token: ") {
				t.Errorf("unknown token: detail = %q, want it to name token, the field sent", d)
			}
		}
		r := accept(s, w.Outsider, "").Expect(t, http.StatusUnprocessableEntity, "validation-failed")
		if d := r.Str(t, "detail"); !namesField(d, "token") {
			t.Errorf("empty token: detail = %q, want it to name token", d)
		}
		s.Do(apitest.Request{Method: "POST", Path: "/v1/invitations/accept", Token: w.Outsider.Token, Body: `{"token": `}).Expect(t, http.StatusBadRequest, "malformed-body")
		s.Do(apitest.Request{Method: "POST", Path: "/v1/invitations/accept", Body: map[string]any{"token": tok2}}).Expect(t, http.StatusUnauthorized, "unauthorized")
	})
}

func invitationStatus(t *testing.T, s *apitest.Server, w apitest.World, invID string) string {
	t.Helper()
	page := s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs/" + w.OrgID + "/invitations?limit=100", Token: w.Owner.Token}).Expect(t, http.StatusOK, "").JSON(t)
	for _, v := range page["data"].([]any) {
		if i := v.(map[string]any); i["id"] == invID {
			return i["status"].(string)
		}
	}
	t.Fatalf("invitation %s is not listed", invID)
	return ""
}

func TestRevokeInvitation(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		invID, tok := s.Invite(t, w.Owner.Token, w.OrgID, "later@example.com", "viewer")
		s.Do(apitest.Request{Method: "DELETE", Path: "/v1/invitations/" + invID, Token: w.Member.Token}).Expect(t, http.StatusForbidden, "forbidden")
		s.Do(apitest.Request{Method: "DELETE", Path: "/v1/invitations/" + invID, Token: w.Admin.Token}).Expect(t, http.StatusNoContent, "")
		if st := invitationStatus(t, s, w, invID); st != "revoked" {
			t.Errorf("status after revoke = %q, want revoked", st)
		}
		s.Do(apitest.Request{Method: "DELETE", Path: "/v1/invitations/" + invID, Token: w.Admin.Token}).Expect(t, http.StatusConflict, "conflict")
		accept(s, w.Outsider, tok).Expect(t, http.StatusUnprocessableEntity, "invitation-invalid")
		body := map[string]any{"email": "later@example.com", "password": apitest.Password, "name": "Later", "invitation_token": tok}
		s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/sign-up/email", Body: body}).Expect(t, http.StatusUnprocessableEntity, "invitation-invalid")
		// The failed sign-up left no account behind.
		s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/sign-in/email", Body: map[string]any{"email": "later@example.com", "password": apitest.Password}}).
			Expect(t, http.StatusUnauthorized, "invalid-credentials")
	})
}

func TestExpiredInvitation(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		// An invitation created eight days ago, written as Invite would have.
		tok := secret.NewToken()
		then := time.Now().UTC().Add(-8 * 24 * time.Hour).Truncate(time.Millisecond)
		inv := store.Invitation{ID: id.NewAt(id.Invitation, then), OrgID: w.OrgID, Email: "slow@example.com", Role: "member", TokenHash: secret.Hash(tok),
			Status: store.InvitationPending, InvitedBy: w.Owner.UserID, ExpiresAt: then.Add(7 * 24 * time.Hour), CreatedAt: then, UpdatedAt: then}
		if err := s.App.DB.Write().CreateInvitation(context.Background(), inv); err != nil {
			t.Fatalf("create invitation: %v", err)
		}
		if st := invitationStatus(t, s, w, inv.ID); st != "expired" {
			t.Errorf("status = %q, want expired", st)
		}
		r := accept(s, w.Outsider, tok).Expect(t, http.StatusUnprocessableEntity, "invitation-invalid")
		if d := r.Str(t, "detail"); !strings.Contains(d, "expired") {
			t.Errorf("detail = %q, want it to say the invitation expired", d)
		}
		body := map[string]any{"email": "slow@example.com", "password": apitest.Password, "name": "Slow", "invitation_token": tok}
		s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/sign-up/email", Body: body}).Expect(t, http.StatusUnprocessableEntity, "invitation-invalid")
	})
}

func TestSignUpWithInvitation(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		for _, role := range roleOrder {
			email := newEmail("signup-" + role)
			invID, tok := s.Invite(t, w.Owner.Token, w.OrgID, email, role)
			r := s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/sign-up/email", Body: map[string]any{"email": email, "password": apitest.Password, "name": "N", "invitation_token": tok}}).
				Expect(t, http.StatusOK, "")
			newTok := r.Str(t, "token")
			user := r.JSON(t)["user"].(map[string]any)
			orgs := s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs", Token: newTok}).Expect(t, http.StatusOK, "").JSON(t)["data"].([]any)
			if len(orgs) != 1 || orgs[0].(map[string]any)["id"] != w.OrgID {
				t.Errorf("%s: orgs of the new user = %v, want %s", role, orgs, w.OrgID)
			}
			mid := s.MemberID(t, newTok, w.OrgID, user["id"].(string))
			if got := roleOf(t, s, w, mid); got != role {
				t.Errorf("role after sign-up = %q, want %s", got, role)
			}
			if st := invitationStatus(t, s, w, invID); st != "accepted" {
				t.Errorf("%s: status = %q, want accepted", role, st)
			}
			// The token is spent: a second sign-up with it fails.
			again := map[string]any{"email": newEmail("again"), "password": apitest.Password, "name": "N", "invitation_token": tok}
			s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/sign-up/email", Body: again}).Expect(t, http.StatusUnprocessableEntity, "invitation-invalid")
		}
	})
}
