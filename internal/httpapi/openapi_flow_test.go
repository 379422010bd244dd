package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/config"
	"github.com/errata-dev/errata/internal/notify/digest"
	"github.com/errata-dev/errata/internal/store"
)

// TestOpenAPIResponsesMatch runs a realistic session against a real server
// and validates every answer, successes and problems, against the served
// document; then it checks that every operation has been seen succeeding and
// that every problem type answered points at a page.
func TestOpenAPIResponsesMatch(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		c := loadContract(t, s)
		do := func(method, path, token string, body any, status int, code string) *apitest.Response {
			t.Helper()
			return c.call(t, apitest.Request{Method: method, Path: path, Token: token, Body: body}, status, code)
		}
		signUp := func(email, invitation string) string {
			t.Helper()
			body := map[string]any{"email": email, "password": apitest.Password, "name": "User " + email}
			if invitation != "" {
				body["invitation_token"] = invitation
			}
			return do("POST", "/v1/auth/sign-up/email", "", body, http.StatusOK, "").Str(t, "token")
		}

		// Identity.
		owner := signUp("owner@example.com", "")
		signedIn := do("POST", "/v1/auth/sign-in/email", "", map[string]any{"email": "owner@example.com", "password": apitest.Password}, http.StatusOK, "")
		cookies := (&http.Response{Header: signedIn.Header}).Cookies()
		do("GET", "/v1/auth/session", owner, nil, http.StatusOK, "")

		// Organizations.
		orgID := do("POST", "/v1/orgs", owner, map[string]any{"name": "Acme"}, http.StatusCreated, "").Str(t, "id")
		do("GET", "/v1/orgs", owner, nil, http.StatusOK, "")
		do("GET", "/v1/orgs/"+orgID, owner, nil, http.StatusOK, "")
		do("PATCH", "/v1/orgs/"+orgID, owner, map[string]any{"name": "Acme Inc"}, http.StatusOK, "")

		// Projects, over two pages: next_cursor is a string, then null.
		prj := do("POST", "/v1/orgs/"+orgID+"/projects", owner, map[string]any{"name": "web"}, http.StatusCreated, "").Str(t, "id")
		do("POST", "/v1/orgs/"+orgID+"/projects", owner, map[string]any{"name": "api"}, http.StatusCreated, "")
		cursor := do("GET", "/v1/orgs/"+orgID+"/projects?limit=1", owner, nil, http.StatusOK, "").Str(t, "next_cursor")
		if cursor == "" {
			t.Fatal("the first of two pages has no next_cursor")
		}
		last := do("GET", "/v1/orgs/"+orgID+"/projects?limit=1&cursor="+url.QueryEscape(cursor), owner, nil, http.StatusOK, "").JSON(t)
		if next, ok := last["next_cursor"]; !ok || next != nil {
			t.Fatalf("last page next_cursor = %v (present %v), want null", next, ok)
		}
		do("GET", "/v1/projects/"+prj, owner, nil, http.StatusOK, "")
		do("PATCH", "/v1/projects/"+prj, owner, map[string]any{"name": "website"}, http.StatusOK, "")

		// API keys: last_used_at and revoked_at null, then revoked_at set.
		created := do("POST", "/v1/projects/"+prj+"/keys", owner, map[string]any{"name": "ci"}, http.StatusCreated, "")
		keyID, apiKey := created.Str(t, "id"), created.Str(t, "key")
		do("GET", "/v1/projects/"+prj+"/keys", owner, nil, http.StatusOK, "")
		if len(c.methodsAt("/v1/ingest")) > 0 { // spec 4.1, once ingestion is mounted
			live := do("POST", "/v1/projects/"+prj+"/keys", owner, map[string]any{"name": "ingest"}, http.StatusCreated, "").Str(t, "key")
			batch := map[string]any{"service": "web", "events": []any{map[string]any{"message": "boom", "level": "error"}}}
			c.call(t, apitest.Request{Method: "POST", Path: "/v1/ingest", Token: live, Body: batch}, http.StatusAccepted, "")
			c.call(t, apitest.Request{Method: "POST", Path: "/v1/ingest", Token: owner, Body: batch}, http.StatusUnauthorized, "unauthorized")
			c.call(t, apitest.Request{Method: "POST", Path: "/v1/ingest", Token: live, Body: map[string]any{"service": "web", "events": []any{}}}, http.StatusUnprocessableEntity, "validation-failed")
			processingFlow(t, c, owner, prj, live)
			otlpFlow(t, c, live)
		}
		do("PATCH", "/v1/keys/"+keyID, owner, map[string]any{"name": "ci", "allowed_origins": []string{"https://app.example.com"}}, http.StatusOK, "")
		do("DELETE", "/v1/keys/"+keyID, owner, nil, http.StatusNoContent, "")
		tokenFlow(t, c, owner, prj)
		do("GET", "/v1/projects/"+prj+"/keys", owner, nil, http.StatusOK, "")

		// Invitations and members.
		invited := do("POST", "/v1/orgs/"+orgID+"/invitations", owner, map[string]any{"email": "viewer@example.com", "role": "viewer"}, http.StatusCreated, "")
		do("GET", "/v1/orgs/"+orgID+"/invitations", owner, nil, http.StatusOK, "")
		viewer := signUp("viewer@example.com", invited.Str(t, "token"))
		var ownerMember, viewerMember string
		for _, m := range do("GET", "/v1/orgs/"+orgID+"/members", owner, nil, http.StatusOK, "").JSON(t)["data"].([]any) {
			m := m.(map[string]any)
			switch m["role"] {
			case "owner":
				ownerMember = m["id"].(string)
			case "viewer":
				viewerMember = m["id"].(string)
			}
		}
		do("PATCH", "/v1/members/"+viewerMember, owner, map[string]any{"role": "member"}, http.StatusOK, "")
		do("PATCH", "/v1/members/"+viewerMember, owner, map[string]any{"role": "viewer"}, http.StatusOK, "")
		gone := do("POST", "/v1/orgs/"+orgID+"/invitations", owner, map[string]any{"email": "gone@example.com"}, http.StatusCreated, "").Str(t, "id")
		do("DELETE", "/v1/invitations/"+gone, owner, nil, http.StatusNoContent, "")
		do("GET", "/v1/orgs/"+orgID+"/invitations", owner, nil, http.StatusOK, "")
		org2 := do("POST", "/v1/orgs", owner, map[string]any{"name": "Beta"}, http.StatusCreated, "").Str(t, "id")
		tok2 := do("POST", "/v1/orgs/"+org2+"/invitations", owner, map[string]any{"email": "viewer@example.com", "role": "member"}, http.StatusCreated, "").Str(t, "token")
		do("POST", "/v1/invitations/accept", viewer, map[string]any{"token": tok2}, http.StatusOK, "")
		notifyFlow(t, c, owner, viewer, prj, ownerMember)

		// Problems.
		do("GET", "/v1/orgs", "", nil, http.StatusUnauthorized, "unauthorized")
		do("GET", "/v1/orgs", apiKey, nil, http.StatusUnauthorized, "unauthorized")
		do("POST", "/v1/auth/sign-in/email", "", map[string]any{"email": "owner@example.com", "password": "wrong password"}, http.StatusUnauthorized, "invalid-credentials")
		do("POST", "/v1/auth/sign-up/email", "", map[string]any{"email": "new@example.com", "password": apitest.Password, "name": "N"}, http.StatusForbidden, "sign-up-closed")
		do("POST", "/v1/auth/sign-up/email", "", map[string]any{"email": "owner@example.com", "password": apitest.Password, "name": "O", "invitation_token": "x"}, http.StatusConflict, "email-taken")
		do("POST", "/v1/orgs/"+orgID+"/projects", viewer, map[string]any{"name": "x"}, http.StatusForbidden, "forbidden")
		do("GET", "/v1/orgs/"+unknownIDs["org_id"], owner, nil, http.StatusNotFound, "not-found")
		do("GET", "/v1/projects/"+unknownIDs["project_id"]+"/keys", owner, nil, http.StatusNotFound, "not-found")
		do("POST", "/v1/orgs", owner, map[string]any{"name": ""}, http.StatusUnprocessableEntity, "validation-failed")
		do("GET", "/v1/orgs?limit=0", owner, nil, http.StatusUnprocessableEntity, "validation-failed")
		do("GET", "/v1/orgs?cursor=bogus", owner, nil, http.StatusUnprocessableEntity, "validation-failed")
		do("POST", "/v1/invitations/accept", viewer, map[string]any{"token": "nope"}, http.StatusUnprocessableEntity, "invitation-invalid")
		do("POST", "/v1/orgs", owner, "{", http.StatusBadRequest, "malformed-body")
		do("POST", "/v1/orgs", owner, map[string]any{"name": strings.Repeat("a", 1<<20)}, http.StatusRequestEntityTooLarge, "payload-too-large")
		do("DELETE", "/v1/members/"+ownerMember, owner, nil, http.StatusConflict, "last-owner")
		c.call(t, apitest.Request{Method: "POST", Path: "/v1/orgs", Body: map[string]any{"name": "x"}, Cookies: cookies,
			Headers: map[string]string{"Origin": "https://evil.example"}}, http.StatusForbidden, "csrf-origin-rejected")

		identityFlow(t, c, owner, signedIn.Str(t, "token"), orgID)

		// Removals and sign-out.
		do("DELETE", "/v1/members/"+viewerMember, owner, nil, http.StatusNoContent, "")
		do("DELETE", "/v1/projects/"+prj, owner, nil, http.StatusNoContent, "")
		do("DELETE", "/v1/orgs/"+org2, owner, nil, http.StatusNoContent, "")
		do("POST", "/v1/auth/sign-out", owner, nil, http.StatusNoContent, "")

		for _, o := range c.operations() {
			seen := false
			for code := range o.op.Responses.Map() {
				seen = seen || strings.HasPrefix(code, "2") && c.answered[o.String()+" "+code]
			}
			if !seen {
				t.Errorf("%s: no successful answer was validated; add it to this flow", o)
			}
		}
		checkProblemPages(t, c)
	}, allowPrivate) // webhook receivers listen on loopback
}

// processingFlow ingests errors and INFO events, processes them and
// validates every answer of tickets, error groups and INFO summaries.
func processingFlow(t *testing.T, c *contract, owner, prj, key string) {
	t.Helper()
	do := func(method, path string, body any, status int, code string) *apitest.Response {
		t.Helper()
		return c.call(t, apitest.Request{Method: method, Path: path, Token: owner, Body: body}, status, code)
	}
	batch := map[string]any{"service": "web", "environment": "prod", "release": "1.2.3", "events": []any{
		map[string]any{"message": "user 7 signed in", "level": "info"},
		map[string]any{"message": "cache warmed in 12ms", "level": "debug"},
		map[string]any{"message": "payment 41 failed", "level": "fatal", "trace_id": "4bf92f3577b34da6a3ce929d0e0e4736",
			"attributes": map[string]any{"api_key": "s3cret", "order": 41}},
		map[string]any{"message": "payment 42 failed", "level": "fatal"},
		map[string]any{"message": "disk almost full", "level": "warn", "attributes": map[string]any{"fingerprint": []string{"disk", "{{ default }}"}}},
		map[string]any{"message": "boom", "level": "error", "stack_trace": "Traceback (most recent call last):\n  File \"app/pay.py\", line 3, in charge\n    raise ValueError(\"x\")\nValueError: x"},
	}}
	c.call(t, apitest.Request{Method: "POST", Path: "/v1/ingest", Token: key, Body: batch}, http.StatusAccepted, "")
	if err := c.s.App.Processor.Drain(context.Background()); err != nil {
		t.Fatalf("drain: %v", err)
	}

	// Tickets, over two pages.
	first := do("GET", "/v1/projects/"+prj+"/tickets?limit=1", nil, http.StatusOK, "")
	cursor := first.Str(t, "next_cursor")
	if cursor == "" {
		t.Fatal("the first page of tickets has no next_cursor")
	}
	do("GET", "/v1/projects/"+prj+"/tickets?limit=100&status=open&severity=critical&service=web&environment=prod", nil, http.StatusOK, "")
	do("GET", "/v1/projects/"+prj+"/tickets?limit=1&cursor="+url.QueryEscape(cursor), nil, http.StatusOK, "")
	do("GET", "/v1/projects/"+prj+"/tickets?severity=low", nil, http.StatusUnprocessableEntity, "validation-failed")
	tickets := do("GET", "/v1/projects/"+prj+"/tickets?limit=100", nil, http.StatusOK, "").JSON(t)["data"].([]any)
	if len(tickets) < 2 {
		t.Fatalf("tickets = %d, want at least 2", len(tickets))
	}
	tkt := tickets[0].(map[string]any)["id"].(string)
	doomed := tickets[1].(map[string]any)["id"].(string)
	do("GET", "/v1/tickets/"+tkt, nil, http.StatusOK, "")
	do("PATCH", "/v1/tickets/"+tkt, map[string]any{"status": "resolved"}, http.StatusOK, "") // resolved_at set
	do("PATCH", "/v1/tickets/"+tkt, map[string]any{"status": "open"}, http.StatusOK, "")
	do("PATCH", "/v1/tickets/"+tkt, map[string]any{"status": "closed"}, http.StatusUnprocessableEntity, "validation-failed")
	do("GET", "/v1/tickets/"+unknownIDs["ticket_id"], nil, http.StatusNotFound, "not-found")

	// A regression while the resolved ticket stays resolved: reopening it
	// conflicts with the regression's open ticket.
	stalled := map[string]any{"service": "web", "events": []any{map[string]any{"message": "queue 9 stalled", "level": "error"}}}
	ingestAndDrain := func() {
		t.Helper()
		c.call(t, apitest.Request{Method: "POST", Path: "/v1/ingest", Token: key, Body: stalled}, http.StatusAccepted, "")
		if err := c.s.App.Processor.Drain(context.Background()); err != nil {
			t.Fatalf("drain: %v", err)
		}
	}
	ingestAndDrain()
	old := do("GET", "/v1/projects/"+prj+"/tickets?limit=1", nil, http.StatusOK, "").JSON(t)["data"].([]any)[0].(map[string]any)["id"].(string)
	do("PATCH", "/v1/tickets/"+old, map[string]any{"status": "resolved"}, http.StatusOK, "")
	ingestAndDrain()
	do("PATCH", "/v1/tickets/"+old, map[string]any{"status": "open"}, http.StatusConflict, "conflict")

	// Error groups: one with a ticket, one whose ticket is deleted (null).
	groups := do("GET", "/v1/projects/"+prj+"/groups?limit=100", nil, http.StatusOK, "").JSON(t)["data"].([]any)
	do("GET", "/v1/projects/"+prj+"/groups?limit=1&status=unresolved&service=web&environment=prod", nil, http.StatusOK, "")
	do("DELETE", "/v1/tickets/"+doomed, nil, http.StatusNoContent, "")
	for _, g := range groups {
		gid := g.(map[string]any)["id"].(string)
		do("GET", "/v1/groups/"+gid, nil, http.StatusOK, "")
		do("GET", "/v1/groups/"+gid+"/events", nil, http.StatusOK, "")
	}
	gid := groups[0].(map[string]any)["id"].(string)
	do("GET", "/v1/groups/"+gid+"/events?limit=1", nil, http.StatusOK, "")
	do("GET", "/v1/groups/"+gid+"/facets", nil, http.StatusOK, "")
	sample := do("GET", "/v1/groups/"+gid+"/events?limit=1", nil, http.StatusOK, "").JSON(t)["data"].([]any)[0].(map[string]any)["id"].(string)
	do("GET", "/v1/events/"+sample, nil, http.StatusOK, "")
	orgID := do("GET", "/v1/projects/"+prj, nil, http.StatusOK, "").JSON(t)["organization_id"].(string)
	do("GET", "/v1/orgs/"+orgID+"/lookup?trace_id=4bf92f3577b34da6a3ce929d0e0e4736", nil, http.StatusOK, "")
	do("GET", "/v1/projects/"+prj+"/groups?query=payment+level:fatal&sort=users", nil, http.StatusOK, "")
	do("GET", "/v1/projects/"+prj+"/groups?query=level:", nil, http.StatusUnprocessableEntity, "validation-failed")
	do("PATCH", "/v1/groups/"+gid, map[string]any{"status": "ignored"}, http.StatusOK, "")
	do("PATCH", "/v1/groups/"+gid, map[string]any{"status": "resolved"}, http.StatusOK, "")
	do("PATCH", "/v1/groups/"+gid, map[string]any{"status": "unresolved"}, http.StatusOK, "")
	do("PATCH", "/v1/groups/"+gid, map[string]any{"status": "gone"}, http.StatusUnprocessableEntity, "validation-failed")
	if len(groups) > 1 {
		other := groups[1].(map[string]any)["id"].(string)
		do("POST", "/v1/groups/"+gid+"/merge", map[string]any{"group_ids": []string{}}, http.StatusUnprocessableEntity, "validation-failed")
		do("POST", "/v1/groups/"+gid+"/merge", map[string]any{"group_ids": []string{other}}, http.StatusOK, "")
		do("GET", "/v1/groups/"+other, nil, http.StatusOK, "")
	}
	do("GET", "/v1/projects/"+prj+"/groups", nil, http.StatusOK, "")
	teamFlow(t, c, owner, prj, gid)

	// INFO summaries.
	sums := do("GET", "/v1/projects/"+prj+"/info-summaries", nil, http.StatusOK, "").JSON(t)["data"].([]any)
	if len(sums) != 1 {
		t.Fatalf("info summaries = %d, want 1", len(sums))
	}
	do("GET", "/v1/projects/"+prj+"/info-summaries?from=2000-01-01T00:00:00.000Z&to=2000-01-02T00:00:00Z", nil, http.StatusOK, "")
	do("GET", "/v1/info-summaries/"+sums[0].(map[string]any)["id"].(string), nil, http.StatusOK, "")
	do("GET", "/v1/info-summaries/"+unknownIDs["summary_id"], nil, http.StatusNotFound, "not-found")
}

// teamFlow validates the answers of assignment, conditions, activity,
// comments and bulk actions (CONTRACT 8).
func teamFlow(t *testing.T, c *contract, owner, prj, gid string) {
	t.Helper()
	do := func(method, path string, body any, status int, code string) *apitest.Response {
		t.Helper()
		return c.call(t, apitest.Request{Method: method, Path: path, Token: owner, Body: body}, status, code)
	}
	orgID := do("GET", "/v1/projects/"+prj, nil, http.StatusOK, "").Str(t, "organization_id")
	me := do("GET", "/v1/orgs/"+orgID+"/members", nil, http.StatusOK, "").JSON(t)["data"].([]any)[0].(map[string]any)["id"].(string)
	do("PATCH", "/v1/groups/"+gid, map[string]any{"assignee_id": me}, http.StatusOK, "") // assignee set
	do("GET", "/v1/projects/"+prj+"/tickets", nil, http.StatusOK, "")                    // items with an assignee
	do("PATCH", "/v1/groups/"+gid, map[string]any{"assignee_id": unknownIDs["member_id"]}, http.StatusUnprocessableEntity, "validation-failed")
	do("PATCH", "/v1/groups/"+gid, map[string]any{"status": "ignored", "ignore": map[string]any{"events": 10, "window": "1h"}}, http.StatusOK, "")
	do("PATCH", "/v1/groups/"+gid, map[string]any{"status": "resolved", "resolved_in": "next"}, http.StatusOK, "")
	do("PATCH", "/v1/groups/"+gid, map[string]any{"assignee_id": nil, "status": "unresolved"}, http.StatusOK, "")
	cm := do("POST", "/v1/groups/"+gid+"/comments", map[string]any{"body": "looking at it"}, http.StatusCreated, "").Str(t, "id")
	do("POST", "/v1/groups/"+gid+"/comments", map[string]any{"body": ""}, http.StatusUnprocessableEntity, "validation-failed")
	do("PATCH", "/v1/comments/"+cm, map[string]any{"body": "fixed in 1.2.4"}, http.StatusOK, "")
	first := do("GET", "/v1/groups/"+gid+"/activity?limit=1", nil, http.StatusOK, "").Str(t, "next_cursor")
	do("GET", "/v1/groups/"+gid+"/activity?limit=100&cursor="+url.QueryEscape(first), nil, http.StatusOK, "")
	do("DELETE", "/v1/comments/"+cm, nil, http.StatusNoContent, "")
	do("DELETE", "/v1/comments/"+unknownIDs["comment_id"], nil, http.StatusNotFound, "not-found")
	do("POST", "/v1/projects/"+prj+"/groups/bulk", map[string]any{"ids": []string{gid}, "set": map[string]any{"status": "resolved"}, "unknown_field": 1}, http.StatusOK, "") // ignored, as in every body
	do("POST", "/v1/projects/"+prj+"/groups/bulk", map[string]any{"query": "is:resolved", "set": map[string]any{"status": "unresolved"}}, http.StatusOK, "")
	do("POST", "/v1/projects/"+prj+"/groups/bulk", map[string]any{"query": "is:resolved", "merge": true}, http.StatusUnprocessableEntity, "validation-failed")
}

// notifyFlow validates every answer of channels, deliveries, notification
// settings and digests, and the webhook bodies a real receiver gets.
func notifyFlow(t *testing.T, c *contract, owner, viewer, prj, memberID string) {
	t.Helper()
	do := func(method, path, token string, body any, status int, code string) *apitest.Response {
		t.Helper()
		return c.call(t, apitest.Request{Method: method, Path: path, Token: token, Body: body}, status, code)
	}
	rc := newReceiver(t, http.StatusOK)
	channels := "/v1/projects/" + prj + "/channels"

	// Channels: a webhook (its secret once), an email channel.
	hook := do("POST", channels, owner, webhookChannel(memberID, "hook", rc.URL), http.StatusCreated, "")
	hookID, secret := hook.Str(t, "id"), hook.Str(t, "signing_secret")
	mail := do("POST", channels, owner, map[string]any{"member_id": memberID, "name": "mail", "type": "email", "email": "ops@example.com"}, http.StatusCreated, "").Str(t, "id")
	do("POST", channels, owner, webhookChannel(memberID, "bad", "http://127.0.0.1:8443/x"), http.StatusUnprocessableEntity, "invalid-webhook-url")
	do("POST", channels, owner, webhookChannel(memberID, "", rc.URL), http.StatusUnprocessableEntity, "validation-failed")
	do("POST", channels, viewer, emailChannel(memberID, "x"), http.StatusForbidden, "forbidden")
	do("GET", channels, viewer, nil, http.StatusOK, "")
	do("GET", channels+"?limit=1", owner, nil, http.StatusOK, "")
	do("GET", "/v1/channels/"+hookID, viewer, nil, http.StatusOK, "")
	do("GET", "/v1/channels/"+unknownIDs["channel_id"], owner, nil, http.StatusNotFound, "not-found")
	do("PATCH", "/v1/channels/"+hookID, owner, map[string]any{"name": "ops hook"}, http.StatusOK, "")
	do("PATCH", "/v1/channels/"+mail, owner, map[string]any{"enabled": false}, http.StatusOK, "")
	do("PATCH", "/v1/channels/"+mail, owner, map[string]any{"enabled": true, "email": "alerts@example.com"}, http.StatusOK, "")
	// Not a member's address: pending, so no test; a new confirmation
	// email can be asked for (none goes out here: no SMTP server).
	// Without SMTP the answer says that email cannot be sent.
	if d := do("POST", "/v1/channels/"+mail+"/test", owner, nil, http.StatusConflict, "channel-pending-confirmation").Str(t, "detail"); !strings.Contains(d, "ERRATA_SMTP_URL is empty") {
		t.Errorf("pending channel's test without SMTP: %q, want it to say the confirmation cannot be sent", d)
	}
	do("POST", "/v1/channels/"+mail+"/confirmation", owner, nil, http.StatusOK, "")
	do("POST", "/v1/channels/"+hookID+"/confirmation", owner, nil, http.StatusConflict, "conflict")
	do("PATCH", "/v1/channels/"+mail, owner, map[string]any{"email": "owner@example.com"}, http.StatusOK, "") // a member's: confirmed
	do("PATCH", "/v1/channels/"+hookID, owner, map[string]any{"url": "https://127.0.0.1:80/x"}, http.StatusUnprocessableEntity, "invalid-webhook-url")
	do("POST", "/v1/channels/"+mail+"/rotate-secret", owner, nil, http.StatusConflict, "conflict")

	// A test, delivered, then refused within the minute; an email test
	// fails (no SMTP server): 200 all the same.
	do("POST", "/v1/channels/"+hookID+"/test", owner, nil, http.StatusOK, "")
	do("POST", "/v1/channels/"+hookID+"/test", owner, nil, http.StatusTooManyRequests, "channel-test-rate-limited")
	do("POST", "/v1/channels/"+mail+"/test", owner, nil, http.StatusOK, "")
	rotated := do("POST", "/v1/channels/"+hookID+"/rotate-secret", owner, nil, http.StatusOK, "").Str(t, "signing_secret")

	// Grouping rules: never set (updated_at null), set, refused at a line.
	rules := "/v1/projects/" + prj + "/grouping-rules"
	do("GET", rules, viewer, nil, http.StatusOK, "")
	do("PUT", rules, owner, map[string]any{"fingerprint": "error.type:Nope -> nope", "stack_trace": "stack.module:vendor.* -app"}, http.StatusOK, "")
	do("PUT", rules, owner, map[string]any{"fingerprint": "error.type:Nope nope"}, http.StatusUnprocessableEntity, "validation-failed")
	do("PUT", rules, viewer, map[string]any{}, http.StatusForbidden, "forbidden")
	do("GET", rules, viewer, nil, http.StatusOK, "")

	// Settings and digests.
	settings := "/v1/projects/" + prj + "/notification-settings"
	do("GET", settings, viewer, nil, http.StatusOK, "")
	weekly := map[string]any{"digest": map[string]any{"enabled": true, "frequency": "weekly", "hour": 7, "weekday": "sunday", "timezone": "Europe/Berlin"}}
	do("PUT", settings, owner, weekly, http.StatusOK, "")
	do("PUT", settings, owner, map[string]any{"digest": map[string]any{"enabled": false, "frequency": "daily", "hour": 9, "timezone": "UTC"}}, http.StatusOK, "") // next_digest_at null
	do("PUT", settings, owner, map[string]any{"digest": map[string]any{"enabled": true, "frequency": "daily", "hour": 9, "timezone": "Mars/Olympus"}}, http.StatusUnprocessableEntity, "validation-failed")
	do("PUT", settings, viewer, weekly, http.StatusForbidden, "forbidden")
	do("GET", settings, viewer, nil, http.StatusOK, "")
	digests := "/v1/projects/" + prj + "/digests"
	do("POST", digests, owner, nil, http.StatusCreated, "") // the processing flow's tickets and INFO summary, or nothing
	do("POST", digests, owner, nil, http.StatusTooManyRequests, "rate-limited")
	if err := c.s.App.DB.Write().ForgetQuota(context.Background(), digest.QuotaDigestNow, prj); err != nil { // 10 minutes later
		t.Fatal(err)
	}
	do("POST", digests, owner, nil, http.StatusCreated, "") // info null
	do("GET", digests, viewer, nil, http.StatusOK, "")
	do("GET", digests+"?limit=1", viewer, nil, http.StatusOK, "")

	// Deliveries: the digests, delivered to the webhook and failed by email.
	if _, err := c.s.App.Notify.DeliverDue(context.Background()); err != nil {
		t.Fatalf("deliver due: %v", err)
	}
	log := do("GET", "/v1/channels/"+hookID+"/deliveries", viewer, nil, http.StatusOK, "").JSON(t)["data"].([]any)
	do("GET", "/v1/channels/"+hookID+"/deliveries?limit=1", viewer, nil, http.StatusOK, "")
	do("GET", "/v1/channels/"+hookID+"/deliveries?limit=0", viewer, nil, http.StatusUnprocessableEntity, "validation-failed")
	mailLog := do("GET", "/v1/channels/"+mail+"/deliveries", viewer, nil, http.StatusOK, "").JSON(t)["data"].([]any)
	byEvent := func(list []any, event string) string {
		for _, d := range list {
			if d := d.(map[string]any); d["event"] == event {
				return d["id"].(string)
			}
		}
		t.Fatalf("no %s in the delivery log %v", event, list)
		return ""
	}
	dlv, tst := byEvent(log, "digest"), byEvent(log, "test")
	do("POST", "/v1/deliveries/"+dlv+"/redeliver", owner, nil, http.StatusAccepted, "")
	do("POST", "/v1/deliveries/"+dlv+"/redeliver", owner, nil, http.StatusConflict, "delivery-pending")
	do("POST", "/v1/deliveries/"+byEvent(mailLog, "digest")+"/redeliver", owner, nil, http.StatusAccepted, "") // failed: no SMTP server
	do("POST", "/v1/deliveries/"+tst+"/redeliver", owner, nil, http.StatusConflict, "conflict")
	do("POST", "/v1/deliveries/"+unknownIDs["delivery_id"]+"/redeliver", owner, nil, http.StatusNotFound, "not-found")
	if _, err := c.s.App.Notify.DeliverDue(context.Background()); err != nil {
		t.Fatalf("deliver due: %v", err)
	}
	do("GET", "/v1/channels/"+hookID+"/deliveries", viewer, nil, http.StatusOK, "") // two series

	// What the receiver got matches the document's webhooks.
	for _, h := range rc.got() {
		event := h.Header.Get("Service-Event")
		verified(t, h, event, secret, rotated)
		if err := c.checkWebhook(event, h.Body); err != nil {
			t.Errorf("%s webhook body does not match the document: %v\nbody: %s", event, err, h.Body)
		}
	}
	do("DELETE", "/v1/channels/"+mail, owner, nil, http.StatusNoContent, "")
	do("GET", "/v1/channels/"+mail, owner, nil, http.StatusNotFound, "not-found")
}

// TestOpenAPIRateLimitedAnswer validates a 429 answer.
func TestOpenAPIRateLimitedAnswer(t *testing.T) {
	s := apitest.Start(t, store.SQLite, func(c *config.Serve) { c.APIRateLimit, c.APIRateBurst = 0.001, 1 })
	c := loadContract(t, s) // takes the one request of the burst
	res := c.call(t, apitest.Request{Method: "GET", Path: "/v1/orgs"}, http.StatusTooManyRequests, "rate-limited")
	if res.Header.Get("Retry-After") == "" {
		t.Errorf("429 without Retry-After")
	}
}

// TestOpenAPIValidationCatchesDrift makes sure the validation is not
// vacuous: answers that break the document must be caught.
func TestOpenAPIValidationCatchesDrift(t *testing.T) {
	s := apitest.Start(t, store.SQLite)
	c := loadContract(t, s)
	tok := s.SignUp(t, "a@example.com").Token
	orgID := s.CreateOrg(t, tok, "Acme")
	getOrg := apitest.Request{Method: "GET", Path: "/v1/orgs/" + orgID, Token: tok}
	listOrgs := apitest.Request{Method: "GET", Path: "/v1/orgs", Token: tok}
	missing := apitest.Request{Method: "GET", Path: "/v1/orgs/" + unknownIDs["org_id"], Token: tok}
	org, list, notFound := s.Do(getOrg), s.Do(listOrgs), s.Do(missing)
	for _, x := range []struct {
		req apitest.Request
		res *apitest.Response
	}{{getOrg, org}, {listOrgs, list}, {missing, notFound}} {
		if err := c.check(x.req, x.res); err != nil {
			t.Fatalf("%s %s: untampered answer fails: %v", x.req.Method, x.req.Path, err)
		}
	}
	tamper := func(res *apitest.Response, status int, ct string, edit func(map[string]any)) *apitest.Response {
		m := res.JSON(t)
		edit(m)
		b, _ := json.Marshal(m)
		h := res.Header.Clone()
		h.Set("Content-Type", ct)
		return &apitest.Response{Status: status, Header: h, Body: b}
	}
	same := func(map[string]any) {}
	cases := []struct {
		name string
		req  apitest.Request
		res  *apitest.Response
	}{
		{"missing id", getOrg, tamper(org, 200, "application/json", func(m map[string]any) { delete(m, "id") })},
		{"number timestamp", getOrg, tamper(org, 200, "application/json", func(m map[string]any) { m["created_at"] = 5 })},
		{"timestamp without milliseconds", getOrg, tamper(org, 200, "application/json", func(m map[string]any) { m["created_at"] = "2026-01-02T03:04:05Z" })},
		{"not a timestamp", getOrg, tamper(org, 200, "application/json", func(m map[string]any) { m["created_at"] = "yesterday" })},
		{"null timestamp", getOrg, tamper(org, 200, "application/json", func(m map[string]any) { m["updated_at"] = nil })},
		{"unknown plan", getOrg, tamper(org, 200, "application/json", func(m map[string]any) { m["plan"] = "gold" })},
		{"null data", listOrgs, tamper(list, 200, "application/json", func(m map[string]any) { m["data"] = nil })},
		{"no next_cursor", listOrgs, tamper(list, 200, "application/json", func(m map[string]any) { delete(m, "next_cursor") })},
		{"$schema field", getOrg, tamper(org, 200, "application/json", func(m map[string]any) { m["$schema"] = "x" })},
		{"undocumented status", getOrg, tamper(org, http.StatusTeapot, "application/json", same)},
		{"wrong content type", getOrg, tamper(org, 200, "text/plain", same)},
		{"problem as JSON", missing, tamper(notFound, 404, "application/json", same)},
		{"problem without instance", missing, tamper(notFound, 404, "application/problem+json", func(m map[string]any) { delete(m, "instance") })},
		{"problem of unknown code", missing, tamper(notFound, 404, "application/problem+json", func(m map[string]any) { m["type"] = s.Config.DocsURL + "/errors/nope" })},
	}
	for _, tc := range cases {
		if err := c.check(tc.req, tc.res); err == nil {
			t.Errorf("%s: the validation accepted %d %s", tc.name, tc.res.Status, tc.res.Body)
		}
	}
}
