package auth

import (
	"context"
	"errors"
	"math"
	"strings"

	"github.com/errata-dev/errata/internal/audit"
	"github.com/errata-dev/errata/internal/emailaddr"
	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/store"
)

// AutoJoin makes OpenID Connect users whose email is at Domain members of
// OrgID with Role (ERRATA_OIDC_AUTO_JOIN).
type AutoJoin struct{ Domain, OrgID, Role string }

// SignInOIDC signs in the user of a verified email that the provider
// vouched for, with a session of method oidc (CONTRACT 8). A user is
// created when sign-up is open, an invitation to the address is pending
// (every pending one is accepted), or joins maps the address's domain to an
// organization; otherwise 403 sign-up-closed. The auto-join applies to
// existing users too. Two-factor sign-in is the provider's business: its
// sessions do not ask for Errata's TOTP code.
func (s *Service) SignInOIDC(ctx context.Context, verifiedEmail, name string, joins []AutoJoin) (Signed, error) {
	email, err := emailaddr.Normalize(verifiedEmail)
	if err != nil {
		return Signed{}, err
	}
	var join *AutoJoin
	if _, domain, ok := strings.Cut(email, "@"); ok {
		for i := range joins {
			if strings.EqualFold(joins[i].Domain, domain) {
				join = &joins[i]
			}
		}
	}
	var out Signed
	// Two callbacks of one new address at once (two tabs, a double
	// click) race to create its account: on PostgreSQL the loser's
	// transaction conflicts, and runs again to find the account made.
	for attempt := 0; ; attempt++ {
		out, err = s.signInOIDC(ctx, email, name, join)
		if !errors.Is(err, store.ErrConflict) || attempt == 2 {
			return out, err
		}
	}
}

// signInOIDC is SignInOIDC's transaction.
func (s *Service) signInOIDC(ctx context.Context, email, name string, join *AutoJoin) (Signed, error) {
	var out Signed
	err := s.db.Tx(ctx, func(c *store.Conn) error {
		now := s.clock()
		if join != nil { // a rule naming no organization joins nobody, and so creates no account
			if _, err := c.OrgByID(ctx, join.OrgID); errors.Is(err, store.ErrNotFound) {
				s.log.Warn("ERRATA_OIDC_AUTO_JOIN names an organization that does not exist", "org_id", join.OrgID)
				join = nil
			} else if err != nil {
				return err
			}
		}
		created := false
		var record func() error // the reset's audit entries, once the account joined
		u, err := c.UserByEmail(ctx, email)
		switch {
		case errors.Is(err, store.ErrNotFound):
			if u, err = s.createOIDCUser(ctx, c, email, name, join != nil); err != nil {
				return err
			}
			created = true
		case err != nil:
			return err
		case !u.EmailVerified():
			// The provider verified the address: as the verification
			// link would, it confirms the email channels waiting for it;
			// and what was set on the account before anyone proved the
			// address goes.
			if record, err = s.resetUnproven(ctx, c, u); err != nil {
				return err
			}
			u.PasswordHash, u.TOTPSecret, u.TOTPPending = "", "", ""
			if err := c.MarkEmailVerified(ctx, u.ID, now); err != nil {
				return err
			}
			u.EmailVerifiedAt = &now
			if _, err := c.ConfirmMemberChannels(ctx, u.ID, u.Email, now); err != nil {
				return err
			}
			// Recorded with the reset once the account joined: an account
			// that joins its first organization here has none to record in
			// before.
			reset, verified := record, u
			record = func() error {
				if err := s.recordUser(ctx, c, verified.ID, "user.email_verified", verified.ID, map[string]any{"email": verified.Email, "method": "oidc"}); err != nil {
					return err
				}
				return reset()
			}
		}
		if join != nil {
			if err := s.autoJoin(ctx, c, u, *join); err != nil {
				return err
			}
		}
		if record != nil {
			if err := record(); err != nil {
				return err
			}
		}
		if !created { // a sign-up is not a sign-in for the per-account limit (CONTRACT 8)
			ok, wait, err := c.TakeQuota(ctx, quotaSignIns, u.ID, now, SignInLimit)
			if err != nil {
				return err
			}
			if !ok {
				return problem.Newf("rate-limited", "this account signed in %d times within the last hour, the most allowed; retry in %d seconds",
					SignInLimit.Max, int(math.Ceil(wait.Seconds()))).RetryAfter(wait)
			}
		}
		if out, err = s.newSession(ctx, c, u, store.SignInOIDC); err != nil {
			return err
		}
		return s.recordSignIn(ctx, c, u, out.Session)
	})
	return out, err
}

// resetUnproven ends every way into an account that was set before anyone
// proved its address, when the provider proves it is the signer's: its
// password, sessions, API tokens and TOTP. Whoever made the account with a
// password may not own the address (with open sign-up anyone can make an
// account for another's address before its owner first signs in through
// SSO), and would otherwise keep a way into the account, and into the
// organizations it then joins (auto-join). Recorded as
// user.credentials_reset, with session.ended (reason email-claimed) and
// api_token.revoked for each one ended.
func (s *Service) resetUnproven(ctx context.Context, c *store.Conn, u store.User) (record func() error, err error) {
	now := s.clock()
	if u.PasswordHash != "" {
		if err := c.SetUserPassword(ctx, u.ID, "", now); err != nil {
			return nil, err
		}
	}
	ended, err := c.DeleteOtherSessions(ctx, u.ID, "")
	if err != nil {
		return nil, err
	}
	tokens, err := c.DeleteAPITokensOf(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	totp := u.TOTPSecret != "" || u.TOTPPending != ""
	if totp {
		if err := c.DisableTOTP(ctx, u.ID, now); err != nil {
			return nil, err
		}
	}
	// Recorded once the sign-in made the account a member of what it
	// joins: an account with no organization has no audit log to show it.
	return func() error {
		if err := s.recordEnded(ctx, c, u.ID, ended, "email-claimed"); err != nil {
			return err
		}
		for _, id := range tokens {
			if err := audit.RecordUser(ctx, c, u.ID, audit.Entry{Action: "api_token.revoked", Target: id, At: now}); err != nil {
				return err
			}
		}
		return s.recordUser(ctx, c, u.ID, "user.credentials_reset", u.ID, map[string]any{"method": "oidc", "password": u.PasswordHash != "",
			"sessions": len(ended), "api_tokens": len(tokens), "totp": totp})
	}, nil
}

// createOIDCUser makes the account of a provider-verified address, without
// a password, if sign-up is open, an invitation to it is pending (all are
// accepted), an auto-join rule covers it, or it is the installation's
// first account.
func (s *Service) createOIDCUser(ctx context.Context, c *store.Conn, email, name string, joins bool) (store.User, error) {
	now := s.clock()
	invs, err := c.PendingInvitationsFor(ctx, email, now)
	if err != nil {
		return store.User{}, err
	}
	if !s.open && len(invs) == 0 && !joins {
		// The installation's very first account may be made however its
		// operator signs in, through the provider too.
		first, err := firstAccount(ctx, c)
		if err != nil {
			return store.User{}, err
		}
		if !first {
			return store.User{}, problem.New("sign-up-closed", "no account has this email, and this server needs an invitation to it to create one")
		}
	}
	name = strings.TrimSpace(name)
	if name == "" {
		name, _, _ = strings.Cut(email, "@")
	}
	u := store.User{ID: id.New(id.User), Email: email, Name: name, CreatedAt: now, UpdatedAt: now, EmailVerifiedAt: &now}
	if err := c.CreateUser(ctx, u); err != nil {
		return store.User{}, err
	}
	for _, inv := range invs {
		if _, err := s.orgs.AcceptInvitation(ctx, c, u, inv); err != nil {
			return store.User{}, err
		}
	}
	s.log.Info("user signed up through OpenID Connect", "user_id", u.ID)
	return u, nil
}

// autoJoin makes u a member of j's organization with j's role unless it is
// one already (or the organization is gone).
func (s *Service) autoJoin(ctx context.Context, c *store.Conn, u store.User, j AutoJoin) error {
	if _, err := c.MemberOf(ctx, j.OrgID, u.ID); err == nil {
		return nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	if _, err := c.OrgByID(ctx, j.OrgID); errors.Is(err, store.ErrNotFound) {
		s.log.Warn("ERRATA_OIDC_AUTO_JOIN names an organization that does not exist", "org_id", j.OrgID)
		return nil
	} else if err != nil {
		return err
	}
	now := s.clock()
	m := store.Member{ID: id.New(id.Member), OrgID: j.OrgID, UserID: u.ID, Role: j.Role, CreatedAt: now, Email: u.Email, Name: u.Name}
	if err := c.CreateMember(ctx, m); err != nil {
		return err
	}
	return audit.Record(ctx, c, audit.Entry{OrgID: j.OrgID, Action: "member.auto_joined", Target: m.ID, ActorID: u.ID, ActorEmail: u.Email,
		Data: map[string]any{"email": u.Email, "role": j.Role, "domain": j.Domain}, At: now})
}
