package httpapi

import (
	"context"

	"github.com/errata-dev/errata/internal/org"
	"github.com/errata-dev/errata/internal/store"
)

// MemberPath names a member.
type MemberPath struct {
	MemberID string `path:"member_id" doc:"mem_ identifier"`
}

// MemberOutput is one member.
type MemberOutput struct{ Body MemberView }

func (s *Server) listMembers(ctx context.Context, in *struct {
	OrgPath
	ListParams
}) (*struct{ Body *Page[MemberView] }, error) {
	page, err := list(s, "members:"+in.OrgID, in.ListParams, func(before string, limit int) ([]store.Member, error) {
		return s.db.Read().ListMembers(ctx, in.OrgID, before, limit)
	}, func(m store.Member) string { return m.ID }, memberView)
	return &struct{ Body *Page[MemberView] }{page}, err
}

func (s *Server) updateMember(ctx context.Context, in *struct {
	MemberPath
	Body struct {
		Role string `json:"role" enum:"viewer,member,admin,owner" doc:"Making or unmaking an owner takes an owner"`
	}
}) (*MemberOutput, error) {
	role, err := org.ParseRole(in.Body.Role)
	if err != nil {
		return nil, err
	}
	m, err := s.orgs.SetRole(ctx, principal(ctx).Member, in.MemberID, role)
	if err != nil {
		return nil, err
	}
	return &MemberOutput{memberView(m)}, nil
}

func (s *Server) deleteMember(ctx context.Context, in *MemberPath) (*struct{}, error) {
	return nil, s.orgs.Remove(ctx, principal(ctx).Member, in.MemberID)
}
