package httpapi

import (
	"context"
	"net/http"
	"reflect"
	"slices"
	"strconv"

	"github.com/danielgtaylor/huma/v2"

	"github.com/errata-dev/errata/internal/httpserver"
	"github.com/errata-dev/errata/internal/org"
	"github.com/errata-dev/errata/internal/text"
)

// routes is the route table: every operation, its credential and its minimum
// role, in one place.
func (s *Server) routes() {
	public := Access{Public: true}
	signedIn := Access{}
	in := func(scope string, min org.Role) Access { return Access{Scope: scope, Min: min} }

	// Identity (CONTRACT 2).
	register(s, describe(withErrs(post("/v1/auth/sign-up/email", "sign-up", "Sign up", "Auth", http.StatusOK), 403, 409),
		"With invitation_token the account takes the invitation's address (whatever email says), verified by the invitation's link. Otherwise, "+
			"when the server sends email, the address gets a verification link and stays unverified until it is opened."), public, s.signUp)
	register(s, describe(withErrs(post("/v1/auth/sign-in/email", "sign-in", "Sign in", "Auth", http.StatusOK), 401),
		"An account with two-factor sign-in needs code (a TOTP or recovery code): without it 401 totp-required, a wrong or used one 401 invalid-credentials. "+
			"Failed sign-ins, wrong codes included, are rate limited per address and per client (429 rate-limited). A successful sign-in takes one of the account's 30 an hour "+
			"(429 rate-limited with Retry-After past them; sign-up is not counted), and a user holds at most 100 sessions: a new one ends the oldest."), public, s.signIn)
	register(s, post("/v1/auth/sign-out", "sign-out", "Sign out", "Auth", http.StatusNoContent), signedIn, s.signOut)
	register(s, get("/v1/auth/session", "get-session", "Get the current session", "Auth"), signedIn, s.getSession)
	register(s, get("/v1/auth/tokens", "list-tokens", "List your personal API tokens", "Auth"), signedIn, s.listTokens)
	register(s, describe(post("/v1/auth/tokens", "create-token", "Create a personal API token", "Auth", http.StatusCreated),
		"The token acts as you within its scopes and your roles (403 insufficient-scope otherwise), on /v1 and on the Sentry web API subset under /api/0 "+
			"(docs/sourcemaps.md). It is shown only in this answer. Only a session can manage tokens."), signedIn, s.createToken)
	register(s, withErrs(del("/v1/auth/tokens/{token_id}", "delete-token", "Delete (revoke) one of your personal API tokens", "Auth"), 404), signedIn, s.deleteToken)
	s.totpRoutes(signedIn)
	s.verificationRoutes(public, signedIn)
	register(s, get("/v1/auth/sessions", "list-sessions", "List your sessions", "Auth"), signedIn, s.listSessions)
	register(s, describe(withErrs(del("/v1/auth/sessions/{session_id}", "end-session", "End one of your sessions", "Auth"), 404),
		"Signs that session out at once; ending the current one is signing out. Another user's session is 404 not-found."), signedIn, s.endSession)
	register(s, describe(post("/v1/auth/password", "change-password", "Change your password", "Auth", http.StatusNoContent),
		"Ends every other session of the account. A wrong current_password is 422 naming it, and counts in the sign-in failure limit (429 rate-limited)."),
		signedIn, s.changePassword)

	// Organizations.
	register(s, get("/v1/orgs", "list-orgs", "List your organizations", "Organizations"), signedIn, s.listOrgs)
	register(s, post("/v1/orgs", "create-org", "Create an organization", "Organizations", http.StatusCreated), signedIn, s.createOrg)
	register(s, get("/v1/orgs/{org_id}", "get-org", "Get an organization", "Organizations"), in("org_id", org.Viewer), s.getOrg)
	register(s, describe(withErrs(patch("/v1/orgs/{org_id}", "update-org", "Rename an organization or change its sign-in rules", "Organizations"), 409),
		"require_2fa: true needs two-factor sign-in on your own account (403 2fa-required); sso_required: true needs your session to have signed in "+
			"through single sign-on (403 sso-required)."), in("org_id", org.Owner), s.updateOrg)
	register(s, del("/v1/orgs/{org_id}", "delete-org", "Delete an organization and everything in it", "Organizations"), in("org_id", org.Owner), s.deleteOrg)

	register(s, describe(get("/v1/orgs/{org_id}/audit-log", "list-audit-log", "List the organization's audit log", "Organizations"),
		"Newest first; kept one year. Sign-ins (successful and failed) of members, sessions ended, role changes, invitations, keys and tokens, "+
			"channels, settings, single sign-on and two-factor changes, deleted projects and grouping rules."), in("org_id", org.Admin), s.listAuditLog)

	// Members: anyone may leave; the service checks the finer owner rules.
	register(s, get("/v1/orgs/{org_id}/members", "list-members", "List members", "Members"), in("org_id", org.Viewer), s.listMembers)
	register(s, describe(withErrs(patch("/v1/members/{member_id}", "update-member", "Change a member's role", "Members"), 409),
		"Making an owner, or changing an owner's role, takes the owner role (403 forbidden below it); the last owner cannot be demoted (409 last-owner)."),
		in("member_id", org.Admin), s.updateMember)
	register(s, describe(withErrs(del("/v1/members/{member_id}", "delete-member", "Remove a member, or leave", "Members"), 409),
		"Anyone may leave (their own membership); removing another member takes the admin role, and removing an owner the owner role (403 forbidden below it); the last owner cannot leave (409 last-owner)."),
		in("member_id", org.Viewer), s.deleteMember)

	// Invitations.
	register(s, get("/v1/orgs/{org_id}/invitations", "list-invitations", "List invitations", "Invitations"), in("org_id", org.Viewer), s.listInvitations)
	register(s, describe(withErrs(post("/v1/orgs/{org_id}/invitations", "create-invitation", "Invite someone", "Invitations", http.StatusCreated), 409),
		"An organization sends at most 20 invitations an hour and 100 a day, whoever sends them: past either, 429 rate-limited with Retry-After "+
			"and nothing is created. The email is normalised (docs/decisions.md); look-alike addresses are 422 naming email."), in("org_id", org.Admin), s.createInvitation)
	register(s, withErrs(del("/v1/invitations/{invitation_id}", "revoke-invitation", "Revoke an invitation", "Invitations"), 409), in("invitation_id", org.Admin), s.revokeInvitation)
	register(s, describe(withErrs(post("/v1/invitations/accept", "accept-invitation", "Accept an invitation", "Invitations", http.StatusOK), 409),
		"An invitation binds to its address: another account's is 403 invitation-email-mismatch, and the account of that address must have verified "+
			"it first (403 email-unverified)."), signedIn, s.acceptInvitation)

	// Projects.
	register(s, get("/v1/orgs/{org_id}/projects", "list-projects", "List projects", "Projects"), in("org_id", org.Viewer), s.listProjects)
	register(s, get("/v1/orgs/{org_id}/lookup", "lookup", "Find error groups and events by trace id or event id", "Error groups"), in("org_id", org.Viewer), s.lookup)
	register(s, post("/v1/orgs/{org_id}/projects", "create-project", "Create a project", "Projects", http.StatusCreated), in("org_id", org.Admin), s.createProject)
	register(s, get("/v1/projects/{project_id}", "get-project", "Get a project", "Projects"), in("project_id", org.Viewer), s.getProject)
	register(s, withErrs(patch("/v1/projects/{project_id}", "update-project", "Rename a project", "Projects"), 409), in("project_id", org.Admin), s.updateProject)
	register(s, del("/v1/projects/{project_id}", "delete-project", "Delete a project", "Projects"), in("project_id", org.Admin), s.deleteProject)

	// Releases (CONTRACT 8): made by sentry-cli (/api/0, docs/sourcemaps.md)
	// or by the events that name them.
	register(s, get("/v1/projects/{project_id}/releases", "list-releases", "List a project's releases", "Releases"), in("project_id", org.Viewer), s.listReleases)
	register(s, get("/v1/releases/{release_id}", "get-release", "Get a release", "Releases"), in("release_id", org.Viewer), s.getRelease)

	// Project API keys.
	register(s, get("/v1/projects/{project_id}/keys", "list-keys", "List API keys", "API keys"), in("project_id", org.Viewer), s.listKeys)
	register(s, post("/v1/projects/{project_id}/keys", "create-key", "Create an API key", "API keys", http.StatusCreated), in("project_id", org.Admin), s.createKey)
	register(s, patch("/v1/keys/{key_id}", "update-key", "Rename an API key or set its allowed origins", "API keys"), in("key_id", org.Admin), s.updateKey)
	register(s, del("/v1/keys/{key_id}", "revoke-key", "Revoke an API key", "API keys"), in("key_id", org.Admin), s.revokeKey)

	// Tickets, error groups and INFO summaries (CONTRACT 4): read by viewers,
	// changed by members.
	register(s, get("/v1/projects/{project_id}/tickets", "list-tickets", "List tickets", "Tickets"), in("project_id", org.Viewer), s.listTickets)
	register(s, get("/v1/tickets/{ticket_id}", "get-ticket", "Get a ticket", "Tickets"), in("ticket_id", org.Viewer), s.getTicket)
	register(s, withErrs(patch("/v1/tickets/{ticket_id}", "update-ticket", "Resolve or reopen a ticket", "Tickets"), 409), in("ticket_id", org.MemberRole), s.updateTicket)
	register(s, del("/v1/tickets/{ticket_id}", "delete-ticket", "Delete a ticket", "Tickets"), in("ticket_id", org.MemberRole), s.deleteTicket)
	register(s, get("/v1/projects/{project_id}/groups", "list-groups", "List error groups", "Error groups"), in("project_id", org.Viewer), s.listGroups)
	register(s, get("/v1/groups/{group_id}", "get-group", "Get an error group", "Error groups"), in("group_id", org.Viewer), s.getGroup)
	register(s, withErrs(describe(patch("/v1/groups/{group_id}", "update-group", "Resolve, ignore, unresolve or assign an error group", "Error groups"),
		"Any of status (with ignore, a condition that ends an ignore, or resolved_in, the release it is resolved in) and assignee_id (a member of "+
			"the project's organization, or null). The change is atomic and recorded in the group's activity with the caller as actor; "+
			"a new assignee other than the caller gets an email when SMTP is set. A group merged into another is 409 conflict: change the one it was merged into."), 409),
		in("group_id", org.MemberRole), s.updateGroup)
	register(s, withErrs(post("/v1/groups/{group_id}/merge", "merge-groups", "Merge error groups into this one", "Error groups", http.StatusOK), 409), in("group_id", org.MemberRole), s.mergeGroups)
	register(s, get("/v1/groups/{group_id}/events", "list-group-events", "List an error group's sample events", "Error groups"), in("group_id", org.Viewer), s.listGroupEvents)
	register(s, describe(get("/v1/projects/{project_id}/grouping-rules", "get-grouping-rules", "Get the project's grouping rules", "Error groups"),
		"Fingerprint rules and stack trace rules in Sentry's syntax (docs/grouping.md); empty when none."), in("project_id", org.Viewer), s.getGroupingRules)
	register(s, describe(op(http.MethodPut, "/v1/projects/{project_id}/grouping-rules", "put-grouping-rules", "Set the project's grouping rules", "Error groups", http.StatusOK),
		"Replaces both texts. Fingerprint rules: matchers (error.type, error.value, message, logger, level, tags.<key>, stack.function, "+
			"stack.module, stack.abs_path, family, app; ! negates; globs) -> fingerprint values (literals, {{ default }}, {{ error.type }}, …), "+
			"optionally title=\"…\". Stack trace rules: matchers then +app, -app, +group, -group (^ toward the crash, v away from it). "+
			"A rule that does not parse is 422 validation-failed naming the field and its line (\"stack_trace: line 3: …\"). "+
			"The rules apply to the events processed after the change; existing groups keep their events."),
		in("project_id", org.Admin), s.putGroupingRules)
	// Working the errors as a team (CONTRACT 8).
	register(s, describe(get("/v1/groups/{group_id}/activity", "list-group-activity", "List an error group's activity, newest first", "Error groups"),
		"What processing (actor null) and people did to the group: first_seen, regression, spike, resolved, unresolved, ignored, unignored, "+
			"assigned, unassigned, comment (data.comment_id, data.body), merged, ticket_opened, ticket_resolved."), in("group_id", org.Viewer), s.listActivity)
	register(s, post("/v1/groups/{group_id}/comments", "create-comment", "Comment on an error group", "Error groups", http.StatusCreated), in("group_id", org.MemberRole), s.createComment)
	register(s, patch("/v1/comments/{comment_id}", "update-comment", "Edit a comment (its author or an admin)", "Error groups"), Access{Scope: "comment_id", Min: org.MemberRole, AuthorOr: org.Admin}, s.updateComment)
	register(s, del("/v1/comments/{comment_id}", "delete-comment", "Delete a comment (its author or an admin)", "Error groups"), Access{Scope: "comment_id", Min: org.MemberRole, AuthorOr: org.Admin}, s.deleteComment)
	register(s, describe(post("/v1/projects/{project_id}/groups/bulk", "bulk-groups", "Change or merge many error groups", "Error groups", http.StatusOK),
		"ids (at most 1,000) or query (at most 10,000 matches), with set (the fields of the group PATCH) or merge: true (ids only). "+
			"Each group's change is atomic and recorded in its activity; matched counts the groups found, updated those changed."),
		in("project_id", org.MemberRole), s.bulkGroups)
	register(s, get("/v1/events/{event_id}", "get-event", "Get a stored event whole", "Error groups"), in("event_id", org.Viewer), s.getEvent)
	register(s, describe(get("/v1/groups/{group_id}/facets", "get-group-facets", "Count an error group's attribute values", "Error groups"),
		"While processing has a backlog, value counts are added to their groups once a second, so they may lag the group's event_count by about a second; "+
			"without one they are exact as soon as the events are processed. user_count, key:value search and the look-up by id follow the same rule."),
		in("group_id", org.Viewer), s.groupFacets)
	register(s, get("/v1/projects/{project_id}/info-summaries", "list-info-summaries", "List INFO summaries", "INFO summaries"), in("project_id", org.Viewer), s.listSummaries)
	register(s, get("/v1/info-summaries/{summary_id}", "get-info-summary", "Get an INFO summary", "INFO summaries"), in("summary_id", org.Viewer), s.getSummary)

	// Channels and deliveries (CONTRACT 5 and 6): read by viewers, tested by
	// members, everything else by admins.
	register(s, get("/v1/projects/{project_id}/channels", "list-channels", "List channels", "Channels"), in("project_id", org.Viewer), s.listChannels)
	register(s, exactErrs(post("/v1/projects/{project_id}/channels", "create-channel", "Create a channel", "Channels", http.StatusCreated),
		400, 401, 403, 404, 422, 429), in("project_id", org.Admin), s.createChannel)
	register(s, get("/v1/channels/{channel_id}", "get-channel", "Get a channel", "Channels"), in("channel_id", org.Viewer), s.getChannel)
	register(s, patch("/v1/channels/{channel_id}", "update-channel", "Rename, enable, disable or re-target a channel", "Channels"), in("channel_id", org.Admin), s.updateChannel)
	register(s, del("/v1/channels/{channel_id}", "delete-channel", "Delete a channel", "Channels"), in("channel_id", org.Admin), s.deleteChannel)
	register(s, withErrs(post("/v1/channels/{channel_id}/rotate-secret", "rotate-channel-secret", "Rotate a webhook channel's signing secret", "Channels", http.StatusOK), 409),
		in("channel_id", org.Admin), s.rotateSecret)
	register(s, describe(withErrs(post("/v1/channels/{channel_id}/test", "test-channel", "Send a test delivery and wait for its outcome", "Channels", http.StatusOK), 409),
		"An email channel waiting for its address's confirmation is 409 channel-pending-confirmation, and one its recipient unsubscribed "+
			"from 409 channel-unsubscribed: nothing is sent to them, a test neither."), in("channel_id", org.MemberRole), s.testChannel)
	register(s, describe(withErrs(post("/v1/channels/{channel_id}/confirmation", "resend-channel-confirmation", "Send an email channel's confirmation email again",
		"Channels", http.StatusOK), 409), "A new link replaces the previous one. At most once per channel per 10 minutes, and 20 confirmation emails per "+
		"organization an hour and 100 a day (429 rate-limited with Retry-After). A channel that is not waiting for a confirmation is 409 conflict."),
		in("channel_id", org.Admin), s.resendConfirmation)
	register(s, get("/v1/channels/{channel_id}/deliveries", "list-deliveries", "List a channel's deliveries with their attempts", "Channels"), in("channel_id", org.Viewer), s.listDeliveries)
	register(s, withErrs(post("/v1/deliveries/{delivery_id}/redeliver", "redeliver", "Deliver again under the same identifier", "Channels", http.StatusAccepted), 409),
		in("delivery_id", org.Admin), s.redeliver)

	// Notification settings and digests.
	register(s, get("/v1/projects/{project_id}/notification-settings", "get-notification-settings", "Get the digest schedule", "Notifications"), in("project_id", org.Viewer), s.getSettings)
	register(s, op(http.MethodPut, "/v1/projects/{project_id}/notification-settings", "put-notification-settings", "Set the digest schedule", "Notifications", http.StatusOK),
		in("project_id", org.Admin), s.putSettings)
	register(s, get("/v1/projects/{project_id}/digests", "list-digests", "List the digests sent", "Notifications"), in("project_id", org.Viewer), s.listDigests)
	register(s, describe(post("/v1/projects/{project_id}/digests", "send-digest", "Send the digest of the period since the last one now", "Notifications", http.StatusCreated),
		"At most once per project per 10 minutes: 429 rate-limited with Retry-After, nothing sent."), in("project_id", org.Admin), s.sendDigest)
}

func op(method, path, id, summary, tag string, status int) huma.Operation {
	return huma.Operation{Method: method, Path: path, OperationID: id, Summary: summary, Tags: []string{tag}, DefaultStatus: status}
}

func get(path, id, summary, tag string) huma.Operation {
	return op(http.MethodGet, path, id, summary, tag, http.StatusOK)
}

func post(path, id, summary, tag string, status int) huma.Operation {
	return op(http.MethodPost, path, id, summary, tag, status)
}

func patch(path, id, summary, tag string) huma.Operation {
	return op(http.MethodPatch, path, id, summary, tag, http.StatusOK)
}

func del(path, id, summary, tag string) huma.Operation {
	return op(http.MethodDelete, path, id, summary, tag, http.StatusNoContent)
}

// describe sets an operation's description.
func describe(o huma.Operation, text string) huma.Operation {
	o.Description = text
	return o
}

// withErrs documents further problem statuses of an operation.
func withErrs(o huma.Operation, statuses ...int) huma.Operation {
	o.Errors = append(o.Errors, statuses...)
	return o
}

// exactErrs documents exactly these problem statuses (CONTRACT 6 fixes
// channel creation's six).
func exactErrs(o huma.Operation, statuses ...int) huma.Operation {
	o.Errors = statuses
	o.Metadata = map[string]any{"exactErrors": true}
	return o
}

// registered is operation o as the OpenAPI document holds it once
// registered (nil when it does not).
func registered(api huma.API, o huma.Operation) *huma.Operation {
	p := api.OpenAPI().Paths[o.Path]
	if p == nil {
		return nil
	}
	return map[string]*huma.Operation{http.MethodGet: p.Get, http.MethodPost: p.Post, http.MethodPut: p.Put, http.MethodPatch: p.Patch, http.MethodDelete: p.Delete}[o.Method]
}

// maxBody is the management API's body limit (CONTRACT 6): 1 MiB. huma
// refuses a body that reaches its limit, hence the extra byte.
const maxBody = 1<<20 + 1

// register adds one operation with its access rule and the problem answers
// it can give, so that the OpenAPI document lists them.
func register[I, O any](s *Server, o huma.Operation, a Access, h func(context.Context, *I) (*O, error)) {
	h = answered(h)
	exact := o.Metadata["exactErrors"] == true
	a.TokenScope = tokenScope(o.Method, o.Path)
	o.Metadata = map[string]any{"access": a}
	o.MaxBodyBytes = maxBody
	o.BodyReadTimeout = s.readBody
	o.Security = []map[string][]string{} // public: security [] says so rather than leaving it unsaid
	if !a.Public {
		o.Security = []map[string][]string{{httpserver.SchemeSession: {}}}
	}
	documentAccess(&o, a)
	defer access403(s.api, o, a)
	if exact {
		documented := slices.Clone(o.Errors)
		huma.Register(s.api, o, h)
		// huma adds 500 to every operation that lists errors; an exact
		// list is what the contract fixes (CONTRACT 6: six for channel
		// creation).
		if op := registered(s.api, o); op != nil {
			for code := range op.Responses {
				if n, err := strconv.Atoi(code); err == nil && n >= 400 && !slices.Contains(documented, n) {
					delete(op.Responses, code)
				}
			}
		}
		return
	}
	errs := append(o.Errors, http.StatusTooManyRequests)
	if !a.Public {
		// 403 for every operation that takes a credential: a role too low,
		// or an API token whose scopes do not cover it (insufficient-scope;
		// /v1/auth/* takes sessions only).
		errs = append(errs, http.StatusUnauthorized, http.StatusForbidden)
	}
	if a.Scope != "" {
		errs = append(errs, http.StatusNotFound)
	}
	if _, body := reflect.TypeFor[I]().FieldByName("Body"); body { // huma reads no body otherwise
		errs = append(errs, http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType)
	}
	// 503 unavailable with Retry-After: the database unreachable or read-only
	// (CONTRACT 7), which every operation but the exact lists can meet.
	errs = append(errs, http.StatusUnprocessableEntity, http.StatusServiceUnavailable)
	o.Errors = errs
	huma.Register(s.api, o, h)
}

// answered refuses an input holding a control character (text.Walk: every
// path, query and body string of every operation, 422 naming the field,
// after huma's own 400 and 422 checks and before the handler; CONTRACT 8)
// and makes a handler's error a problem through the one mapping before
// huma sees it: huma writes the headers only of errors that carry them
// (Retry-After of a 503 unavailable, of a 429).
func answered[I, O any](h func(context.Context, *I) (*O, error)) func(context.Context, *I) (*O, error) {
	return func(ctx context.Context, in *I) (*O, error) {
		err := text.Walk(in)
		var out *O
		if err == nil {
			out, err = h(ctx, in)
		}
		if err != nil {
			return nil, httpserver.Problem(ctx, err)
		}
		return out, nil
	}
}
