package org

import (
	"context"
	"errors"
	"math"
	"net/url"
	"time"

	"github.com/errata-dev/errata/internal/audit"
	"github.com/errata-dev/errata/internal/emailaddr"
	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/secret"
	"github.com/errata-dev/errata/internal/store"
)

// InvitationTTL is how long an invitation can be accepted.
const InvitationTTL = 7 * 24 * time.Hour

// InvitationLimits bound the invitations an organization sends, each an
// email with text its members chose to an address they chose (CONTRACT 8):
// at most 20 an hour and 100 a day, counted in the database.
var InvitationLimits = []store.Window{{Span: time.Hour, Max: 20}, {Span: 24 * time.Hour, Max: 100}}

// quotaInvitations names the quota of InvitationLimits.
const quotaInvitations = "invitations"

// NewInvitation is a created invitation with its token, shown only once.
type NewInvitation struct {
	store.Invitation
	Token     string
	AcceptURL string
}

// InvitationEmail is what an invitation's email says, to whom.
type InvitationEmail struct {
	InvitationID, To string
	// Inviter and InviterEmail name the member who invited.
	Inviter, InviterEmail string
	Org, Role             string
	// AcceptURL carries the invitation's token.
	AcceptURL string
	ExpiresAt time.Time
}

// Invite creates an invitation to actor's organization and queues its
// email in the same transaction (Options.Mailer; without SMTP the mailer
// queues nothing and the link is only in the answer). Inviting an owner
// takes an owner. Past InvitationLimits it is 429 and nothing is created.
func (s *Service) Invite(ctx context.Context, actor store.Member, email string, role Role) (NewInvitation, error) {
	email, err := emailaddr.Normalize(email)
	if err != nil {
		return NewInvitation{}, err
	}
	if role == Owner && actor.Role != Owner.String() {
		return NewInvitation{}, problem.New("forbidden", "only an owner can invite an owner")
	}
	if u, err := s.db.Read().UserByEmail(ctx, email); err == nil {
		if _, err := s.db.Read().MemberOf(ctx, actor.OrgID, u.ID); err == nil {
			return NewInvitation{}, problem.Newf("already-member", "%s is already a member of this organization", email)
		}
	}
	tok := secret.NewToken()
	h := secret.Hash(tok)
	now := s.clock()
	inv := store.Invitation{ID: id.New(id.Invitation), OrgID: actor.OrgID, Email: email, Role: role.String(), TokenHash: h,
		Status: store.InvitationPending, InvitedBy: actor.UserID, ExpiresAt: now.Add(InvitationTTL), CreatedAt: now, UpdatedAt: now}
	out := NewInvitation{Invitation: inv, Token: tok, AcceptURL: s.appURL + "/invitations/accept?token=" + url.QueryEscape(tok)}
	err = s.db.Tx(ctx, func(c *store.Conn) error {
		ok, wait, err := c.TakeQuota(ctx, quotaInvitations, actor.OrgID, now, InvitationLimits...)
		if err != nil {
			return err
		}
		if !ok {
			return problem.Newf("rate-limited", "an organization can send at most %d invitations an hour and %d a day; retry in %d seconds",
				InvitationLimits[0].Max, InvitationLimits[1].Max, int(math.Ceil(wait.Seconds()))).RetryAfter(wait)
		}
		if err := c.CreateInvitation(ctx, inv); err != nil {
			return err
		}
		if err := s.record(ctx, c, inv.OrgID, "invitation.created", inv.ID, map[string]any{"email": inv.Email, "role": inv.Role}); err != nil {
			return err
		}
		if s.mailer == nil {
			return nil
		}
		o, err := c.OrgByID(ctx, inv.OrgID)
		if err != nil {
			return err
		}
		return s.mailer.QueueInvitation(ctx, c, InvitationEmail{InvitationID: inv.ID, To: inv.Email, Inviter: actor.Name,
			InviterEmail: actor.Email, Org: o.Name, Role: inv.Role, AcceptURL: out.AcceptURL, ExpiresAt: inv.ExpiresAt})
	})
	if err != nil {
		return NewInvitation{}, err
	}
	if s.mailer != nil {
		s.mailer.Wake()
	}
	return out, nil
}

// Revoke withdraws a pending invitation.
func (s *Service) Revoke(ctx context.Context, invitationID string) error {
	err := s.db.Tx(ctx, func(c *store.Conn) error {
		inv, err := c.InvitationByID(ctx, invitationID)
		if err != nil {
			return err
		}
		if err := c.SetInvitationStatus(ctx, invitationID, store.InvitationRevoked, s.clock()); err != nil {
			return err
		}
		return s.record(ctx, c, inv.OrgID, "invitation.revoked", inv.ID, map[string]any{"email": inv.Email, "role": inv.Role})
	})
	if errors.Is(err, store.ErrConflict) {
		return problem.New("conflict", "only a pending invitation can be revoked")
	}
	return err
}

// Accept makes user a member through the invitation whose token hashes to
// tokenHash, sent as the request's field (named by its errors). It runs
// inside c so that sign-up can create the user and accept in one
// transaction.
func (s *Service) Accept(ctx context.Context, c *store.Conn, user store.User, field string, tokenHash []byte) (store.Member, error) {
	inv, err := s.PendingInvitation(ctx, c, field, tokenHash)
	if err != nil {
		return store.Member{}, err
	}
	return s.AcceptInvitation(ctx, c, user, inv)
}

// AcceptInvitation makes user a member through the pending invitation inv,
// in c's transaction, if the invitation's address is user's verified one.
func (s *Service) AcceptInvitation(ctx context.Context, c *store.Conn, user store.User, inv store.Invitation) (store.Member, error) {
	now := s.clock()
	if _, err := c.MemberOf(ctx, inv.OrgID, user.ID); err == nil {
		return store.Member{}, problem.New("already-member", "you are already a member of the invitation's organization")
	}
	// An invitation binds to its address (CONTRACT 8): only the account
	// of that address, once verified, accepts it.
	if user.Email != inv.Email {
		return store.Member{}, problem.Newf("invitation-email-mismatch", "the invitation is for %s; sign in with that address's account to accept it", inv.Email)
	}
	if !user.EmailVerified() {
		return store.Member{}, problem.New("email-unverified", "confirm your email address first (the link of the verification email), then accept the invitation")
	}
	if err := c.SetInvitationStatus(ctx, inv.ID, store.InvitationAccepted, now); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return store.Member{}, problem.New("invitation-invalid", "invitation_token: the invitation was used meanwhile")
		}
		return store.Member{}, err
	}
	m := store.Member{ID: id.New(id.Member), OrgID: inv.OrgID, UserID: user.ID, Role: inv.Role, CreatedAt: now, Email: user.Email, Name: user.Name}
	if err := c.CreateMember(ctx, m); err != nil {
		return store.Member{}, err
	}
	return m, audit.Record(ctx, c, audit.Entry{OrgID: inv.OrgID, Action: "invitation.accepted", Target: inv.ID, ActorID: user.ID, ActorEmail: user.Email,
		Data: map[string]any{"email": inv.Email, "role": inv.Role, "member_id": m.ID}, At: now})
}

// PendingInvitation returns the pending invitation whose token hashes to
// tokenHash; an unknown token or an invitation no longer pending is 422
// invitation-invalid naming field, the request's field that carried the
// token (sign-up's invitation_token, accept's token).
func (s *Service) PendingInvitation(ctx context.Context, c *store.Conn, field string, tokenHash []byte) (store.Invitation, error) {
	inv, err := c.InvitationByTokenHash(ctx, tokenHash)
	if errors.Is(err, store.ErrNotFound) {
		return store.Invitation{}, problem.Newf("invitation-invalid", "%s: no invitation has this token", field)
	}
	if err != nil {
		return store.Invitation{}, err
	}
	if st := inv.StatusAt(s.clock()); st != store.InvitationPending {
		return store.Invitation{}, problem.Newf("invitation-invalid", "%s: the invitation is %s", field, st)
	}
	return inv, nil
}

// AcceptToken is Accept in a transaction of its own, for a token sent as
// the field token (POST /v1/invitations/accept), which its errors name.
func (s *Service) AcceptToken(ctx context.Context, user store.User, tokenHash []byte) (store.Member, error) {
	var m store.Member
	err := s.db.Tx(ctx, func(c *store.Conn) error {
		var err error
		m, err = s.Accept(ctx, c, user, "token", tokenHash)
		return err
	})
	return m, err
}
