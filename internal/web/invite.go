package web

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/errata-dev/errata/internal/auth"
	"github.com/errata-dev/errata/internal/httpserver"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/secret"
	"github.com/errata-dev/errata/internal/store"
)

// The invitation link ({app_url}/invitations/accept?token=…, built by
// org.Service.Invite) is public: a signed-out visitor gets a sign-up form
// (auth.Service.SignUp with the token, which accepts the invitation in the
// same transaction), a signed-in one an "Accept invitation" button
// (org.Service.AcceptToken, as POST /v1/invitations/accept). The token is
// carried only in this site's addresses and forms; nothing is logged with it.

// invitationData fills the invitation page.
type invitationData struct {
	Token     string
	OrgID     string
	OrgName   string
	Role      string
	Email     string
	ExpiresAt time.Time
	// SignedIn shows the accept button instead of the sign-up form;
	// AlreadyMember says there is nothing to accept.
	SignedIn      bool
	AlreadyMember bool
	// SignInURL signs in and comes back here.
	SignInURL string
	// Name is the sign-up form's name, kept when the form is shown again.
	Name  string
	Error string
}

// invitation shows the page of an invitation link.
func (d *Dashboard) invitation(w http.ResponseWriter, r *http.Request) {
	tok := r.URL.Query().Get("token")
	p, err := d.visitor(r)
	if err != nil {
		d.fail(w, r, nil, err)
		return
	}
	data, err := d.invitationData(r.Context(), tok, p)
	if err != nil {
		d.fail(w, r, p, err)
		return
	}
	d.render(w, r, http.StatusOK, "invitation", p, frame{Title: "Join " + data.OrgName, Data: data})
}

// acceptInvitation signs the visitor up with the invitation (the form has a
// password) or accepts it for the signed-in user, then goes to the
// organization.
func (d *Dashboard) acceptInvitation(w http.ResponseWriter, r *http.Request) {
	p, err := d.visitor(r)
	if err != nil {
		d.fail(w, r, nil, err)
		return
	}
	tok, err := formValue(r, "token")
	if err != nil {
		d.fail(w, r, p, err)
		return
	}
	data, err := d.invitationData(r.Context(), tok, p)
	if err != nil {
		d.fail(w, r, p, err)
		return
	}
	if r.PostForm.Has("password") {
		d.signUpInvited(w, r, data)
		return
	}
	if p == nil {
		http.Redirect(w, r, data.SignInURL, http.StatusSeeOther)
		return
	}
	_, err = d.orgs.AcceptToken(r.Context(), p.User, secret.Hash(tok))
	if pr := shown(err, "already-member", "invitation-invalid"); pr != nil {
		data.Error = sentence(pr.Detail)
		d.render(w, r, pr.Status, "invitation", p, frame{Title: "Join " + data.OrgName, Data: data})
		return
	}
	if err != nil {
		d.fail(w, r, p, err)
		return
	}
	http.Redirect(w, r, "/orgs/"+data.OrgID, http.StatusSeeOther)
}

// signUpInvited creates the invited account with the invitation's email
// address, accepting the invitation, and signs it in with the cookie
// POST /v1/auth/sign-up/email sets. Form errors show the form again.
func (d *Dashboard) signUpInvited(w http.ResponseWriter, r *http.Request, data invitationData) {
	data.Name = r.PostForm.Get("name")
	var err error
	if utf8.RuneCountInString(data.Name) > 100 { // the API's maxLength
		err = problem.New("validation-failed", "name: at most 100 characters")
	}
	var sg auth.Signed
	if err == nil {
		sg, err = d.auth.SignUp(r.Context(), auth.SignUpInput{Email: data.Email, Password: r.PostForm.Get("password"),
			Name: data.Name, InvitationToken: data.Token})
	}
	if pr := shown(err, "validation-failed", "email-taken", "invitation-invalid", "already-member"); pr != nil {
		data.Error = sentence(pr.Detail)
		d.render(w, r, pr.Status, "invitation", nil, frame{Title: "Join " + data.OrgName, Data: data})
		return
	}
	if err != nil {
		d.fail(w, r, nil, err)
		return
	}
	http.SetCookie(w, d.api.SessionCookie(sg.Token, sg.Session.ExpiresAt))
	http.Redirect(w, r, "/orgs/"+data.OrgID, http.StatusSeeOther)
}

// invitationData reads the pending invitation of token: unknown is a 404
// page, no longer pending a 410, neither naming the address it was for.
func (d *Dashboard) invitationData(ctx context.Context, tok string, p *httpserver.Principal) (invitationData, error) {
	if tok == "" {
		return invitationData{}, invitationProblem(http.StatusNotFound, "This invitation link is not valid. Check that the whole link was copied, or ask an admin of the organization for a new invitation.")
	}
	c := d.db.Read()
	inv, err := c.InvitationByTokenHash(ctx, secret.Hash(tok))
	if errors.Is(err, store.ErrNotFound) {
		return invitationData{}, invitationProblem(http.StatusNotFound, "This invitation link is not valid. Check that the whole link was copied, or ask an admin of the organization for a new invitation.")
	}
	if err != nil {
		return invitationData{}, err
	}
	switch inv.StatusAt(d.now()) {
	case store.InvitationPending:
	case store.InvitationExpired:
		return invitationData{}, invitationProblem(http.StatusGone, "This invitation has expired. Ask an admin of the organization for a new one.")
	case store.InvitationRevoked:
		return invitationData{}, invitationProblem(http.StatusGone, "This invitation was withdrawn. Ask an admin of the organization for a new one.")
	default:
		return invitationData{}, invitationProblem(http.StatusGone, "This invitation has already been used. Sign in to reach the organization.")
	}
	o, err := c.OrgByID(ctx, inv.OrgID)
	if err != nil {
		return invitationData{}, err
	}
	back := "/invitations/accept?token=" + url.QueryEscape(tok)
	data := invitationData{Token: tok, OrgID: o.ID, OrgName: o.Name, Role: inv.Role, Email: inv.Email, ExpiresAt: inv.ExpiresAt,
		SignInURL: "/sign-in?next=" + url.QueryEscape(back)}
	if p != nil {
		data.SignedIn = true
		if _, err := c.MemberOf(ctx, o.ID, p.User.ID); err == nil {
			data.AlreadyMember = true
		} else if !errors.Is(err, store.ErrNotFound) {
			return invitationData{}, err
		}
	}
	return data, nil
}

// invitationProblem is the invitation-invalid problem with a page status of
// its own: 404 for an unknown link, 410 for one no longer usable.
func invitationProblem(status int, detail string) *problem.Problem {
	pr := problem.New("invitation-invalid", detail)
	pr.Status = status
	return pr
}

// visitor returns the signed-in caller, or nil for a signed-out (or
// expired) visitor of a public page.
func (d *Dashboard) visitor(r *http.Request) (*httpserver.Principal, error) {
	p, err := d.api.Authenticate(r)
	var pr *problem.Problem
	if errors.As(err, &pr) && pr.Code() == "unauthorized" {
		return nil, nil
	}
	return p, err
}

// fieldPrefix is the field a problem detail begins by naming, as the API
// names it ("current_password: ", "allowed_origins[1]: ").
var fieldPrefix = regexp.MustCompile(`^([a-z][a-z0-9_.]*)(?:\[(\d+)\])?: `)

// detailField splits a problem detail into the field it names, the list
// entry (counting from 1; 0 when none) and the rest; ok is false when it
// names none.
func detailField(s string) (field string, entry int, rest string, ok bool) {
	m := fieldPrefix.FindStringSubmatchIndex(s)
	if m == nil {
		return "", 0, s, false
	}
	if m[4] >= 0 {
		n, _ := strconv.Atoi(s[m[4]:m[5]])
		entry = n + 1
	}
	return s[m[2]:m[3]], entry, s[m[1]:], true
}

// sentence makes a problem detail a form message: the field it names as a
// label ("Current password: …", "Allowed origins (entry 2): …"),
// capitalized (unless it starts with an email address) and ending with a
// full stop.
func sentence(s string) string {
	if field, entry, rest, ok := detailField(s); ok {
		label := strings.NewReplacer("_", " ", ".", " ").Replace(field)
		if entry > 0 {
			label += " (entry " + strconv.Itoa(entry) + ")"
		}
		s = label + ": " + rest
	}
	first, _, _ := strings.Cut(s, " ")
	if r, n := utf8.DecodeRuneInString(s); n > 0 && !strings.Contains(first, "@") {
		s = string(unicode.ToUpper(r)) + s[n:]
	}
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}
