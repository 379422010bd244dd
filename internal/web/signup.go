package web

import (
	"net/http"
	"net/url"
	"unicode/utf8"

	"github.com/errata-dev/errata/internal/auth"
	"github.com/errata-dev/errata/internal/problem"
)

// The sign-up form creates an account without an invitation, on the same
// rule as POST /v1/auth/sign-up/email: the first account of a fresh server
// always, later ones only when sign-up is open (ERRATA_SIGNUP=open). On a
// server with no user yet, the sign-in form sends here, so that whoever
// starts Errata and opens it in a browser is led through the first account,
// the organization, the project and a key.

// signUpData fills the sign-up form.
type signUpData struct {
	Next, Email, Name, Error string
	// First says no account exists yet: this one is the server's first.
	First bool
	// Closed says sign-up closed meanwhile: the page offers signing in,
	// not a form that can only be refused again.
	Closed bool
	// SSOName labels the single sign-on button ("" without one): on a
	// server with no account yet the sign-in form sends here, and the
	// provider may make the first account (docs/sso.md).
	SSOName string
}

// noUserYet reports whether the server has no account yet.
func (d *Dashboard) noUserYet(r *http.Request) (bool, error) {
	n, err := d.db.Read().CountUsers(r.Context())
	return n == 0, err
}

// signUpURL is the sign-up form that returns to next.
func signUpURL(next string) string {
	if next == "/" {
		return "/sign-up"
	}
	return "/sign-up?next=" + url.QueryEscape(next)
}

// signUpForm shows the sign-up form when an account may be created without
// an invitation, and sends to the sign-in form otherwise.
func (d *Dashboard) signUpForm(w http.ResponseWriter, r *http.Request) {
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
	if !first && !d.auth.SignUpOpen() {
		http.Redirect(w, r, "/sign-in?next="+url.QueryEscape(next), http.StatusSeeOther)
		return
	}
	d.renderSignUp(w, r, http.StatusOK, signUpData{Next: next, First: first})
}

// signUp creates the account and its session (the cookie of POST
// /v1/auth/sign-up/email) and goes on to next, the home page by default,
// which leads to creating an organization. A refused form is shown again
// with the reason; a closed sign-up (another visitor was first) sends to the
// sign-in form's message.
func (d *Dashboard) signUp(w http.ResponseWriter, r *http.Request) {
	if err := readForm(r); err != nil {
		d.fail(w, r, nil, err)
		return
	}
	f := r.PostForm
	data := signUpData{Next: safeNext(f.Get("next")), Email: f.Get("email"), Name: f.Get("name")}
	var err error
	if utf8.RuneCountInString(data.Name) > 100 { // the API's maxLength
		err = problem.New("validation-failed", "name: at most 100 characters")
	}
	var sg auth.Signed
	if err == nil {
		sg, err = d.auth.SignUp(r.Context(), auth.SignUpInput{Email: data.Email, Password: f.Get("password"), Name: data.Name})
	}
	if pr := shown(err, "validation-failed", "email-taken", "sign-up-closed"); pr != nil {
		data.Error = sentence(pr.Detail)
		if pr.Code() == "sign-up-closed" {
			data.Error = "An account was created on this server meanwhile; new accounts now need an invitation. Sign in, or ask an admin for an invitation."
			data.Closed = true
		}
		if first, ferr := d.noUserYet(r); ferr == nil {
			data.First = first
		}
		d.renderSignUp(w, r, pr.Status, data)
		return
	}
	if err != nil {
		d.fail(w, r, nil, err)
		return
	}
	http.SetCookie(w, d.api.SessionCookie(sg.Token, sg.Session.ExpiresAt))
	http.Redirect(w, r, data.Next, http.StatusSeeOther)
}

func (d *Dashboard) renderSignUp(w http.ResponseWriter, r *http.Request, status int, data signUpData) {
	data.SSOName = d.ssoName
	title := "Create an account"
	if data.First {
		title = "Create the first account"
	}
	d.render(w, r, status, "sign-up", nil, frame{Title: title, Data: data})
}
