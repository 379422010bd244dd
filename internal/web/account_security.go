package web

import (
	"bytes"
	"encoding/base64"
	"html/template"
	"image/png"
	"net/http"
	"strings"

	"github.com/pquerna/otp"

	"github.com/errata-dev/errata/internal/auth"
	"github.com/errata-dev/errata/internal/httpserver"
	"github.com/errata-dev/errata/internal/store"
)

// securityRoutes registers the account page (sessions, two-factor sign-in,
// password) and the organizations' audit log page.
func (d *Dashboard) securityRoutes(mux *http.ServeMux) {
	d.get(mux, "/account", d.account)
	d.post(mux, "/account/sessions/{session_id}/end", d.accountEndSession)
	d.post(mux, "/account/password", d.accountPassword)
	d.post(mux, "/account/totp", d.accountBeginTOTP)
	d.post(mux, "/account/totp/confirm", d.accountConfirmTOTP)
	d.post(mux, "/account/totp/disable", d.accountDisableTOTP)
	d.post(mux, "/account/verify-email", d.accountSendVerification)
	d.get(mux, "/orgs/{org_id}/audit-log", d.auditLog)
}

// accountData fills the account page.
type accountData struct {
	User     store.User
	Sessions []store.Session
	Current  string // the session of this page
	// Setup is a TOTP secret being set up: its QR code and secret.
	QR     template.URL
	Secret string
	// RecoveryCodes are shown once, when two-factor sign-in was turned on.
	RecoveryCodes []string
	// Notice says what was just done; Error why it was refused, and
	// ErrorAt which form it belongs to ("password", "totp").
	Notice, Error, ErrorAt string
}

func (d *Dashboard) account(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	return d.accountPage(w, r, p, http.StatusOK, accountData{})
}

func (d *Dashboard) accountPage(w http.ResponseWriter, r *http.Request, p *httpserver.Principal, status int, data accountData) error {
	ctx := r.Context()
	u, err := d.db.Read().UserByID(ctx, p.User.ID)
	if err != nil {
		return err
	}
	if data.Sessions, err = d.auth.Sessions(ctx, u.ID, "", listCap); err != nil {
		return err
	}
	data.User, data.Current = u, p.Session.ID
	if u.TOTPPending != "" && !u.HasTOTP() {
		if data.QR, data.Secret, err = totpQR(u); err != nil {
			return err
		}
	}
	d.render(w, r, status, "account", p, frame{Title: "Your account", Crumbs: []crumb{{"Your account", "/account"}}, Data: data})
	return nil
}

// totpQR draws the otpauth URI of u's pending secret as a PNG data URL.
func totpQR(u store.User) (template.URL, string, error) {
	key, err := otp.NewKeyFromURL(auth.TOTPURI(u.Email, u.TOTPPending))
	if err != nil {
		return "", "", err
	}
	img, err := key.Image(240, 240)
	if err != nil {
		return "", "", err
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		return "", "", err
	}
	return template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(b.Bytes())), u.TOTPPending, nil
}

// accountAction runs an account change and shows the page again: with
// notice on success, with the refusal next to its form when it is one the
// user can fix.
func (d *Dashboard) accountAction(w http.ResponseWriter, r *http.Request, p *httpserver.Principal, form, notice string, err error) error {
	if pr := shown(err, "validation-failed", "conflict", "rate-limited", "not-found"); pr != nil {
		msg := sentence(pr.Detail)
		if ra := passRetryAfter(w, pr); ra != "" && !strings.Contains(strings.ToLower(msg), "retry in") { // as the sign-in form says it
			msg += " Retry in " + ra + " seconds."
		}
		return d.accountPage(w, r, p, pr.Status, accountData{Error: msg, ErrorAt: form})
	}
	if err != nil {
		return err
	}
	return d.accountPage(w, r, p, http.StatusOK, accountData{Notice: notice})
}

// accountSendVerification sends the verification email again (a new link
// replaces the one before), as POST /v1/auth/verify-email/send.
func (d *Dashboard) accountSendVerification(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	err := d.auth.SendVerification(r.Context(), p.User)
	return d.accountAction(w, r, p, "verify", "A new verification link was sent to "+p.User.Email+"; the one before no longer works.", err)
}

func (d *Dashboard) accountEndSession(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	err := d.auth.EndSession(r.Context(), p.User, r.PathValue("session_id"))
	return d.accountAction(w, r, p, "sessions", "The session was ended.", err)
}

func (d *Dashboard) accountPassword(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	if err := readForm(r); err != nil {
		return err
	}
	err := d.auth.ChangePassword(r.Context(), p.User, p.Session.ID, r.PostForm.Get("current_password"), r.PostForm.Get("new_password"))
	return d.accountAction(w, r, p, "password", "Your password was changed; every other session was ended.", err)
}

func (d *Dashboard) accountBeginTOTP(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	_, err := d.auth.BeginTOTP(r.Context(), p.User)
	return d.accountAction(w, r, p, "totp", "", err)
}

func (d *Dashboard) accountConfirmTOTP(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	code, err := formValue(r, "code")
	if err != nil {
		return err
	}
	codes, err := d.auth.ConfirmTOTP(r.Context(), p.User, code)
	if err != nil {
		return d.accountAction(w, r, p, "totp", "", err)
	}
	return d.accountPage(w, r, p, http.StatusOK, accountData{RecoveryCodes: codes, Notice: "Two-factor sign-in is on."})
}

func (d *Dashboard) accountDisableTOTP(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	code, err := formValue(r, "code")
	if err != nil {
		return err
	}
	err = d.auth.DisableTOTP(r.Context(), p.User, code)
	return d.accountAction(w, r, p, "totp", "Two-factor sign-in is off.", err)
}
