package web

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/errata-dev/errata/internal/sso"
)

// ssoCookie carries a sign-in's flow (state, nonce, PKCE verifier, next
// page) from the redirect to the provider to the callback, signed with the
// server's cursor key and HttpOnly; it lives sso.FlowTTL, and the callback
// refuses a flow begun longer ago (the signed value carries its time).
const ssoCookie = "errata_oidc"

const ssoScope = "oidc-flow"

// ssoRoutes registers the OpenID Connect sign-in when it is configured.
func (d *Dashboard) ssoRoutes(mux *http.ServeMux) {
	if d.sso == nil {
		return
	}
	mux.Handle("GET /auth/oidc/start", secure(http.HandlerFunc(d.ssoStart)))
	mux.Handle("GET "+sso.CallbackPath, secure(http.HandlerFunc(d.ssoCallback)))
}

func (d *Dashboard) flowCookie(r *http.Request, value string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: ssoCookie, Value: value, Path: "/auth/oidc", HttpOnly: true, SameSite: http.SameSiteLaxMode,
		Secure: d.api.SessionCookie("x", d.now()).Secure, MaxAge: maxAge}
}

// ssoStart sends the browser to the provider with a new flow.
func (d *Dashboard) ssoStart(w http.ResponseWriter, r *http.Request) {
	f := sso.NewFlow(safeNext(r.URL.Query().Get("next")), d.now())
	to, err := d.sso.AuthURL(r.Context(), f)
	if err != nil {
		d.log.Warn("OpenID Connect provider unavailable", "err", err)
		d.ssoFailed(w, r, http.StatusBadGateway, "The single sign-on provider cannot be reached; try again later or sign in with your password.")
		return
	}
	b, _ := json.Marshal(f)
	http.SetCookie(w, d.flowCookie(r, d.api.EncodeCursor(ssoScope, string(b)), int(sso.FlowTTL.Seconds())))
	http.Redirect(w, r, to, http.StatusSeeOther)
}

// ssoCallback finishes a sign-in: the state must be the flow's (else the
// callback was not started by this browser), the provider's identity must
// carry a verified email, and then auth.Service signs in or creates the
// user with a session of method oidc.
func (d *Dashboard) ssoCallback(w http.ResponseWriter, r *http.Request) {
	http.SetCookie(w, d.flowCookie(r, "", -1)) // a flow is used once
	var f sso.Flow
	c, err := r.Cookie(ssoCookie)
	if err == nil {
		var raw string
		if raw, err = d.api.DecodeCursor(ssoScope, c.Value); err == nil {
			err = json.Unmarshal([]byte(raw), &f)
		}
	}
	q := r.URL.Query()
	if err != nil || f.State == "" || subtle.ConstantTimeCompare([]byte(f.State), []byte(q.Get("state"))) != 1 || f.Expired(d.now()) {
		d.ssoFailed(w, r, http.StatusBadRequest, "This sign-in was not started here, or it took too long; start again.")
		return
	}
	if e := q.Get("error"); e != "" {
		d.ssoFailed(w, r, http.StatusUnauthorized, "The single sign-on provider did not sign you in ("+sentence(strings.TrimSpace(e+" "+q.Get("error_description")))+")")
		return
	}
	id, err := d.sso.Exchange(r.Context(), f, q.Get("code"))
	if errors.Is(err, sso.ErrUnverified) {
		if id.Email != "" {
			d.auth.RecordOIDCFailure(r.Context(), id.Email, "oidc_unverified_email")
		}
		d.ssoFailed(w, r, http.StatusForbidden, "The single sign-on provider has not verified your email address, so Errata cannot trust it.")
		return
	}
	if errors.Is(err, sso.ErrRefused) {
		d.log.Info("OpenID Connect sign-in refused", "err", err)
		d.ssoFailed(w, r, http.StatusBadRequest, "This sign-in's answer does not hold (a link used twice, or an answer meant for another sign-in); start again.")
		return
	}
	if err != nil {
		d.log.Warn("OpenID Connect sign-in failed", "err", err)
		d.ssoFailed(w, r, http.StatusBadGateway, "The single sign-on provider's answer could not be checked; try again.")
		return
	}
	sg, err := d.auth.SignInOIDC(r.Context(), id.Email, id.Name, d.autoJoin)
	if pr := shown(err, "sign-up-closed", "rate-limited", "validation-failed"); pr != nil {
		passRetryAfter(w, pr) // as the password form's 429
		d.ssoFailed(w, r, pr.Status, sentence(pr.Detail))
		return
	}
	if err != nil {
		d.fail(w, r, nil, err)
		return
	}
	http.SetCookie(w, d.api.SessionCookie(sg.Token, sg.Session.ExpiresAt))
	http.Redirect(w, r, f.Next, http.StatusSeeOther)
}

// ssoFailed shows the sign-in form with why single sign-on did not work.
func (d *Dashboard) ssoFailed(w http.ResponseWriter, r *http.Request, status int, msg string) {
	d.render(w, r, status, "sign-in", nil, frame{Title: "Sign in", Data: d.signInData(signInData{Next: "/", Error: msg})})
}
