package httpapi

import (
	"context"

	"github.com/errata-dev/errata/internal/org"
	"github.com/errata-dev/errata/internal/secret"
	"github.com/errata-dev/errata/internal/store"
)

// CreatedInvitation carries the token and link, shown only here.
type CreatedInvitation struct {
	InvitationView
	Token     string `json:"token" doc:"Invitation token: shown only in this answer (and the email)"`
	AcceptURL string `json:"accept_url" doc:"Dashboard link that accepts the invitation"`
}

func (s *Server) listInvitations(ctx context.Context, in *struct {
	OrgPath
	ListParams
}) (*struct{ Body *Page[InvitationView] }, error) {
	page, err := list(s, "invitations:"+in.OrgID, in.ListParams, func(before string, limit int) ([]store.Invitation, error) {
		return s.db.Read().ListInvitations(ctx, in.OrgID, before, limit)
	}, func(i store.Invitation) string { return i.ID }, s.invitationView)
	if err != nil {
		return nil, err
	}
	if err := s.withEmailStatus(ctx, page.Data); err != nil {
		return nil, err
	}
	return &struct{ Body *Page[InvitationView] }{page}, nil
}

// withEmailStatus fills in the status of the invitations' emails.
func (s *Server) withEmailStatus(ctx context.Context, invs []InvitationView) error {
	ids := make([]string, len(invs))
	for i, v := range invs {
		ids[i] = v.ID
	}
	st, err := s.db.Read().SystemEmailStatus(ctx, ids)
	if err != nil {
		return err
	}
	for i := range invs {
		if v, ok := st[invs[i].ID]; ok {
			invs[i].EmailStatus = &v
		}
	}
	return nil
}

func (s *Server) createInvitation(ctx context.Context, in *struct {
	OrgPath
	Body struct {
		Email string `json:"email" maxLength:"254"`
		Role  string `json:"role" enum:"viewer,member,admin,owner" default:"member" required:"false"`
	}
}) (*struct{ Body CreatedInvitation }, error) {
	role, err := org.ParseRole(in.Body.Role)
	if err != nil {
		return nil, err
	}
	inv, err := s.orgs.Invite(ctx, principal(ctx).Member, in.Body.Email, role)
	if err != nil {
		return nil, err
	}
	out := CreatedInvitation{s.invitationView(inv.Invitation), inv.Token, inv.AcceptURL}
	views := []InvitationView{out.InvitationView}
	if err := s.withEmailStatus(ctx, views); err != nil {
		return nil, err
	}
	out.InvitationView = views[0]
	return &struct{ Body CreatedInvitation }{out}, nil
}

func (s *Server) revokeInvitation(ctx context.Context, in *struct {
	InvitationID string `path:"invitation_id" doc:"inv_ identifier"`
}) (*struct{}, error) {
	return nil, s.orgs.Revoke(ctx, in.InvitationID)
}

func (s *Server) acceptInvitation(ctx context.Context, in *struct {
	Body struct {
		Token string `json:"token" minLength:"1" doc:"The invitation token"`
	}
}) (*MemberOutput, error) {
	m, err := s.orgs.AcceptToken(ctx, principal(ctx).User, secret.Hash(in.Body.Token))
	if err != nil {
		return nil, err
	}
	return &MemberOutput{memberView(m)}, nil
}
