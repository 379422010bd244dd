package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/secret"
)

// roleOrder lists the roles lowest first (CONTRACT 2).
var roleOrder = []string{"viewer", "member", "admin", "owner"}

// apiTimeRe is the timestamp format of every answer (CONTRACT 2).
var apiTimeRe = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$`)

func rank(role string) int {
	for i, r := range roleOrder {
		if r == role {
			return i
		}
	}
	panic("unknown role " + role)
}

func actorIn(w apitest.World, role string) apitest.Actor {
	return map[string]apitest.Actor{"viewer": w.Viewer, "member": w.Member, "admin": w.Admin, "owner": w.Owner}[role]
}

var emailSeq atomic.Int64

// newEmail returns an address no other call returns.
func newEmail(prefix string) string {
	return fmt.Sprintf("%s-%d@example.com", prefix, emailSeq.Add(1))
}

// join invites an existing user to orgID with role and accepts as that user.
func join(t *testing.T, s *apitest.Server, ownerToken, orgID string, a apitest.Actor, role string) string {
	t.Helper()
	_, tok := s.Invite(t, ownerToken, orgID, a.Email, role)
	r := s.Do(apitest.Request{Method: "POST", Path: "/v1/invitations/accept", Token: a.Token, Body: map[string]any{"token": tok}}).
		Expect(t, http.StatusOK, "")
	return r.Str(t, "id")
}

// team makes a fresh organization owned by w.Owner in which w's admin,
// member and viewer hold their roles.
func team(t *testing.T, s *apitest.Server, w apitest.World) string {
	t.Helper()
	orgID := s.CreateOrg(t, w.Owner.Token, "Team")
	for _, role := range []string{"admin", "member", "viewer"} {
		join(t, s, w.Owner.Token, orgID, actorIn(w, role), role)
	}
	return orgID
}

// expireSession moves a session's expiry into the past.
func expireSession(t *testing.T, s *apitest.Server, token string) {
	t.Helper()
	ctx := context.Background()
	sess, err := s.App.DB.Read().SessionByTokenHash(ctx, secret.Hash(token))
	if err != nil {
		t.Fatalf("find session: %v", err)
	}
	past := time.Now().Add(-time.Hour)
	if err := s.App.DB.Write().TouchSession(ctx, sess.ID, past.Add(-time.Hour), past); err != nil {
		t.Fatalf("expire session: %v", err)
	}
}

// scopedOp is one management operation on a resource of an organization.
// Path and body hold placeholders: {org}, {team} (a fresh organization, for
// operations that destroy it), {project}, {key}, {invitation}, {member} (a
// fresh viewer), {owner_member} (the owner's membership), {email} (a fresh address), {ticket} and {group} (a fresh
// error group and its open ticket) and {summary} (an INFO summary).
type scopedOp struct {
	name, method, path, body string
	min                      string // lowest role allowed
	ok                       int    // status of success
	bad                      string // a well-formed body that fails validation ("" for none)
}

var scopedOps = []scopedOp{
	{name: "get org", method: "GET", path: "/v1/orgs/{org}", min: "viewer", ok: 200},
	{name: "rename org", method: "PATCH", path: "/v1/orgs/{org}", body: `{"name":"Renamed"}`, min: "owner", ok: 200, bad: `{"name":""}`},
	{name: "delete org", method: "DELETE", path: "/v1/orgs/{team}", min: "owner", ok: 204},
	{name: "list members", method: "GET", path: "/v1/orgs/{org}/members", min: "viewer", ok: 200},
	{name: "change role", method: "PATCH", path: "/v1/members/{member}", body: `{"role":"member"}`, min: "admin", ok: 200, bad: `{"role":"boss"}`},
	{name: "remove member", method: "DELETE", path: "/v1/members/{member}", min: "admin", ok: 204},
	{name: "list invitations", method: "GET", path: "/v1/orgs/{org}/invitations", min: "viewer", ok: 200},
	{name: "invite", method: "POST", path: "/v1/orgs/{org}/invitations", body: `{"email":"{email}","role":"viewer"}`, min: "admin", ok: 201, bad: `{"email":"{email}","role":"boss"}`},
	{name: "revoke invitation", method: "DELETE", path: "/v1/invitations/{invitation}", min: "admin", ok: 204},
	{name: "list projects", method: "GET", path: "/v1/orgs/{org}/projects", min: "viewer", ok: 200},
	{name: "create project", method: "POST", path: "/v1/orgs/{org}/projects", body: `{"name":"api"}`, min: "admin", ok: 201, bad: `{"name":""}`},
	{name: "get project", method: "GET", path: "/v1/projects/{project}", min: "viewer", ok: 200},
	{name: "rename project", method: "PATCH", path: "/v1/projects/{project}", body: `{"name":"renamed"}`, min: "admin", ok: 200, bad: `{"name":""}`},
	{name: "delete project", method: "DELETE", path: "/v1/projects/{project}", min: "admin", ok: 204},
	{name: "list keys", method: "GET", path: "/v1/projects/{project}/keys", min: "viewer", ok: 200},
	{name: "create key", method: "POST", path: "/v1/projects/{project}/keys", body: `{"name":"ci"}`, min: "admin", ok: 201, bad: `{"name":""}`},
	{name: "revoke key", method: "DELETE", path: "/v1/keys/{key}", min: "admin", ok: 204},
	{name: "list tickets", method: "GET", path: "/v1/projects/{project}/tickets", min: "viewer", ok: 200},
	{name: "get ticket", method: "GET", path: "/v1/tickets/{ticket}", min: "viewer", ok: 200},
	{name: "resolve ticket", method: "PATCH", path: "/v1/tickets/{ticket}", body: `{"status":"resolved"}`, min: "member", ok: 200, bad: `{"status":"closed"}`},
	{name: "delete ticket", method: "DELETE", path: "/v1/tickets/{ticket}", min: "member", ok: 204},
	{name: "list groups", method: "GET", path: "/v1/projects/{project}/groups", min: "viewer", ok: 200},
	{name: "get group", method: "GET", path: "/v1/groups/{group}", min: "viewer", ok: 200},
	{name: "ignore group", method: "PATCH", path: "/v1/groups/{group}", body: `{"status":"ignored"}`, min: "member", ok: 200, bad: `{"status":"muted"}`},
	{name: "list group events", method: "GET", path: "/v1/groups/{group}/events", min: "viewer", ok: 200},
	{name: "assign group", method: "PATCH", path: "/v1/groups/{group}", body: `{"assignee_id":"{owner_member}"}`, min: "member", ok: 200, bad: `{"assignee_id":"mem_00000000000000000000000000"}`},
	{name: "list group activity", method: "GET", path: "/v1/groups/{group}/activity", min: "viewer", ok: 200},
	{name: "comment", method: "POST", path: "/v1/groups/{group}/comments", body: `{"body":"seen"}`, min: "member", ok: 201, bad: `{"body":""}`},
	{name: "bulk groups", method: "POST", path: "/v1/projects/{project}/groups/bulk", body: `{"ids":["{group}"],"set":{"status":"ignored"}}`, min: "member", ok: 200, bad: `{"ids":["{group}"]}`},
	{name: "list info summaries", method: "GET", path: "/v1/projects/{project}/info-summaries", min: "viewer", ok: 200},
	{name: "get info summary", method: "GET", path: "/v1/info-summaries/{summary}", min: "viewer", ok: 200},
}

// placeholders maps every placeholder of scopedOps to a value.
type placeholders map[string]string

func (p placeholders) fill(s string) string {
	for k, v := range p {
		s = strings.ReplaceAll(s, k, v)
	}
	return s
}

// fresh makes new resources in w's organization for the placeholders that
// op uses, so that one role's success does not spoil the next role's case.
func fresh(t *testing.T, s *apitest.Server, w apitest.World, op scopedOp) placeholders {
	t.Helper()
	p := placeholders{"{org}": w.OrgID, "{project}": w.ProjectID, "{email}": newEmail("invitee"), "{owner_member}": w.Owner.MemberID}
	all := op.path + op.body
	if strings.Contains(all, "{team}") {
		p["{team}"] = team(t, s, w)
	}
	if strings.Contains(all, "{project}") && op.method == "DELETE" {
		p["{project}"] = s.CreateProject(t, w.Owner.Token, w.OrgID, "doomed")
	}
	if strings.Contains(all, "{key}") {
		p["{key}"], _ = s.CreateKey(t, w.Owner.Token, w.ProjectID)
	}
	if strings.Contains(all, "{invitation}") {
		p["{invitation}"], _ = s.Invite(t, w.Owner.Token, w.OrgID, newEmail("pending"), "viewer")
	}
	if strings.Contains(all, "{member}") {
		p["{member}"] = s.AddMember(t, w.Owner.Token, w.OrgID, newEmail("target"), "viewer").MemberID
	}
	if strings.Contains(all, "{ticket}") || strings.Contains(all, "{group}") {
		p["{ticket}"], p["{group}"] = seedTicket(t, s, w.Owner.Token, w.ProjectID)
	}
	if strings.Contains(all, "{summary}") {
		p["{summary}"] = seedSummary(t, s, w.Owner.Token, w.ProjectID)
	}
	return p
}

// ingestKeys caches one API key per project for the seeds.
var ingestKeys sync.Map

func projectKey(t *testing.T, s *apitest.Server, token, projectID string) string {
	t.Helper()
	if k, ok := ingestKeys.Load(projectID); ok {
		return k.(string)
	}
	_, k := s.CreateKey(t, token, projectID)
	ingestKeys.Store(projectID, k)
	return k
}

// seedTicket ingests and processes an error of a new group and returns the
// ticket it opened and the group.
func seedTicket(t *testing.T, s *apitest.Server, token, projectID string) (ticketID, groupID string) {
	t.Helper()
	feed(t, s, projectKey(t, s, token, projectID), batchOf("api", fpEv(fmt.Sprintf("seed-%d", emailSeq.Add(1)), "error")))
	g := items(t, s, token, "/v1/projects/"+projectID+"/groups?limit=1")[0]
	return g["ticket_id"].(string), g["id"].(string)
}

// seedSummary ingests and processes an info event and returns the id of the
// current window's summary.
func seedSummary(t *testing.T, s *apitest.Server, token, projectID string) string {
	t.Helper()
	feed(t, s, projectKey(t, s, token, projectID), batchOf("api", ev("seeded", "info")))
	return items(t, s, token, "/v1/projects/"+projectID+"/info-summaries?limit=1")[0]["id"].(string)
}

// others names resources of w's other organization (owned by w.Outsider).
func others(t *testing.T, s *apitest.Server, w apitest.World) placeholders {
	t.Helper()
	keyID, _ := s.CreateKey(t, w.Outsider.Token, w.OtherProjectID)
	invID, _ := s.Invite(t, w.Outsider.Token, w.OtherOrgID, newEmail("other"), "viewer")
	ticketID, groupID := seedTicket(t, s, w.Outsider.Token, w.OtherProjectID)
	return placeholders{"{org}": w.OtherOrgID, "{team}": w.OtherOrgID, "{project}": w.OtherProjectID, "{key}": keyID,
		"{invitation}": invID, "{member}": s.MemberID(t, w.Outsider.Token, w.OtherOrgID, w.Outsider.UserID), "{email}": newEmail("x"),
		"{ticket}": ticketID, "{group}": groupID, "{summary}": seedSummary(t, s, w.Outsider.Token, w.OtherProjectID)}
}

func send(s *apitest.Server, method, path, token, body string) *apitest.Response {
	r := apitest.Request{Method: method, Path: path, Token: token}
	if body != "" {
		r.Body = body
	}
	return s.Do(r)
}

// TestRoleBoundaries runs every scoped operation as each of the four roles:
// roles below the minimum get 403 forbidden, the others succeed.
func TestRoleBoundaries(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		for _, op := range scopedOps {
			for _, role := range roleOrder {
				p := fresh(t, s, w, op)
				path, body := p.fill(op.path), p.fill(op.body)
				r := send(s, op.method, path, actorIn(w, role).Token, body)
				if rank(role) < rank(op.min) {
					if r.Status != http.StatusForbidden {
						t.Errorf("%s as %s: status = %d, want 403; body: %s", op.name, role, r.Status, r.Body)
						continue
					}
					r.Expect(t, http.StatusForbidden, "forbidden")
					continue
				}
				if r.Status != op.ok {
					t.Errorf("%s as %s: status = %d, want %d; body: %s", op.name, role, r.Status, op.ok, r.Body)
				}
			}
		}
	})
}

// TestOtherOrganizationIsNotFound: another organization's resources answer
// 404 not-found, never 403, in both directions and whatever the role.
func TestOtherOrganizationIsNotFound(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		theirs := others(t, s, w)
		for _, op := range scopedOps {
			// w.Owner is owner of its own organization only.
			send(s, op.method, theirs.fill(op.path), w.Owner.Token, theirs.fill(op.body)).Expect(t, http.StatusNotFound, "not-found")
			// w.Outsider once belonged to w's organization and left.
			ours := fresh(t, s, w, op)
			send(s, op.method, ours.fill(op.path), w.Outsider.Token, ours.fill(op.body)).Expect(t, http.StatusNotFound, "not-found")
		}
	})
}

// TestMalformedAndUnknownIDsAreNotFound covers ids that are malformed, carry
// another resource's prefix, or are well formed but unknown.
func TestMalformedAndUnknownIDsAreNotFound(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		variants := map[string]func(prefix string) string{
			"garbage":      func(string) string { return "nope" },
			"prefix only":  func(p string) string { return p },
			"bad body":     func(p string) string { return p + "!!!!" },
			"wrong prefix": func(string) string { return id.New(id.User) },
			"unknown":      func(p string) string { return id.New(p) },
			"other kind": func(p string) string {
				if p == id.Org {
					return w.ProjectID
				}
				return w.OrgID
			},
		}
		prefixes := map[string]string{"{org}": id.Org, "{team}": id.Org, "{project}": id.Project, "{key}": id.Key, "{invitation}": id.Invitation, "{member}": id.Member,
			"{ticket}": id.Ticket, "{group}": id.Group, "{summary}": id.InfoSummary}
		for vname, v := range variants {
			for _, op := range scopedOps {
				p := placeholders{"{email}": newEmail("nf")}
				for ph, pre := range prefixes {
					p[ph] = v(pre)
				}
				r := send(s, op.method, p.fill(op.path), w.Owner.Token, p.fill(op.body))
				if r.Status != http.StatusNotFound {
					t.Errorf("%s with %s id %s: status = %d, want 404; body: %s", op.name, vname, p.fill(op.path), r.Status, r.Body)
					continue
				}
				r.Expect(t, http.StatusNotFound, "not-found")
			}
		}
	})
}

// TestCredentials: every management endpoint refuses a missing, foreign,
// malformed, ended or expired credential with 401 unauthorized.
func TestCredentials(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		_, apiKey := s.CreateKey(t, w.Owner.Token, w.ProjectID)
		revokedID, revokedKey := s.CreateKey(t, w.Owner.Token, w.ProjectID)
		s.Do(apitest.Request{Method: "DELETE", Path: "/v1/keys/" + revokedID, Token: w.Owner.Token}).Expect(t, http.StatusNoContent, "")
		signedOut := s.AddMember(t, w.Owner.Token, w.OrgID, newEmail("out"), "owner")
		s.Do(apitest.Request{Method: "POST", Path: "/v1/auth/sign-out", Token: signedOut.Token}).Expect(t, http.StatusNoContent, "")
		expired := s.AddMember(t, w.Owner.Token, w.OrgID, newEmail("old"), "owner")
		expireSession(t, s, expired.Token)

		creds := []struct {
			name   string
			header string
		}{
			{"none", ""},
			{"basic", "Basic b3duZXJAZXhhbXBsZS5jb206Y29ycmVjdCBob3JzZSBiYXR0ZXJ5"},
			{"bearer without token", "Bearer "},
			{"bearer garbage", "Bearer not-a-session-token"},
			{"token without scheme", w.Owner.Token},
			{"project API key", "Bearer " + apiKey},
			{"revoked API key", "Bearer " + revokedKey},
			{"malformed API key", "Bearer svc_live_nonsense"},
			{"signed-out session", "Bearer " + signedOut.Token},
			{"expired session", "Bearer " + expired.Token},
		}
		ops := []scopedOp{
			{name: "session", method: "GET", path: "/v1/auth/session"},
			{name: "sign out", method: "POST", path: "/v1/auth/sign-out"},
			{name: "list orgs", method: "GET", path: "/v1/orgs"},
			{name: "create org", method: "POST", path: "/v1/orgs", body: `{"name":"x"}`},
			{name: "accept invitation", method: "POST", path: "/v1/invitations/accept", body: `{"token":"x"}`},
		}
		ops = append(ops, scopedOps...)
		for _, op := range ops {
			p := fresh(t, s, w, op)
			for _, c := range creds {
				req := apitest.Request{Method: op.method, Path: p.fill(op.path)}
				if op.body != "" {
					req.Body = p.fill(op.body)
				}
				if c.header != "" {
					req.Headers = map[string]string{"Authorization": c.header}
				}
				r := s.Do(req)
				if r.Status != http.StatusUnauthorized {
					t.Errorf("%s with %s: status = %d, want 401; body: %s", op.name, c.name, r.Status, r.Body)
					continue
				}
				r.Expect(t, http.StatusUnauthorized, "unauthorized")
			}
		}
		// The scheme is case-insensitive; the session itself still works.
		s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs", Headers: map[string]string{"Authorization": "bearer " + w.Owner.Token}}).Expect(t, http.StatusOK, "")
	})
}

// TestCheckOrder follows CONTRACT 6: 401, then 404, then 403, then 400, then 422.
func TestCheckOrder(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		const badJSON = `{"name": `
		for _, op := range scopedOps {
			if op.bad == "" {
				continue
			}
			for _, c := range []struct {
				who    string
				token  string
				theirs bool
				body   string
				status int
				code   string
			}{
				{"nobody, bad JSON, other org", "", true, badJSON, 401, "unauthorized"},
				{"nobody, invalid body", "", false, op.bad, 401, "unauthorized"},
				{"outsider, bad JSON", w.Outsider.Token, false, badJSON, 404, "not-found"},
				{"outsider, invalid body", w.Outsider.Token, false, op.bad, 404, "not-found"},
				{"viewer, bad JSON", w.Viewer.Token, false, badJSON, 403, "forbidden"},
				{"viewer, invalid body", w.Viewer.Token, false, op.bad, 403, "forbidden"},
				{"minimum role, bad JSON", actorIn(w, op.min).Token, false, badJSON, 400, "malformed-body"},
				{"minimum role, invalid body", actorIn(w, op.min).Token, false, op.bad, 422, "validation-failed"},
			} {
				p := fresh(t, s, w, op)
				if c.theirs {
					p = placeholders{"{org}": w.OtherOrgID, "{project}": w.OtherProjectID, "{member}": id.New(id.Member), "{email}": newEmail("o"),
						"{ticket}": id.New(id.Ticket), "{group}": id.New(id.Group)}
				}
				r := send(s, op.method, p.fill(op.path), c.token, p.fill(c.body))
				if r.Status != c.status {
					t.Errorf("%s as %s: status = %d, want %d; body: %s", op.name, c.who, r.Status, c.status, r.Body)
					continue
				}
				r.Expect(t, c.status, c.code)
			}
		}
		// A list's bad limit is 422 for a member, 404 for an outsider.
		s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs/" + w.OrgID + "/projects?limit=0", Token: w.Outsider.Token}).Expect(t, http.StatusNotFound, "not-found")
		s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs/" + w.OrgID + "/projects?limit=0"}).Expect(t, http.StatusUnauthorized, "unauthorized")
		s.Do(apitest.Request{Method: "GET", Path: "/v1/orgs/" + w.OrgID + "/projects?limit=0", Token: w.Viewer.Token}).Expect(t, http.StatusUnprocessableEntity, "validation-failed")
	})
}

// TestRouteProblems: unknown routes and wrong methods are problems too.
func TestRouteProblems(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		s.Do(apitest.Request{Method: "PUT", Path: "/v1/orgs/" + w.OrgID, Token: w.Owner.Token, Body: `{"name":"x"}`}).Expect(t, http.StatusMethodNotAllowed, "method-not-allowed")
		s.Do(apitest.Request{Method: "POST", Path: "/v1/keys/key_x", Token: w.Owner.Token}).Expect(t, http.StatusMethodNotAllowed, "method-not-allowed")
		s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.ProjectID + "/nothing", Token: w.Owner.Token}).Expect(t, http.StatusNotFound, "not-found")
	})
}
