package web_test

// Control characters in the dashboard's forms and list filters (CONTRACT 8):
// the forms go through the same services as the API, so a control
// character in a text field shows the form again with its message, and one
// anywhere else is refused; never a 500, and nothing is stored.

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/text"
)

// webControlChars are NUL, BEL, ESC, DEL and NEL (a C1 control).
var webControlChars = []string{"\x00", "\a", "\x1b", "\x7f", "\u0085"}

// formRow is one dashboard form: its action and a valid submission, with
// placeholders ({org}, {project}, {channel}, {member}, {group}, {other},
// {invitation_token}). Each field of fields is sent with each control
// character in turn.
type formRow struct {
	name, action string
	base         url.Values
	fields       []string
	signedOut    bool
	// shown is a fragment of the form shown again with the message ("" for
	// an error page: fields a person does not type, as a select's value).
	shown string
}

var formRows = []formRow{
	{name: "sign up", action: "/sign-up", base: url.Values{"email": {"new@example.com"}, "name": {"New"}, "password": {"long enough"}},
		fields: []string{"email", "name"}, signedOut: true, shown: `action="/sign-up"`},
	{name: "sign in", action: "/sign-in", base: url.Values{"email": {"owner@example.com"}, "password": {apitest.Password}},
		fields: []string{"email"}, signedOut: true, shown: `action="/sign-in"`},
	{name: "accept and sign up", action: "/invitations/accept", base: url.Values{"token": {"{invitation_token}"}, "name": {"Invited"}, "password": {"long enough"}},
		fields: []string{"name"}, signedOut: true, shown: `action="/invitations/accept"`},
	{name: "create organization", action: "/orgs", base: url.Values{"name": {"Two"}}, fields: []string{"name"}, shown: `action="/orgs"`},
	{name: "rename organization", action: "/orgs/{org}/rename", base: url.Values{"name": {"Acme"}}, fields: []string{"name"}, shown: `action="/orgs/{org}/rename"`},
	{name: "create project", action: "/orgs/{org}/projects", base: url.Values{"name": {"api"}}, fields: []string{"name"}, shown: `action="/orgs/{org}/projects"`},
	{name: "invite", action: "/orgs/{org}/invitations", base: url.Values{"email": {"invitee@example.com"}, "role": {"viewer"}},
		fields: []string{"email"}, shown: `action="/orgs/{org}/invitations"`},
	{name: "invite role", action: "/orgs/{org}/invitations", base: url.Values{"email": {"invitee@example.com"}, "role": {"viewer"}}, fields: []string{"role"}},
	{name: "change role", action: "/members/{member}/role", base: url.Values{"role": {"member"}}, fields: []string{"role"}},
	{name: "create key", action: "/projects/{project}/keys", base: url.Values{"name": {"ci"}}, fields: []string{"name"}, shown: `action="/projects/{project}/keys"`},
	{name: "create email channel", action: "/projects/{project}/channels", base: url.Values{"type": {"email"}, "name": {"ops"}},
		fields: []string{"name", "email", "environments", "services"}, shown: `action="/projects/{project}/channels"`},
	{name: "create webhook channel", action: "/projects/{project}/channels", base: url.Values{"type": {"webhook"}, "name": {"hook"}, "url": {"https://hooks.example.com/x"}},
		fields: []string{"name", "url", "environments", "services"}, shown: `action="/projects/{project}/channels"`},
	{name: "create channel choices", action: "/projects/{project}/channels", base: url.Values{"type": {"webhook"}, "name": {"hook"}, "url": {"https://hooks.example.com/x"}},
		fields: []string{"type", "format", "min_severity"}},
	{name: "edit channel", action: "/channels/{channel}/edit", base: url.Values{"name": {"ops"}, "email": {"owner@example.com"}},
		fields: []string{"name", "email", "environments", "services"}, shown: `action="/channels/{channel}/edit"`},
	{name: "edit channel choices", action: "/channels/{channel}/edit", base: url.Values{"name": {"ops"}, "email": {"owner@example.com"}}, fields: []string{"min_severity"}},
	{name: "notifications", action: "/projects/{project}/notifications", base: url.Values{"enabled": {"1"}, "frequency": {"daily"}, "hour": {"9"}, "timezone": {"UTC"}},
		fields: []string{"frequency", "hour", "weekday", "timezone"}, shown: `action="/projects/{project}/notifications"`},
	{name: "grouping rules", action: "/projects/{project}/grouping-rules", base: url.Values{"fingerprint": {"error.type:A -> a"}, "stack_trace": {"stack.function:f -group"}},
		fields: []string{"fingerprint", "stack_trace"}, shown: `action="/projects/{project}/grouping-rules"`},
	{name: "merge groups", action: "/projects/{project}/groups/merge", base: url.Values{"group_ids": {"{group}", "{other}"}}, fields: []string{"group_ids"}},
	{name: "group status", action: "/groups/{group}/status", base: url.Values{"status": {"ignored"}}, fields: []string{"status"}},
	{name: "ignore condition", action: "/groups/{group}/status", base: url.Values{"status": {"ignored"}, "ignore": {"window"}, "ignore_count": {"5"}, "ignore_window": {"1h"}},
		fields: []string{"ignore", "ignore_window"}},
	{name: "assign group", action: "/groups/{group}/assign", base: url.Values{"assignee_id": {"{member}"}}, fields: []string{"assignee_id"}},
	{name: "comment", action: "/groups/{group}/comments", base: url.Values{"body": {"looking"}}, fields: []string{"body"}},
	{name: "bulk bar", action: "/projects/{project}/groups/bulk", base: url.Values{"group_ids": {"{group}"}, "action": {"resolve"}}, fields: []string{"group_ids", "action"}},
}

// listRows are list pages and the filters of their address.
var listRows = []struct {
	path   string
	params []string
}{
	{"/projects/{project}/tickets", []string{"status", "severity", "service", "environment", "sort", "cursor"}},
	{"/projects/{project}/groups", []string{"status", "service", "environment", "query", "sort", "cursor"}},
	{"/projects/{project}/summaries", []string{"from", "to", "cursor"}},
	{"/projects/{project}/channels", []string{"before"}},
	{"/channels/{channel}", []string{"before", "tested"}},
}

func TestControlCharactersInForms(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		_ = seedTicket(t, s, w.Owner.Token, w.ProjectID, "first failure", "error")
		_ = seedTicket(t, s, w.Owner.Token, w.ProjectID, "second failure", "error")
		groups := s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.ProjectID + "/groups", Token: w.Owner.Token}).Expect(t, http.StatusOK, "").JSON(t)["data"].([]any)
		ch := s.Do(apitest.Request{Method: "POST", Path: "/v1/projects/" + w.ProjectID + "/channels", Token: w.Owner.Token,
			Body: map[string]any{"member_id": w.Owner.MemberID, "name": "ops", "type": "email"}}).Expect(t, http.StatusCreated, "").JSON(t)
		_, invToken := s.Invite(t, w.Owner.Token, w.OrgID, "invited@example.com", "viewer")
		fill := strings.NewReplacer("{org}", w.OrgID, "{project}", w.ProjectID, "{channel}", ch["id"].(string), "{member}", w.Viewer.MemberID,
			"{group}", groups[0].(map[string]any)["id"].(string), "{other}", groups[1].(map[string]any)["id"].(string), "{invitation_token}", invToken).Replace

		owner := newBrowser(t, s)
		owner.signIn(w.Owner.Email)
		for _, row := range formRows {
			b := owner
			if row.signedOut {
				b = newBrowser(t, s)
			}
			for _, field := range row.fields {
				for _, c := range webControlChars {
					form := url.Values{}
					for k, vs := range row.base {
						for _, v := range vs {
							form.Add(k, fill(v))
						}
					}
					form.Set(field, "ok"+c+"ok")
					if field == "group_ids" {
						form.Add(field, fill("{group}"))
					}
					p := b.post(fill(row.action), form)
					if p.Status < 400 || p.Status >= 500 {
						t.Errorf("%s: %s with %q: status %d, want a 4xx; body: %.300s", row.name, field, c, p.Status, p.Body)
						continue
					}
					if row.shown != "" && (!strings.Contains(p.Body, fill(row.shown)) || !strings.Contains(p.Body, `role="alert"`)) {
						t.Errorf("%s: %s with %q: status %d without the form and its message; body: %.300s", row.name, field, c, p.Status, p.Body)
					}
				}
			}
		}
		for _, l := range listRows {
			for _, param := range l.params {
				for _, c := range webControlChars {
					path := fill(l.path) + "?" + url.Values{param: {"ok" + c + "ok"}}.Encode()
					p := owner.get(path)
					if p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Body, param+": must not contain control characters") {
						t.Errorf("GET %s: status %d, want 422 naming %s; body: %.300s", path, p.Status, param, p.Body)
					}
				}
			}
		}
		// Nothing refused was stored.
		for _, path := range []string{"/v1/orgs", "/v1/orgs/" + w.OrgID + "/members", "/v1/orgs/" + w.OrgID + "/projects", "/v1/orgs/" + w.OrgID + "/invitations",
			"/v1/projects/" + w.ProjectID + "/keys", "/v1/projects/" + w.ProjectID + "/channels", "/v1/projects/" + w.ProjectID + "/notification-settings"} {
			var v any
			r := s.Do(apitest.Request{Method: "GET", Path: path + "?limit=100", Token: w.Owner.Token}).Expect(t, http.StatusOK, "")
			if err := json.Unmarshal(r.Body, &v); err != nil {
				t.Fatal(err)
			}
			if err := text.Walk(v); err != nil {
				t.Errorf("GET %s holds a control character: %v", path, err)
			}
		}
	})
}
