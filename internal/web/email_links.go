package web

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/errata-dev/errata/internal/notify"
	"github.com/errata-dev/errata/internal/problem"
)

// The links of Errata's emails that work without an account (CONTRACT 8):
// an email channel's confirmation link, and every channel email's one-click
// unsubscribe link (RFC 8058). Their tokens are the proof, so they need no
// session and the unsubscribe POST has no same-origin check: a mail client
// sends it from wherever it runs. The tokens are carried only in this
// site's addresses and forms; the request log names the path, never the
// query.

// emailLinkData fills email-link.html.
type emailLinkData struct {
	// Heading and Message say what happened or what the button does.
	Heading, Message string
	// Action, when set, is the unsubscribe form's target (this page's
	// own address): a button that POSTs to it.
	Action string
}

// emailLinkRoutes registers the public pages of email links.
func (d *Dashboard) emailLinkRoutes(mux *http.ServeMux) {
	mux.Handle("GET "+notify.ConfirmPath, secure(http.HandlerFunc(d.confirmChannel)))
	mux.Handle("GET "+notify.UnsubscribePath, secure(http.HandlerFunc(d.unsubscribeForm)))
	mux.Handle("POST "+notify.UnsubscribePath, secure(http.HandlerFunc(d.unsubscribe)))
	mux.Handle("GET /verify-email", secure(http.HandlerFunc(d.verifyEmail)))
}

// verifyEmail verifies the address of the account the link was sent to:
// opening the link is the proof that the address is its owner's.
func (d *Dashboard) verifyEmail(w http.ResponseWriter, r *http.Request) {
	u, err := d.auth.VerifyEmail(r.Context(), r.URL.Query().Get("token"))
	if err != nil {
		d.emailLinkFailed(w, r, "This verification link is not valid", err)
		return
	}
	d.renderEmailLink(w, r, http.StatusOK, "Address verified", emailLinkData{Heading: "Address verified",
		Message: u.Email + " is verified: it can accept invitations to it and receive notifications."})
}

// confirmChannel confirms the email channel the link was sent for: opening
// the link is the confirmation (CONTRACT 8: pending "until it is opened").
func (d *Dashboard) confirmChannel(w http.ResponseWriter, r *http.Request) {
	u, err := d.notify.Confirm(r.Context(), r.URL.Query().Get("token"))
	if err != nil {
		d.emailLinkFailed(w, r, "This confirmation link is not valid", err)
		return
	}
	d.renderEmailLink(w, r, http.StatusOK, "Notifications confirmed", emailLinkData{Heading: "Notifications confirmed",
		Message: "This address now receives the notifications of the Errata project " + u.Project + " (channel " + u.Channel.Name +
			"). Every one of them has a link to unsubscribe with one click."})
}

// unsubscribeForm shows what an unsubscribe link stops, with a button that
// POSTs to it; a GET alone changes nothing (link scanners open links).
func (d *Dashboard) unsubscribeForm(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	u, err := d.notify.CheckUnsubscribe(r.Context(), q.Get("channel"), q.Get("token"))
	if err != nil {
		d.emailLinkFailed(w, r, "This unsubscribe link is not valid", err)
		return
	}
	if u.Channel.UnsubscribedAt != nil {
		d.renderEmailLink(w, r, http.StatusOK, "Unsubscribed", unsubscribed(u))
		return
	}
	action := notify.UnsubscribePath + "?" + url.Values{"channel": {u.Channel.ID}, "token": {q.Get("token")}}.Encode()
	d.renderEmailLink(w, r, http.StatusOK, "Unsubscribe", emailLinkData{Heading: "Unsubscribe " + u.Channel.Email,
		Message: "Stop the notifications of the Errata project " + u.Project + " (channel " + u.Channel.Name + ") to " + u.Channel.Email + "?",
		Action:  action})
}

// unsubscribe stops the channel: the one-click POST of RFC 8058 (body
// List-Unsubscribe=One-Click, not required) or the form's button. It
// answers 200 with a page, never a redirect.
func (d *Dashboard) unsubscribe(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
	q := r.URL.Query()
	u, err := d.notify.Unsubscribe(r.Context(), q.Get("channel"), q.Get("token"))
	if err != nil {
		d.emailLinkFailed(w, r, "This unsubscribe link is not valid", err)
		return
	}
	d.renderEmailLink(w, r, http.StatusOK, "Unsubscribed", unsubscribed(u))
}

func unsubscribed(u notify.Unsubscribable) emailLinkData {
	return emailLinkData{Heading: "Unsubscribed", Message: u.Channel.Email + " no longer receives the notifications of the Errata project " +
		u.Project + " (channel " + u.Channel.Name + "). Its members see that you unsubscribed; only if they enable the channel again " +
		"will you be asked to confirm once more, and nothing is sent unless you do."}
}

// emailLinkFailed answers a link that does nothing (unknown, used, expired:
// the problem's status, 404 or 422) with its detail, without the layout's
// ways back into an account.
func (d *Dashboard) emailLinkFailed(w http.ResponseWriter, r *http.Request, heading string, err error) {
	pr := problem.From(err)
	if c := pr.Code(); c != "not-found" && c != "validation-failed" {
		d.fail(w, r, nil, err)
		return
	}
	// "token: …" names the API's field; the page's reader has a link.
	d.renderEmailLink(w, r, pr.Status, heading, emailLinkData{Heading: heading, Message: sentence(strings.TrimPrefix(pr.Detail, "token: "))})
}

func (d *Dashboard) renderEmailLink(w http.ResponseWriter, r *http.Request, status int, title string, data emailLinkData) {
	d.render(w, r, status, "email-link", nil, frame{Title: title, Data: data})
}
