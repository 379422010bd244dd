package httpapi_test

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/auth"
	"github.com/errata-dev/errata/internal/mail/mailtest"
	"github.com/errata-dev/errata/internal/problem"
)

// TestOIDCFirstAccount: on an invite-only installation the very first
// account may be made through the provider, as by password sign-up
// (CONTRACT 1); the next address without an invitation may not.
func TestOIDCFirstAccount(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		ctx := context.Background()
		first, err := s.App.Auth.SignInOIDC(ctx, "first@acme.example", "First", nil)
		if err != nil {
			t.Fatalf("the first account through OIDC: %v", err)
		}
		s.Do(apitest.Request{Method: "GET", Path: "/v1/auth/session", Token: first.Token}).Expect(t, http.StatusOK, "")
		_, err = s.App.Auth.SignInOIDC(ctx, "second@acme.example", "Second", nil)
		var p *problem.Problem
		if !errors.As(err, &p) || p.Code() != "sign-up-closed" {
			t.Fatalf("a second account without an invitation: %v, want sign-up-closed", err)
		}
	})
}

// TestOIDCVerifiesLikeTheLink: an unverified account signing in through the
// provider (which verified the address) is verified as the link would
// verify it: the email channels waiting for its address are confirmed.
func TestOIDCVerifiesLikeTheLink(t *testing.T) {
	eachWithSMTP(t, func(t *testing.T, s *apitest.Server, smtp *mailtest.Server) {
		s.SignUp(t, "owner@example.com") // the first account is verified at once
		wes := s.SignUp(t, "wes@example.com")
		if u := s.Do(apitest.Request{Method: "GET", Path: "/v1/auth/session", Token: wes.Token}).JSON(t)["user"].(map[string]any); u["email_verified"] != false {
			t.Fatalf("user = %v, want unverified", u)
		}
		orgID := s.CreateOrg(t, wes.Token, "Wes & co")
		projectID := s.CreateProject(t, wes.Token, orgID, "web")
		ch := s.Do(apitest.Request{Method: "POST", Path: "/v1/projects/" + projectID + "/channels", Token: wes.Token,
			Body: map[string]any{"member_id": s.MemberID(t, wes.Token, orgID, wes.UserID), "name": "wes", "type": "email"}}).
			Expect(t, http.StatusCreated, "")
		if ch.Str(t, "confirmation") != "pending" {
			t.Fatalf("channel = %s, want pending", ch.Body)
		}
		sg, err := s.App.Auth.SignInOIDC(context.Background(), "wes@example.com", "Wes", nil)
		if err != nil {
			t.Fatal(err)
		}
		if got := getChannel(t, s, sg.Token, ch.Str(t, "id")); got["confirmation"] != "confirmed" {
			t.Fatalf("channel after the OIDC sign-in = %v, want confirmed", got)
		}
		// The session made before the address was proved has ended
		// (docs/security.md, "Single sign-on").
		s.Do(apitest.Request{Method: "GET", Path: "/v1/auth/session", Token: wes.Token}).Expect(t, http.StatusUnauthorized, "unauthorized")
	}, openSignUp)
}

// TestOIDCSignInsAtOnce: the callbacks of two tabs (or a double click) of
// one new address finish together; each signs in, to one account that
// joined once (on PostgreSQL the losers' account creation conflicted, and
// they were answered 409).
func TestOIDCSignInsAtOnce(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		owner := s.SignUp(t, "owner@example.com")
		orgID := s.CreateOrg(t, owner.Token, "Acme")
		joins := []auth.AutoJoin{{Domain: "corp.example", OrgID: orgID, Role: "member"}}
		const n = 4
		users, errs := make([]string, n), make([]error, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				sg, err := s.App.Auth.SignInOIDC(context.Background(), "race@corp.example", "Race", joins)
				users[i], errs[i] = sg.User.ID, err
			}()
		}
		close(start)
		wg.Wait()
		for i := range n {
			if errs[i] != nil || users[i] != users[0] {
				t.Fatalf("sign-in %d of %d at once: user %q, %v; want every one signed in as %q", i+1, n, users[i], errs[i], users[0])
			}
		}
		members := s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs/" + orgID + "/members", Token: owner.Token}).Expect(t, http.StatusOK, "").JSON(t)["data"].([]any)
		if len(members) != 2 {
			t.Fatalf("members = %v, want the owner and the one account", members)
		}
	})
}
