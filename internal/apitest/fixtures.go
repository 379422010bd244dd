package apitest

import (
	"net/http"
	"testing"
)

// Actor is a signed-in user.
type Actor struct {
	Token, UserID, Email, MemberID string
}

// Password is every fixture user's password.
const Password = "correct horse battery"

// SignUp signs up a user (the first one, or any with open sign-up).
func (s *Server) SignUp(t testing.TB, email string) Actor {
	t.Helper()
	r := s.Do(Request{Method: "POST", Path: "/v1/auth/sign-up/email", Body: map[string]any{"email": email, "password": Password, "name": "User " + email}}).
		Expect(t, http.StatusOK, "")
	return actorOf(t, r)
}

func actorOf(t testing.TB, r *Response) Actor {
	user, _ := r.JSON(t)["user"].(map[string]any)
	return Actor{Token: r.Str(t, "token"), UserID: user["id"].(string), Email: user["email"].(string)}
}

// CreateOrg makes an organization owned by token's user and returns its id.
func (s *Server) CreateOrg(t testing.TB, token, name string) string {
	t.Helper()
	return s.Do(Request{Method: "POST", Path: "/v1/orgs", Token: token, Body: map[string]any{"name": name}}).
		Expect(t, http.StatusCreated, "").Str(t, "id")
}

// Invite invites email to orgID with role and returns the invitation's id
// and token.
func (s *Server) Invite(t testing.TB, adminToken, orgID, email, role string) (string, string) {
	t.Helper()
	r := s.Do(Request{Method: "POST", Path: "/v1/orgs/" + orgID + "/invitations", Token: adminToken, Body: map[string]any{"email": email, "role": role}}).
		Expect(t, http.StatusCreated, "")
	return r.Str(t, "id"), r.Str(t, "token")
}

// AddMember invites a new user with role and signs them up with the token.
func (s *Server) AddMember(t testing.TB, adminToken, orgID, email, role string) Actor {
	t.Helper()
	_, tok := s.Invite(t, adminToken, orgID, email, role)
	r := s.Do(Request{Method: "POST", Path: "/v1/auth/sign-up/email", Body: map[string]any{"email": email, "password": Password, "name": "User " + email, "invitation_token": tok}}).
		Expect(t, http.StatusOK, "")
	a := actorOf(t, r)
	a.MemberID = s.MemberID(t, a.Token, orgID, a.UserID)
	return a
}

// MemberID finds userID's member id in orgID.
func (s *Server) MemberID(t testing.TB, token, orgID, userID string) string {
	t.Helper()
	r := s.Do(Request{Method: "GET", Path: "/v1/orgs/" + orgID + "/members?limit=100", Token: token}).Expect(t, http.StatusOK, "")
	for _, m := range r.JSON(t)["data"].([]any) {
		m := m.(map[string]any)
		if m["user_id"] == userID {
			return m["id"].(string)
		}
	}
	t.Fatalf("user %s is not a member of %s", userID, orgID)
	return ""
}

// CreateProject makes a project and returns its id.
func (s *Server) CreateProject(t testing.TB, token, orgID, name string) string {
	t.Helper()
	return s.Do(Request{Method: "POST", Path: "/v1/orgs/" + orgID + "/projects", Token: token, Body: map[string]any{"name": name}}).
		Expect(t, http.StatusCreated, "").Str(t, "id")
}

// CreateKey makes an API key and returns its id and credential.
func (s *Server) CreateKey(t testing.TB, token, projectID string) (string, string) {
	t.Helper()
	r := s.Do(Request{Method: "POST", Path: "/v1/projects/" + projectID + "/keys", Token: token, Body: map[string]any{"name": "ci"}}).
		Expect(t, http.StatusCreated, "")
	return r.Str(t, "id"), r.Str(t, "key")
}

// CreateKeyDSN makes an API key and returns its id, credential and Sentry
// DSN, as the key creation answers them.
func (s *Server) CreateKeyDSN(t testing.TB, token, projectID string) (id, key, dsn string) {
	t.Helper()
	r := s.Do(Request{Method: "POST", Path: "/v1/projects/" + projectID + "/keys", Token: token, Body: map[string]any{"name": "sdk"}}).
		Expect(t, http.StatusCreated, "")
	return r.Str(t, "id"), r.Str(t, "key"), r.Str(t, "dsn")
}

// World is an organization with one member of every role and a project.
type World struct {
	OrgID, ProjectID             string
	Owner, Admin, Member, Viewer Actor
	OtherOrgID, OtherProjectID   string
	Outsider                     Actor // owner of the other organization only
}

// NewWorld builds a World (the server must be fresh: the owner signs up
// first).
func (s *Server) NewWorld(t testing.TB) World {
	t.Helper()
	w := World{Owner: s.SignUp(t, "owner@example.com")}
	w.OrgID = s.CreateOrg(t, w.Owner.Token, "Acme")
	w.Owner.MemberID = s.MemberID(t, w.Owner.Token, w.OrgID, w.Owner.UserID)
	w.Admin = s.AddMember(t, w.Owner.Token, w.OrgID, "admin@example.com", "admin")
	w.Member = s.AddMember(t, w.Owner.Token, w.OrgID, "member@example.com", "member")
	w.Viewer = s.AddMember(t, w.Owner.Token, w.OrgID, "viewer@example.com", "viewer")
	w.ProjectID = s.CreateProject(t, w.Owner.Token, w.OrgID, "web")
	w.Outsider = s.AddMember(t, w.Owner.Token, w.OrgID, "outsider@example.com", "viewer")
	s.Do(Request{Method: "DELETE", Path: "/v1/members/" + w.Outsider.MemberID, Token: w.Outsider.Token}).Expect(t, http.StatusNoContent, "")
	w.Outsider.MemberID = ""
	w.OtherOrgID = s.CreateOrg(t, w.Outsider.Token, "Other")
	w.OtherProjectID = s.CreateProject(t, w.Outsider.Token, w.OtherOrgID, "other")
	return w
}
