package web

import (
	"net/http"

	"github.com/errata-dev/errata/internal/httpserver"
	"github.com/errata-dev/errata/internal/org"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/store"
)

// membersData fills the members page.
type membersData struct {
	Org         store.Org
	Members     []memberRow
	Invitations []invitationRow // pending ones
	// CanManage shows role changes, removals, revocations and the invite
	// form (admins); Roles are the roles the caller may hand out.
	CanManage bool
	Roles     []string
	// Error is why an action was refused (403 or 409 from org.Service).
	Error string
	// InviteEmail, InviteRole and InviteError refill a refused invite form.
	InviteEmail, InviteRole, InviteError string
	// Created is the invitation just made: its link is shown this once.
	Created *org.NewInvitation
}

// invitationRow is a pending invitation with the status of its email
// ("" when none was queued: no SMTP server).
type invitationRow struct {
	store.Invitation
	EmailStatus string
}

// memberRow is one member with the actions offered on it.
type memberRow struct {
	store.Member
	Self, CanChange, CanRemove bool
}

// members lists members and pending invitations (GET
// /v1/orgs/{org_id}/members: viewer).
func (d *Dashboard) members(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	if err := d.authorize(r, p, "org_id", org.Viewer); err != nil {
		return err
	}
	return d.membersPage(w, r, p, http.StatusOK, membersData{})
}

// membersPage renders the members page of p.Member's organization with
// status, keeping the messages and form fields of data.
func (d *Dashboard) membersPage(w http.ResponseWriter, r *http.Request, p *httpserver.Principal, status int, data membersData) error {
	ctx, c := r.Context(), d.db.Read()
	o, err := c.OrgByID(ctx, p.Member.OrgID)
	if err != nil {
		return err
	}
	ms, err := c.ListMembers(ctx, o.ID, "", listCap)
	if err != nil {
		return err
	}
	invs, err := c.ListInvitations(ctx, o.ID, "", listCap)
	if err != nil {
		return err
	}
	role, _ := org.ParseRole(p.Member.Role)
	owner := role.AtLeast(org.Owner)
	data.Org, data.CanManage = o, role.AtLeast(org.Admin)
	data.Roles = org.RoleNames
	if !owner {
		data.Roles = org.RoleNames[:3] // only an owner makes owners
	}
	if data.InviteRole == "" {
		data.InviteRole = org.MemberRole.String()
	}
	// The offers follow org.Service's rules; the service still decides.
	for _, m := range ms {
		self, isOwner := m.ID == p.Member.ID, m.Role == org.Owner.String()
		mayTouch := data.CanManage && (owner || !isOwner)
		data.Members = append(data.Members, memberRow{Member: m, Self: self, CanChange: mayTouch, CanRemove: mayTouch || self})
	}
	now := d.now()
	var ids []string
	for _, i := range invs {
		if i.StatusAt(now) == store.InvitationPending {
			data.Invitations = append(data.Invitations, invitationRow{Invitation: i})
			ids = append(ids, i.ID)
		}
	}
	emails, err := c.SystemEmailStatus(ctx, ids)
	if err != nil {
		return err
	}
	for i := range data.Invitations {
		data.Invitations[i].EmailStatus = emails[data.Invitations[i].ID]
	}
	crumbs := append(orgCrumbs(o), crumb{"Members", "/orgs/" + o.ID + "/members"})
	d.render(w, r, status, "members", p, frame{Title: "Members · " + o.Name, Crumbs: crumbs, OrgID: o.ID, Data: data})
	return nil
}

// refused shows the members page again with the problem of a refused
// action, or returns err when it is not one the page explains.
func (d *Dashboard) refused(w http.ResponseWriter, r *http.Request, p *httpserver.Principal, err error) error {
	if pr := shown(err, "forbidden", "last-owner", "conflict", "validation-failed"); pr != nil {
		return d.membersPage(w, r, p, pr.Status, membersData{Error: sentence(pr.Detail)})
	}
	return err
}

// memberRole changes a member's role (PATCH /v1/members/{member_id}: admin;
// org.Service.SetRole applies the owner rules).
func (d *Dashboard) memberRole(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	if err := d.authorize(r, p, "member_id", org.Admin); err != nil {
		return err
	}
	v, err := formValue(r, "role")
	if err != nil {
		return err
	}
	role, err := org.ParseRole(v)
	if err != nil {
		return d.refused(w, r, p, problem.New("validation-failed", "role: choose viewer, member, admin or owner"))
	}
	if _, err := d.orgs.SetRole(r.Context(), p.Member, r.PathValue("member_id"), role); err != nil {
		return d.refused(w, r, p, err)
	}
	http.Redirect(w, r, "/orgs/"+p.Member.OrgID+"/members", http.StatusSeeOther)
	return nil
}

// memberRemove removes a member, or the caller leaves (DELETE
// /v1/members/{member_id}: viewer; org.Service.Remove decides the rest).
func (d *Dashboard) memberRemove(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	if err := d.authorize(r, p, "member_id", org.Viewer); err != nil {
		return err
	}
	memberID := r.PathValue("member_id")
	if err := d.orgs.Remove(r.Context(), p.Member, memberID); err != nil {
		return d.refused(w, r, p, err)
	}
	if memberID == p.Member.ID { // left: the organization is no longer ours to see
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return nil
	}
	http.Redirect(w, r, "/orgs/"+p.Member.OrgID+"/members", http.StatusSeeOther)
	return nil
}

// invite creates an invitation (POST /v1/orgs/{org_id}/invitations: admin)
// and shows its accept link once, on the members page (201).
func (d *Dashboard) invite(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	if err := d.authorize(r, p, "org_id", org.Admin); err != nil {
		return err
	}
	email, err := formValue(r, "email")
	if err != nil {
		return err
	}
	roleName := r.PostForm.Get("role")
	if roleName == "" {
		roleName = org.MemberRole.String() // the API's default
	}
	role, rerr := org.ParseRole(roleName)
	var inv org.NewInvitation
	if rerr != nil {
		err = problem.New("validation-failed", "role: choose viewer, member, admin or owner")
	} else if len(email) > 254 { // the API's maxLength
		err = problem.New("validation-failed", "email: at most 254 characters")
	} else {
		inv, err = d.orgs.Invite(r.Context(), p.Member, email, role)
	}
	if pr := shown(err, "validation-failed", "forbidden", "already-member", "rate-limited"); pr != nil {
		passRetryAfter(w, pr) // 20 invitations an hour, 100 a day
		return d.membersPage(w, r, p, pr.Status, membersData{InviteEmail: email, InviteRole: roleName, InviteError: sentence(pr.Detail)})
	}
	if err != nil {
		return err
	}
	return d.membersPage(w, r, p, http.StatusCreated, membersData{Created: &inv})
}

// revokeInvitation withdraws a pending invitation (DELETE
// /v1/invitations/{invitation_id}: admin).
func (d *Dashboard) revokeInvitation(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	if err := d.authorize(r, p, "invitation_id", org.Admin); err != nil {
		return err
	}
	if err := d.orgs.Revoke(r.Context(), r.PathValue("invitation_id")); err != nil {
		return d.refused(w, r, p, err)
	}
	http.Redirect(w, r, "/orgs/"+p.Member.OrgID+"/members", http.StatusSeeOther)
	return nil
}
