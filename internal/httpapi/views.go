package httpapi

import (
	"github.com/danielgtaylor/huma/v2"
	"github.com/errata-dev/errata/internal/org"
	"github.com/errata-dev/errata/internal/store"
)

// The JSON shapes of the API's resources (CONTRACT section 2).

// UserView is a user as the API shows it.
type UserView struct {
	ID    string `json:"id" doc:"usr_ identifier"`
	Email string `json:"email"`
	Name  string `json:"name"`
	// EmailVerified: until true, the address receives no channel email and
	// accepts no invitation.
	EmailVerified bool      `json:"email_verified" doc:"Whether the address is verified (the link of the verification email)"`
	TOTPEnabled   bool      `json:"totp_enabled" doc:"Whether signing in takes a second factor"`
	CreatedAt     Timestamp `json:"created_at"`
}

func userView(u store.User) UserView {
	return UserView{ID: u.ID, Email: u.Email, Name: u.Name, EmailVerified: u.EmailVerified(), TOTPEnabled: u.HasTOTP(), CreatedAt: ts(u.CreatedAt)}
}

// OrgView is an organization.
type OrgView struct {
	ID     string     `json:"id" doc:"org_ identifier"`
	Name   string     `json:"name"`
	Slug   string     `json:"slug" doc:"URL name, unique in the installation: a-z, 0-9 and -, made from the name; SENTRY_ORG for sentry-cli"`
	Plan   string     `json:"plan" enum:"free,team"`
	Limits org.Limits `json:"limits"`
	// Require2FA and SSORequired are the organization's sign-in rules.
	Require2FA  bool      `json:"require_2fa" doc:"Members without two-factor sign-in get 403 2fa-required"`
	SSORequired bool      `json:"sso_required" doc:"Sessions that did not sign in through single sign-on, and personal API tokens made from one, get 403 sso-required"`
	CreatedAt   Timestamp `json:"created_at"`
	UpdatedAt   Timestamp `json:"updated_at"`
}

func orgView(o store.Org) OrgView {
	return OrgView{ID: o.ID, Name: o.Name, Slug: o.Slug, Plan: o.Plan, Limits: org.LimitsOf(o.Plan), Require2FA: o.Require2FA, SSORequired: o.SSORequired,
		CreatedAt: ts(o.CreatedAt), UpdatedAt: ts(o.UpdatedAt)}
}

// MemberView is a member of an organization.
type MemberView struct {
	ID             string    `json:"id" doc:"mem_ identifier"`
	OrganizationID string    `json:"organization_id"`
	UserID         string    `json:"user_id"`
	Email          string    `json:"email"`
	Name           string    `json:"name"`
	Role           string    `json:"role" enum:"viewer,member,admin,owner"`
	CreatedAt      Timestamp `json:"created_at"`
}

func memberView(m store.Member) MemberView {
	return MemberView{ID: m.ID, OrganizationID: m.OrgID, UserID: m.UserID, Email: m.Email, Name: m.Name, Role: m.Role, CreatedAt: ts(m.CreatedAt)}
}

// InvitationView is an invitation; its token is never shown after creation.
type InvitationView struct {
	ID             string    `json:"id" doc:"inv_ identifier"`
	OrganizationID string    `json:"organization_id"`
	Email          string    `json:"email"`
	Role           string    `json:"role" enum:"viewer,member,admin,owner"`
	Status         string    `json:"status" enum:"pending,accepted,revoked,expired"`
	ExpiresAt      Timestamp `json:"expires_at"`
	CreatedAt      Timestamp `json:"created_at"`
	EmailStatus    *string   `json:"email_status" nullable:"true" enum:"pending,delivered,failed,cancelled" doc:"The invitation email, sent and retried like any email delivery: pending (queued, or waiting for a retry), delivered (the SMTP server took it), failed (given up), cancelled (the invitation ended first). null when no email was queued: no SMTP server is configured (ERRATA_SMTP_URL), and the link is only in the creation answer."`
}

func (s *Server) invitationView(i store.Invitation) InvitationView {
	return InvitationView{ID: i.ID, OrganizationID: i.OrgID, Email: i.Email, Role: i.Role, Status: i.StatusAt(s.now()),
		ExpiresAt: ts(i.ExpiresAt), CreatedAt: ts(i.CreatedAt)}
}

// ProjectView is a project.
type ProjectView struct {
	ID             string    `json:"id" doc:"prj_ identifier"`
	OrganizationID string    `json:"organization_id"`
	Name           string    `json:"name"`
	Slug           string    `json:"slug" doc:"URL name, unique in the organization: a-z, 0-9 and -, made from the name; SENTRY_PROJECT for sentry-cli"`
	Number         int64     `json:"number" minimum:"1" doc:"A positive integer unique in the installation, never reused: the project's number in Sentry DSNs (<scheme>://<key>@<host>/<number>)"`
	CreatedAt      Timestamp `json:"created_at"`
	UpdatedAt      Timestamp `json:"updated_at"`
}

func projectView(p store.Project) ProjectView {
	return ProjectView{ID: p.ID, OrganizationID: p.OrgID, Name: p.Name, Slug: p.Slug, Number: p.Number, CreatedAt: ts(p.CreatedAt), UpdatedAt: ts(p.UpdatedAt)}
}

// KeyView is a project API key; its secret is never shown after creation.
type KeyView struct {
	ID         string     `json:"id" doc:"key_ identifier"`
	ProjectID  string     `json:"project_id"`
	Name       string     `json:"name"`
	CreatedAt  Timestamp  `json:"created_at"`
	LastUsedAt *Timestamp `json:"last_used_at" nullable:"true" doc:"Last ingest with the key (updated at most once a minute); null if never used"`
	RevokedAt  *Timestamp `json:"revoked_at" nullable:"true" doc:"When the key was revoked; null while it is active"`
	// AllowedOrigins limit where browsers may use the key from.
	AllowedOrigins []string `json:"allowed_origins" doc:"Origins a browser may send the key's Sentry requests from (scheme://host[:port], a host may start with *. for its subdomains), or [\"*\"] for every origin (the default). A Sentry request whose Origin header is not among them answers 403; requests without Origin (server SDKs) are not limited"`
}

func keyView(k store.APIKey) KeyView {
	return KeyView{ID: k.ID, ProjectID: k.ProjectID, Name: k.Name, CreatedAt: ts(k.CreatedAt), LastUsedAt: tsPtr(k.LastUsedAt), RevokedAt: tsPtr(k.RevokedAt),
		AllowedOrigins: k.AllowedOrigins}
}

// TransformSchema lists null among email_status's values: huma's enum tag
// cannot, and a nullable enum without it refuses null.
func (InvitationView) TransformSchema(_ huma.Registry, s *huma.Schema) *huma.Schema {
	if p := s.Properties["email_status"]; p != nil && len(p.Enum) > 0 {
		p.Enum = append(p.Enum, nil)
	}
	return s
}
