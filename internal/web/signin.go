package web

import (
	"errors"
	"net/http"
	"time"

	"github.com/errata-dev/errata/internal/auth"
	"github.com/errata-dev/errata/internal/httpserver"
	"github.com/errata-dev/errata/internal/problem"
)

// signInData fills the sign-in form.
type signInData struct {
	Next, Email, Error string
	// SignUp links to the sign-up form (ERRATA_SIGNUP=open).
	SignUp bool
	// NeedCode asks for the second factor too.
	NeedCode bool
	// SSOName labels the single sign-on button ("" without one).
	SSOName string
}

// signInData completes the sign-in form's data with what the server
// offers besides passwords.
func (d *Dashboard) signInData(data signInData) signInData {
	data.SignUp = d.auth.SignUpOpen()
	if d.sso != nil {
		data.SSOName = d.ssoName
	}
	return data
}

func (d *Dashboard) signInForm(w http.ResponseWriter, r *http.Request) {
	next := safeNext(r.URL.Query().Get("next"))
	if _, err := d.api.Authenticate(r); err == nil {
		http.Redirect(w, r, next, http.StatusSeeOther)
		return
	}
	first, err := d.noUserYet(r)
	if err != nil {
		d.fail(w, r, nil, err)
		return
	}
	if first {
		http.Redirect(w, r, signUpURL(next), http.StatusSeeOther)
		return
	}
	d.render(w, r, http.StatusOK, "sign-in", nil, frame{Title: "Sign in", Data: d.signInData(signInData{Next: next})})
}

// signIn opens a session through auth.Service and sets the same cookie as
// POST /v1/auth/sign-in/email. Bad credentials show the form again (401);
// too many failures, or successful sign-ins, are 429 as in the API, and an
// address refused as a look-alike 422, each with the API's reason.
func (d *Dashboard) signIn(w http.ResponseWriter, r *http.Request) {
	if err := readForm(r); err != nil {
		d.fail(w, r, nil, err)
		return
	}
	email, next := r.PostForm.Get("email"), safeNext(r.PostForm.Get("next"))
	sg, err := d.auth.SignIn(r.Context(), auth.SignInInput{Email: email, Password: r.PostForm.Get("password"), Code: r.PostForm.Get("code"),
		ClientKey: httpserver.ClientKey(r.Context())})
	if pr := shown(err, "invalid-credentials", "totp-required", "rate-limited", "validation-failed"); pr != nil {
		msg := "The email address or the password is wrong."
		needCode := r.PostForm.Get("code") != ""
		switch {
		case pr.Code() == "totp-required":
			msg, needCode = "Enter your password again with the code of your authenticator app.", true
		case needCode && pr.Status == http.StatusUnauthorized:
			msg = "The password or the two-factor code is wrong, or the code was used already."
		case pr.Status != http.StatusUnauthorized:
			msg = sentence(pr.Detail)
			for k, vs := range pr.GetHeaders() {
				w.Header()[k] = vs
			}
		}
		d.render(w, r, pr.Status, "sign-in", nil, frame{Title: "Sign in",
			Data: d.signInData(signInData{Next: next, Email: email, Error: msg, NeedCode: needCode})})
		return
	}
	if err != nil {
		d.fail(w, r, nil, err)
		return
	}
	http.SetCookie(w, d.api.SessionCookie(sg.Token, sg.Session.ExpiresAt))
	http.Redirect(w, r, next, http.StatusSeeOther)
}

// signOut ends the session and clears the cookie.
func (d *Dashboard) signOut(w http.ResponseWriter, r *http.Request) {
	p, err := d.api.Authenticate(r)
	var pr *problem.Problem
	if err != nil && !(errors.As(err, &pr) && pr.Code() == "unauthorized") {
		d.fail(w, r, nil, err)
		return
	}
	if err == nil {
		if err := d.auth.SignOut(r.Context(), p.Session.ID); err != nil {
			d.fail(w, r, p, err)
			return
		}
	}
	http.SetCookie(w, d.api.SessionCookie("", time.Time{}))
	http.Redirect(w, r, "/sign-in", http.StatusSeeOther)
}
