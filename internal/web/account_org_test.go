package web_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
)

// accountProjectNames lists orgID's project names through the API.
func accountProjectNames(t *testing.T, s *apitest.Server, token, orgID string) []string {
	t.Helper()
	r := s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs/" + orgID + "/projects?limit=100", Token: token}).Expect(t, http.StatusOK, "")
	var names []string
	for _, p := range r.JSON(t)["data"].([]any) {
		names = append(names, p.(map[string]any)["name"].(string))
	}
	return names
}

func TestAccountOrgSwitcherAndPage(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		betaID := s.CreateOrg(t, w.Owner.Token, "Beta")
		if _, err := s.App.Orgs.SetPlan(context.Background(), betaID, "free"); err != nil {
			t.Fatal(err)
		}
		b := newBrowser(t, s)
		b.signIn(w.Owner.Email)

		home := b.get("/").expect(t, http.StatusOK, `<details class="switcher">`, `href="/orgs/`+w.OrgID+`"`, `href="/orgs/`+betaID+`"`, "Beta")
		if strings.Contains(home.Body, `aria-current="true"`) {
			t.Errorf("the home page marks a current organization")
		}
		// Project pages mark their organization and lead back to it.
		b.get("/projects/"+w.ProjectID).expect(t, http.StatusOK, `<a href="/orgs/`+w.OrgID+`" aria-current="true">Acme</a>`,
			`<li><a href="/orgs/`+w.OrgID+`">Acme</a></li>`)

		b.get("/orgs/"+w.OrgID).expect(t, http.StatusOK, "<h1>Acme</h1>", `<span class="badge">owner</span>`, "<strong>team</strong>",
			"<th scope=\"row\">Channels per project</th><td>25</td>", "email, webhook", `href="/projects/`+w.ProjectID+`"`,
			`action="/orgs/`+w.OrgID+`/projects"`, `action="/orgs/`+w.OrgID+`/rename"`, `href="/orgs/`+w.OrgID+`/members"`,
			`<a href="/orgs/`+w.OrgID+`" aria-current="true">Acme</a>`)
		beta := b.get("/orgs/"+betaID).expect(t, http.StatusOK, "<strong>free</strong>", "<td>3</td>", "No projects yet")
		if strings.Contains(beta.Body, "webhook") {
			t.Errorf("the free plan lists webhooks")
		}

		// Owners rename; a blank name is refused beside the form.
		b.post("/orgs/"+betaID+"/rename", url.Values{"name": {"   "}}).expect(t, http.StatusUnprocessableEntity, `role="alert"`, "not blank")
		if loc := b.post("/orgs/"+betaID+"/rename", url.Values{"name": {"Beta Labs"}}).expect(t, http.StatusSeeOther).Header.Get("Location"); loc != "/orgs/"+betaID {
			t.Fatalf("Location after rename = %q", loc)
		}
		if name := s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs/" + betaID, Token: w.Owner.Token}).Expect(t, http.StatusOK, "").Str(t, "name"); name != "Beta Labs" {
			t.Fatalf("name after rename = %q", name)
		}

		// Another organization's pages are not found.
		b.get("/orgs/"+w.OtherOrgID).expect(t, http.StatusNotFound, "not-found")
		b.get("/orgs/"+w.OtherOrgID+"/members").expect(t, http.StatusNotFound)
		b.post("/orgs/"+w.OtherOrgID+"/projects", url.Values{"name": {"sneaky"}}).expect(t, http.StatusNotFound)
		b.get("/orgs/org_bogus").expect(t, http.StatusNotFound)

		// Creating an organization makes the creator its owner.
		// A blank name shows the home page's form again, the message beside it.
		b.post("/orgs", url.Values{"name": {"   "}}).expect(t, http.StatusUnprocessableEntity, `id="org-name-error" class="field-error" role="alert">Name: 1 to 100 characters`,
			`aria-invalid="true"`, "Your organizations")
		p := b.post("/orgs", url.Values{"name": {"Gamma"}}).expect(t, http.StatusSeeOther)
		b.get(p.Header.Get("Location")).expect(t, http.StatusOK, "<h1>Gamma</h1>", `<span class="badge">owner</span>`)
	})
}

func TestAccountCreateProject(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		admin := newBrowser(t, s)
		admin.signIn(w.Admin.Email)
		org := admin.get("/orgs/"+w.OrgID).expect(t, http.StatusOK, `<label for="project-name">`)
		if strings.Contains(org.Body, "/rename") {
			t.Errorf("an admin is offered the owner's rename form")
		}
		admin.post("/orgs/"+w.OrgID+"/projects", url.Values{"name": {""}}).expect(t, http.StatusUnprocessableEntity, `role="alert"`, "1 to 100 characters")
		p := admin.post("/orgs/"+w.OrgID+"/projects", url.Values{"name": {"mobile"}}).expect(t, http.StatusSeeOther)
		loc := p.Header.Get("Location")
		if !regexp.MustCompile(`^/projects/prj_[0-9A-Za-z]+$`).MatchString(loc) {
			t.Fatalf("Location after creating a project = %q", loc)
		}
		admin.get(loc).expect(t, http.StatusOK, "<h1>mobile</h1>")
		admin.post("/orgs/"+w.OrgID+"/rename", url.Values{"name": {"Hijacked"}}).expect(t, http.StatusForbidden, "forbidden")

		member := newBrowser(t, s)
		member.signIn(w.Member.Email)
		mp := member.get("/orgs/"+w.OrgID).expect(t, http.StatusOK, "mobile", "web")
		if strings.Contains(mp.Body, `action="/orgs/`+w.OrgID+`/projects"`) {
			t.Errorf("a member is offered the create-project form")
		}
		member.post("/orgs/"+w.OrgID+"/projects", url.Values{"name": {"forced"}}).expect(t, http.StatusForbidden, "forbidden")
		names := strings.Join(accountProjectNames(t, s, w.Owner.Token, w.OrgID), ",")
		if !strings.Contains(names, "mobile") || strings.Contains(names, "forced") {
			t.Fatalf("projects = %s, want mobile and not forced", names)
		}
		if name := s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs/" + w.OrgID, Token: w.Owner.Token}).Expect(t, http.StatusOK, "").Str(t, "name"); name != "Acme" {
			t.Fatalf("an admin renamed the organization to %q", name)
		}
	})
}

func TestAccountMembersAndRoles(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		owner := newBrowser(t, s)
		owner.signIn(w.Owner.Email)
		owner.get("/orgs/"+w.OrgID+"/members").expect(t, http.StatusOK, w.Admin.Email, w.Member.Email, w.Viewer.Email,
			`action="/members/`+w.Member.MemberID+`/role"`, `<label class="sr-only" for="role-`+w.Member.MemberID+`">`,
			`<option value="owner"`, `action="/orgs/`+w.OrgID+`/invitations"`, `data-confirm="Leave Acme?"`)

		// The last owner cannot step down: the rule's message, 409.
		owner.post("/members/"+w.Owner.MemberID+"/role", url.Values{"role": {"admin"}}).
			expect(t, http.StatusConflict, `role="alert"`, "last owner", "Members of Acme")
		owner.post("/members/"+w.Owner.MemberID+"/remove", url.Values{}).expect(t, http.StatusConflict, "last owner")
		if role := accountMemberRole(t, s, w.Owner.Token, w.OrgID, w.Owner.Email); role != "owner" {
			t.Fatalf("owner's role = %q", role)
		}
		owner.post("/members/"+w.Member.MemberID+"/role", url.Values{"role": {"superuser"}}).expect(t, http.StatusUnprocessableEntity, "role")
		if loc := owner.post("/members/"+w.Member.MemberID+"/role", url.Values{"role": {"admin"}}).expect(t, http.StatusSeeOther).Header.Get("Location"); loc != "/orgs/"+w.OrgID+"/members" {
			t.Fatalf("Location after a role change = %q", loc)
		}
		if role := accountMemberRole(t, s, w.Owner.Token, w.OrgID, w.Member.Email); role != "admin" {
			t.Fatalf("role after the change = %q, want admin", role)
		}

		// An admin is offered no owner controls, and forcing one is the
		// service's 403, shown on the page.
		admin := newBrowser(t, s)
		admin.signIn(w.Admin.Email)
		ap := admin.get("/orgs/"+w.OrgID+"/members").expect(t, http.StatusOK, `action="/members/`+w.Viewer.MemberID+`/role"`)
		if strings.Contains(ap.Body, `action="/members/`+w.Owner.MemberID+`/`) || strings.Contains(ap.Body, `<option value="owner"`) {
			t.Errorf("an admin is offered owner controls")
		}
		admin.post("/members/"+w.Owner.MemberID+"/role", url.Values{"role": {"viewer"}}).expect(t, http.StatusForbidden, `role="alert"`, "Only an owner", "Members of Acme")
		admin.post("/members/"+w.Viewer.MemberID+"/role", url.Values{"role": {"owner"}}).expect(t, http.StatusForbidden, "Only an owner")
		if loc := admin.post("/members/"+w.Member.MemberID+"/remove", url.Values{}).expect(t, http.StatusSeeOther).Header.Get("Location"); loc != "/orgs/"+w.OrgID+"/members" {
			t.Fatalf("Location after removing = %q", loc)
		}
		if role := accountMemberRole(t, s, w.Owner.Token, w.OrgID, w.Member.Email); role != "" {
			t.Fatalf("removed member still has role %q", role)
		}

		// A viewer reads, cannot change, and may leave.
		viewer := newBrowser(t, s)
		viewer.signIn(w.Viewer.Email)
		vp := viewer.get("/orgs/"+w.OrgID+"/members").expect(t, http.StatusOK, w.Admin.Email, `action="/members/`+w.Viewer.MemberID+`/remove"`)
		if strings.Contains(vp.Body, `/role"`) || strings.Contains(vp.Body, "/invitations\"") || strings.Contains(vp.Body, `action="/members/`+w.Admin.MemberID+`/remove"`) {
			t.Errorf("a viewer is offered admin actions")
		}
		viewer.post("/members/"+w.Admin.MemberID+"/role", url.Values{"role": {"viewer"}}).expect(t, http.StatusForbidden, "forbidden")
		viewer.post("/members/"+w.Admin.MemberID+"/remove", url.Values{}).expect(t, http.StatusForbidden, "another member takes the admin role")
		viewer.post("/orgs/"+w.OrgID+"/invitations", url.Values{"email": {"x@example.com"}, "role": {"viewer"}}).expect(t, http.StatusForbidden, "forbidden")
		if role := accountMemberRole(t, s, w.Owner.Token, w.OrgID, w.Admin.Email); role != "admin" {
			t.Fatalf("admin's role after a viewer's attempts = %q", role)
		}
		if loc := viewer.post("/members/"+w.Viewer.MemberID+"/remove", url.Values{}).expect(t, http.StatusSeeOther).Header.Get("Location"); loc != "/" {
			t.Fatalf("Location after leaving = %q, want /", loc)
		}
		viewer.get("/orgs/"+w.OrgID).expect(t, http.StatusNotFound)

		// Another organization's members are not found.
		out := newBrowser(t, s)
		out.signIn(w.Outsider.Email)
		out.post("/members/"+w.Admin.MemberID+"/remove", url.Values{}).expect(t, http.StatusNotFound)
	})
}

// accountTokenRe finds an invitation link's token in a page.
var accountTokenRe = regexp.MustCompile(`/invitations/accept\?token=([A-Za-z0-9_-]+)`)

func TestAccountInviteAndRevoke(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		admin := newBrowser(t, s)
		admin.signIn(w.Admin.Email)
		created := admin.post("/orgs/"+w.OrgID+"/invitations", url.Values{"email": {"fresh@example.com"}, "role": {"viewer"}}).
			expect(t, http.StatusCreated, "Invitation created for fresh@example.com", `<code id="invitation-link"`, `data-copy="#invitation-link"`, s.URL+"/invitations/accept?token=")
		m := accountTokenRe.FindStringSubmatch(created.Body)
		if m == nil {
			t.Fatalf("no link on the page: %s", created.Body)
		}
		tok := m[1]
		if n := strings.Count(created.Body, tok); n != 1 {
			t.Errorf("the token appears %d times, want once", n)
		}
		list := admin.get("/orgs/"+w.OrgID+"/members").expect(t, http.StatusOK, "Pending invitations", "fresh@example.com", "not sent (no SMTP server)")
		if strings.Contains(list.Body, tok) || strings.Contains(list.Body, "token=") {
			t.Fatalf("the members page shows the token again")
		}
		// The link shown works.
		newBrowser(t, s).get(accountAcceptPath(tok)).expect(t, http.StatusOK, "Join Acme", "<strong>viewer</strong>")

		// Refusals beside the form.
		admin.post("/orgs/"+w.OrgID+"/invitations", url.Values{"email": {"boss@example.com"}, "role": {"owner"}}).
			expect(t, http.StatusForbidden, `role="alert"`, "Only an owner can invite an owner", `value="boss@example.com"`)
		admin.post("/orgs/"+w.OrgID+"/invitations", url.Values{"email": {w.Member.Email}, "role": {"viewer"}}).
			expect(t, http.StatusConflict, "already a member")
		admin.post("/orgs/"+w.OrgID+"/invitations", url.Values{"email": {"not an address"}, "role": {"viewer"}}).
			expect(t, http.StatusUnprocessableEntity, "is not an email address")

		// Revoke: the link dies, and revoking twice says why it cannot.
		r := s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs/" + w.OrgID + "/invitations?limit=100", Token: w.Admin.Token}).Expect(t, http.StatusOK, "")
		var invID string
		for _, i := range r.JSON(t)["data"].([]any) {
			if i := i.(map[string]any); i["email"] == "fresh@example.com" {
				invID = i["id"].(string)
			}
		}
		member := newBrowser(t, s)
		member.signIn(w.Member.Email)
		member.post("/invitations/"+invID+"/revoke", url.Values{}).expect(t, http.StatusForbidden, "forbidden")
		admin.get("/orgs/"+w.OrgID+"/members").expect(t, http.StatusOK, `action="/invitations/`+invID+`/revoke"`)
		if loc := admin.post("/invitations/"+invID+"/revoke", url.Values{}).expect(t, http.StatusSeeOther).Header.Get("Location"); loc != "/orgs/"+w.OrgID+"/members" {
			t.Fatalf("Location after revoking = %q", loc)
		}
		if st := accountInvitationStatus(t, s, w.Admin.Token, w.OrgID, invID); st != "revoked" {
			t.Fatalf("invitation %s after revoking", st)
		}
		newBrowser(t, s).get(accountAcceptPath(tok)).expect(t, http.StatusGone)
		admin.post("/invitations/"+invID+"/revoke", url.Values{}).expect(t, http.StatusConflict, "nly a pending invitation can be revoked")
	})
}

// TestAccountInviteLimit: past an organization's 20 invitations an hour the
// form says so beside it, with 429 and Retry-After, and nothing is created.
func TestAccountInviteLimit(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		owner := s.SignUp(t, "owner@example.com")
		orgID := s.CreateOrg(t, owner.Token, "Acme")
		b := newBrowser(t, s)
		b.signIn(owner.Email)
		for i := range 20 {
			b.post("/orgs/"+orgID+"/invitations", url.Values{"email": {fmt.Sprintf("p%d@example.net", i)}, "role": {"viewer"}}).expect(t, http.StatusCreated)
		}
		p := b.post("/orgs/"+orgID+"/invitations", url.Values{"email": {"one-more@example.net"}, "role": {"viewer"}}).
			expect(t, http.StatusTooManyRequests, `role="alert"`, "at most 20 invitations an hour", `value="one-more@example.net"`)
		if ra, err := strconv.Atoi(p.Header.Get("Retry-After")); err != nil || ra < 1 || ra > 3600 {
			t.Errorf("Retry-After = %q, want 1 to 3600 seconds", p.Header.Get("Retry-After"))
		}
		b.get("/orgs/"+orgID+"/members").expect(t, http.StatusOK, "p19@example.net")
		if strings.Contains(b.get("/orgs/"+orgID+"/members").Body, "one-more@example.net") {
			t.Error("the refused invitation was created")
		}
	})
}
