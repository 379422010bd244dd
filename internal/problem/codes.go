package problem

import (
	"net/http"
	"sort"
)

// Code is one documented error code: the last segment of a problem's type.
type Code struct {
	Name   string
	Status int
	Title  string
	// Explain is the text of the code's documentation page.
	Explain string
	// Fix tells a client what to do about it.
	Fix string
}

// The codes Errata answers with. Spec section 7 names most; CONTRACT.md adds
// the rest.
var codes = []Code{
	{"unauthorized", 401, "Unauthorized", "The request carries no credential, an invalid one, or the wrong kind for the endpoint: ingestion endpoints take a project API key (svc_live_…), every other endpoint a session token.", "Send the right credential as Authorization: Bearer <credential>."},
	{"invalid-credentials", 401, "Invalid credentials", "The email address and password do not match an account. The answer is the same for an unknown address and a wrong password.", "Check the address and password; after repeated failures wait for the Retry-After time."},
	{"totp-required", 401, "Two-factor code required", "The email address and password are right, and the account signs in with a second factor: the sign-in needs the authenticator app's current 6-digit code, or one of the account's recovery codes, as code.", "Send the sign-in again with code set."},
	{"2fa-required", 403, "Two-factor sign-in required", "The organization requires two-factor sign-in (require_2fa) and your account has none, or you tried to require it without having it yourself.", "Turn on two-factor sign-in for your account (POST /v1/auth/totp, then POST /v1/auth/totp/confirm) and retry."},
	{"invitation-email-mismatch", 403, "Invitation for another address", "An invitation binds to the address it was sent to: only the account with that address accepts it.", "Sign in with the invited address's account, or ask for an invitation to your own address."},
	{"email-unverified", 403, "Email address not verified", "Your account's email address is not verified yet: it cannot accept invitations and receives no channel email.", "Open the link of the verification email (POST /v1/auth/verify-email/send sends a new one)."},
	{"sso-required", 403, "Single sign-on required", "The organization requires single sign-on (sso_required): its resources answer only sessions that signed in through the OpenID Connect provider, and personal API tokens made from such a session.", "Sign out and sign in again with single sign-on; for a token, make a new one while signed in through it."},
	{"forbidden", 403, "Forbidden", "Your role in the organization is too low for this operation. Roles, lowest to highest: viewer, member, admin, owner.", "Ask an admin or owner of the organization."},
	{"insufficient-scope", 403, "Insufficient scope", "The request was made with a personal API token whose scopes do not cover this operation. A token acts as its user within its scopes and the user's roles.", "Create a token with the scope the detail names."},
	{"csrf-origin-rejected", 403, "Cross-origin request rejected", "A state-changing request authenticated by the dashboard cookie did not come from the dashboard's own origin.", "Scripts should send the session token as a bearer token instead of the cookie."},
	{"sign-up-closed", 403, "Sign-up closed", "This server accepts new accounts only with an invitation token (ERRATA_SIGNUP=invite-only).", "Ask an organization admin for an invitation."},
	{"plan-limit-reached", 403, "Plan limit reached", "The organization's plan does not allow more of this resource.", "Delete something unused or move the organization to a larger plan."},
	{"channel-type-not-allowed", 403, "Channel type not allowed", "The organization's plan does not allow channels of this type (webhooks need the team plan).", "Use an email channel or move to the team plan."},
	{"not-found", 404, "Not found", "The resource or route does not exist, or it belongs to an organization you are not a member of.", "Check the identifier and the path."},
	{"method-not-allowed", 405, "Method not allowed", "The route exists but not with this HTTP method. The Allow header lists the methods it takes.", "Use one of the methods in the Allow header."},
	{"email-taken", 409, "Email taken", "An account with this email address already exists.", "Sign in instead, or use another address."},
	{"last-owner", 409, "Last owner", "The organization must keep at least one owner: the last owner cannot leave or be demoted.", "Promote another member to owner first."},
	{"already-member", 409, "Already a member", "The signed-in user is already a member of the invitation's organization.", "Nothing to do; the invitation stays pending for someone else or can be revoked."},
	{"invitation-invalid", 422, "Invitation not valid", "The invitation token is unknown, expired, revoked or already used. The detail says which.", "Ask an admin of the organization for a new invitation."},
	{"channel-pending-confirmation", 409, "Channel pending confirmation", "The email channel's address is not the email of a member of the organization, and its owner has not yet opened the link of the confirmation email Errata sent it. Until then nothing is sent to the address: no ticket, digest or test email.", "Ask the owner of the address to open the link; an admin can send the confirmation email again (POST /v1/channels/{channel_id}/confirmation)."},
	{"channel-unsubscribed", 409, "Channel unsubscribed", "The owner of the email channel's address stopped it with the one-click unsubscribe link of one of its emails. Nothing is sent to the address until the channel is enabled again.", "Enable the channel again (PATCH enabled: true); unless the address is a member's, its owner is asked to confirm again."},
	{"delivery-pending", 409, "Delivery pending", "A redelivery was asked for while the delivery is still being attempted.", "Wait for the current attempts to finish."},
	{"conflict", 409, "Conflict", "The request conflicts with the current state of the resource.", "Read the resource again and retry."},
	{"malformed-body", 400, "Malformed body", "The body is not valid JSON (or, for ingestion, not valid gzip or UTF-8).", "Send a well-formed JSON body."},
	{"payload-too-large", 413, "Payload too large", "The request body is over the limit: 1 MiB for management endpoints; 5 MiB on the wire or 20 MiB decompressed for ingestion.", "Send fewer events per batch, or a smaller body."},
	{"unsupported-encoding", 415, "Unsupported encoding", "Content-Encoding must be gzip, identity or absent.", "Send the body uncompressed or gzip-compressed."},
	{"unsupported-media-type", 415, "Unsupported media type", "Content-Type must be application/json.", "Send Content-Type: application/json."},
	{"validation-failed", 422, "Validation failed", "A field is missing or invalid. The detail names the first offending field, for example events[3].level.", "Correct the named field and resend."},
	{"invalid-webhook-url", 422, "Invalid webhook URL", "The webhook URL breaks a rule: https only; no credentials or fragment; port 443 or 1024–65535; a public host that resolves only to public addresses.", "Use a public https URL. To try a receiver on your own machine (errata receive), the server's operator can allow private and loopback addresses with ERRATA_WEBHOOK_ALLOW_PRIVATE=true (never on a server others use)."},
	{"rate-limited", 429, "Rate limited", "A rate limit was hit. The response carries Retry-After (seconds) and the RateLimit-* headers.", "Wait Retry-After seconds and resend the same request."},
	{"channel-test-rate-limited", 429, "Channel test rate limited", "A channel can be tested once a minute.", "Wait Retry-After seconds."},
	{"internal", 500, "Internal error", "The server failed. The error is logged with the request id given as instance.", "Retry with backoff; report the instance id if it persists."},
	{"unavailable", 503, "Unavailable", "The server cannot reach its database, or the database is read-only or out of space, for now. Nothing was accepted or changed, unless the detail says the database became unavailable while committing: then the change may have been made, and a resend of events may store them twice.", "Wait Retry-After seconds and resend the same request."},
	{"overloaded", 503, "Overloaded", "The server is shedding load: its unprocessed backlog or its free disk crossed a threshold.", "Wait Retry-After seconds and resend."},
}

var byName = func() map[string]Code {
	m := make(map[string]Code, len(codes))
	for _, c := range codes {
		m[c.Name] = c
	}
	return m
}()

// Lookup returns the documented code with this name.
func Lookup(name string) (Code, bool) {
	c, ok := byName[name]
	return c, ok
}

// All returns every documented code, sorted by status then name.
func All() []Code {
	out := append([]Code(nil), codes...)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Status != out[j].Status {
			return out[i].Status < out[j].Status
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// ForStatus names the generic code of an HTTP status, for errors raised by
// the framework rather than by our own code.
func ForStatus(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "malformed-body"
	case http.StatusUnauthorized:
		return "unauthorized"
	case http.StatusForbidden:
		return "forbidden"
	case http.StatusNotFound:
		return "not-found"
	case http.StatusMethodNotAllowed:
		return "method-not-allowed"
	case http.StatusConflict:
		return "conflict"
	case http.StatusRequestEntityTooLarge:
		return "payload-too-large"
	case http.StatusUnsupportedMediaType:
		return "unsupported-media-type"
	case http.StatusUnprocessableEntity:
		return "validation-failed"
	case http.StatusTooManyRequests:
		return "rate-limited"
	case http.StatusServiceUnavailable:
		return "overloaded"
	default:
		return "internal"
	}
}
