package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/config"
)

// TestEmailsNormalisedEverywhere: one address spelt in different ways is
// one account; look-alike addresses are refused with 422 naming email at
// sign-up, invitations and channels.
func TestEmailsNormalisedEverywhere(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		signUp := func(email string) *apitest.Response {
			return s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/sign-up/email", Body: map[string]any{"email": email, "password": apitest.Password, "name": "N"}})
		}
		u := signUp("  Jose\u0301@B\u00dcCHER.Example ").Expect(t, http.StatusOK, "").JSON(t)["user"].(map[string]any)
		if u["email"] != "jos\u00e9@xn--bcher-kva.example" {
			t.Fatalf("signed-up email = %q, want it normalised", u["email"])
		}
		for _, same := range []string{"jos\u00e9@xn--bcher-kva.example", "JOS\u00c9@b\u00fccher.example", "jose\u0301@\uff42\u00fccher.example"} {
			signUp(same).Expect(t, http.StatusConflict, "email-taken")
			s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/sign-in/email", Body: map[string]any{"email": same, "password": apitest.Password}}).
				Expect(t, http.StatusOK, "")
		}
		owner := s.SignUp(t, "owner@example.com")
		orgID := s.CreateOrg(t, owner.Token, "Acme")
		prj := s.CreateProject(t, owner.Token, orgID, "web")
		memberID := s.MemberID(t, owner.Token, orgID, owner.UserID)
		for _, bad := range []string{"owne\u200br@example.com", "\u043ewner@example.com", "\uff4fwner@example.com", "owner\u202e@example.com"} {
			for name, r := range map[string]*apitest.Response{
				"sign-up":    signUp(bad),
				"sign-in":    s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/sign-in/email", Body: map[string]any{"email": bad, "password": apitest.Password}}),
				"invitation": s.Do(apitest.Request{Method: "POST", Path: "/v1/orgs/" + orgID + "/invitations", Token: owner.Token, Body: map[string]any{"email": bad}}),
				"channel": s.Do(apitest.Request{Method: "POST", Path: channelsPath(prj), Token: owner.Token,
					Body: map[string]any{"member_id": memberID, "name": "c", "type": "email", "email": bad}}),
			} {
				if r.Status != http.StatusUnprocessableEntity || !namesField(r.Str(t, "detail"), "email") {
					t.Errorf("%s with %q: %d %s, want 422 naming email", name, bad, r.Status, r.Body)
				}
			}
		}
		// Inviting a member under another spelling of their address is
		// inviting a member.
		s.Do(apitest.Request{Method: "POST", Path: "/v1/orgs/" + orgID + "/invitations", Token: owner.Token, Body: map[string]any{"email": "OWNER@example.COM"}}).
			Expect(t, http.StatusConflict, "already-member")
	}, func(c *config.Serve) { c.Signup = "open" })
}
