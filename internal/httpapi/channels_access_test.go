package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/id"
)

// notifyOps are the channel, delivery, settings and digest operations, with
// the placeholders {project}, {member}, {url}, {channel} (an email
// channel), {webhook} (a webhook channel) and {delivery} (a finished
// delivery of the webhook channel).
var notifyOps = []scopedOp{
	{name: "list channels", method: "GET", path: "/v1/projects/{project}/channels", min: "viewer", ok: 200},
	{name: "create email channel", method: "POST", path: "/v1/projects/{project}/channels", body: `{"member_id":"{member}","name":"mail","type":"email"}`, min: "admin", ok: 201},
	{name: "create webhook channel", method: "POST", path: "/v1/projects/{project}/channels", body: `{"member_id":"{member}","name":"hook","type":"webhook","url":"{url}"}`, min: "admin", ok: 201},
	{name: "get channel", method: "GET", path: "/v1/channels/{channel}", min: "viewer", ok: 200},
	{name: "rename channel", method: "PATCH", path: "/v1/channels/{channel}", body: `{"name":"renamed"}`, min: "admin", ok: 200},
	{name: "disable channel", method: "PATCH", path: "/v1/channels/{webhook}", body: `{"enabled":false}`, min: "admin", ok: 200},
	{name: "delete channel", method: "DELETE", path: "/v1/channels/{channel}", min: "admin", ok: 204},
	{name: "rotate secret", method: "POST", path: "/v1/channels/{webhook}/rotate-secret", min: "admin", ok: 200},
	{name: "test channel", method: "POST", path: "/v1/channels/{webhook}/test", min: "member", ok: 200},
	{name: "list deliveries", method: "GET", path: "/v1/channels/{webhook}/deliveries", min: "viewer", ok: 200},
	{name: "redeliver", method: "POST", path: "/v1/deliveries/{delivery}/redeliver", min: "admin", ok: 202},
	{name: "get notification settings", method: "GET", path: "/v1/projects/{project}/notification-settings", min: "viewer", ok: 200},
	{name: "put notification settings", method: "PUT", path: "/v1/projects/{project}/notification-settings",
		body: `{"digest":{"enabled":true,"frequency":"weekly","hour":7,"weekday":"sunday","timezone":"Europe/Berlin"}}`, min: "admin", ok: 200},
	{name: "list digests", method: "GET", path: "/v1/projects/{project}/digests", min: "viewer", ok: 200},
	{name: "send digest", method: "POST", path: "/v1/projects/{project}/digests", min: "admin", ok: 201},
}

// notifyFixtures makes a fresh project of an organization with an email
// channel and a webhook channel to url, and, when op needs one, a finished
// delivery. token is an admin's of the organization and memberID a member
// of it.
func notifyFixtures(t *testing.T, s *apitest.Server, token, orgID, memberID, url string, op scopedOp) placeholders {
	t.Helper()
	prj := s.CreateProject(t, token, orgID, "notify")
	p := placeholders{"{project}": prj, "{member}": memberID, "{url}": url,
		"{channel}": createChannel(t, s, token, prj, emailChannel(memberID, "mail"))["id"].(string),
		"{webhook}": createChannel(t, s, token, prj, webhookChannel(memberID, "hook", url))["id"].(string)}
	if strings.Contains(op.path, "{delivery}") {
		sendDigest(t, s, token, prj)
		deliverDue(t, s)
		d := deliveries(t, s, token, p["{webhook}"])
		if len(d) != 1 || d[0]["status"] != "delivered" {
			t.Fatalf("deliveries of the fixture = %v, want one delivered", d)
		}
		p["{delivery}"] = d[0]["id"].(string)
	}
	return p
}

// TestNotifyRoleBoundaries: channels are read by viewers, tested by members,
// and created, changed, deleted and rotated by admins, as are settings and
// digests sent on demand (CONTRACT 2 and 6).
func TestNotifyRoleBoundaries(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		rc := newReceiver(t, http.StatusOK)
		for _, op := range notifyOps {
			for _, role := range roleOrder {
				p := notifyFixtures(t, s, w.Owner.Token, w.OrgID, w.Member.MemberID, rc.URL, op)
				r := send(s, op.method, p.fill(op.path), actorIn(w, role).Token, p.fill(op.body))
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
	}, allowPrivate)
}

// TestNotifyOtherOrganizationIsNotFound: another organization's channels,
// deliveries, settings and digests are 404 not-found, whatever the role.
func TestNotifyOtherOrganizationIsNotFound(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		rc := newReceiver(t, http.StatusOK)
		outsider := s.MemberID(t, w.Outsider.Token, w.OtherOrgID, w.Outsider.UserID)
		for _, op := range notifyOps {
			theirs := notifyFixtures(t, s, w.Outsider.Token, w.OtherOrgID, outsider, rc.URL, op)
			theirs["{member}"] = w.Owner.MemberID // a member of ours: still their project
			send(s, op.method, theirs.fill(op.path), w.Owner.Token, theirs.fill(op.body)).Expect(t, http.StatusNotFound, "not-found")
			ours := notifyFixtures(t, s, w.Owner.Token, w.OrgID, w.Member.MemberID, rc.URL, op)
			send(s, op.method, ours.fill(op.path), w.Outsider.Token, ours.fill(op.body)).Expect(t, http.StatusNotFound, "not-found")
			// Neither side's resource changed hands or went away.
			if strings.Contains(op.path, "{webhook}") || strings.Contains(op.path, "{channel}") {
				getChannel(t, s, w.Outsider.Token, theirs["{channel}"])
				getChannel(t, s, w.Owner.Token, ours["{channel}"])
			}
		}
	}, allowPrivate)
}

// TestNotifyUnknownIDs: malformed, wrongly prefixed and unknown identifiers
// are 404 not-found; a delivery id may be dlv_ or tst_.
func TestNotifyUnknownIDs(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		for _, v := range []struct {
			name              string
			channel, delivery string
		}{
			{"garbage", "nope", "nope"},
			{"prefix only", id.Channel, id.Delivery},
			{"unknown", id.New(id.Channel), id.New(id.Delivery)},
			{"unknown test delivery", id.New(id.Channel), id.New(id.TestDelivery)},
			{"other kind", w.ProjectID, w.OrgID},
		} {
			p := placeholders{"{project}": w.ProjectID, "{member}": w.Member.MemberID, "{url}": "https://hooks.example.com/x",
				"{channel}": v.channel, "{webhook}": v.channel, "{delivery}": v.delivery}
			for _, op := range notifyOps {
				if !strings.Contains(op.path, "{channel}") && !strings.Contains(op.path, "{webhook}") && !strings.Contains(op.path, "{delivery}") {
					continue
				}
				r := send(s, op.method, p.fill(op.path), w.Owner.Token, p.fill(op.body))
				if r.Status != http.StatusNotFound {
					t.Errorf("%s with %s id: status = %d, want 404; body: %s", op.name, v.name, r.Status, r.Body)
					continue
				}
				r.Expect(t, http.StatusNotFound, "not-found")
			}
		}
		s.Do(apitest.Request{Method: "GET", Path: channelsPath(id.New(id.Project)), Token: w.Owner.Token}).Expect(t, http.StatusNotFound, "not-found")
	})
}

// TestNotifyCheckOrder follows CONTRACT 6 on the channel operations with a
// body: 401, then 404, then 403, then 400, then 422.
func TestNotifyCheckOrder(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		rc := newReceiver(t, http.StatusOK)
		p := notifyFixtures(t, s, w.Owner.Token, w.OrgID, w.Member.MemberID, rc.URL, scopedOp{})
		const badJSON = `{"name": `
		for _, op := range []struct {
			name, method, path, bad string
		}{
			{"create channel", "POST", "/v1/projects/{project}/channels", `{"member_id":"{member}","name":"","type":"email"}`},
			{"patch channel", "PATCH", "/v1/channels/{webhook}", `{"name":""}`},
			{"put settings", "PUT", "/v1/projects/{project}/notification-settings", `{"digest":{"enabled":true,"frequency":"daily","hour":24,"timezone":"UTC"}}`},
		} {
			for _, c := range []struct {
				who, token, body string
				status           int
				code             string
			}{
				{"nobody", "", badJSON, 401, "unauthorized"},
				{"outsider", w.Outsider.Token, badJSON, 404, "not-found"},
				{"member", w.Member.Token, badJSON, 403, "forbidden"},
				{"viewer with an invalid body", w.Viewer.Token, op.bad, 403, "forbidden"},
				{"admin with bad JSON", w.Admin.Token, badJSON, 400, "malformed-body"},
				{"admin with an invalid body", w.Admin.Token, op.bad, 422, "validation-failed"},
			} {
				r := send(s, op.method, p.fill(op.path), c.token, p.fill(c.body))
				if r.Status != c.status {
					t.Errorf("%s as %s: status = %d, want %d; body: %s", op.name, c.who, r.Status, c.status, r.Body)
					continue
				}
				r.Expect(t, c.status, c.code)
			}
		}
	}, allowPrivate)
}
