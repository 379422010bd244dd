package httpapi_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/config"
	"github.com/errata-dev/errata/internal/mail/mailtest"
	"github.com/errata-dev/errata/internal/store"
)

// identityFlow validates the answers of the identity operations of CONTRACT
// 8 against the served document: sessions, the password change and the
// audit log. other is a second session of owner's user; it is ended.
func identityFlow(t *testing.T, c *contract, owner, other, orgID string) {
	t.Helper()
	do := func(method, path, token string, body any, status int, code string) *apitest.Response {
		t.Helper()
		return c.call(t, apitest.Request{Method: method, Path: path, Token: token, Body: body}, status, code)
	}
	var otherID string
	for _, se := range do("GET", "/v1/auth/sessions", other, nil, http.StatusOK, "").JSON(t)["data"].([]any) {
		if se := se.(map[string]any); se["current"] == true {
			otherID = se["id"].(string)
		}
	}
	do("DELETE", "/v1/auth/sessions/"+otherID, owner, nil, http.StatusNoContent, "")
	do("DELETE", "/v1/auth/sessions/"+otherID, owner, nil, http.StatusNotFound, "not-found")
	do("POST", "/v1/auth/password", owner, map[string]any{"current_password": "wrong password", "new_password": apitest.Password}, http.StatusUnprocessableEntity, "validation-failed")
	do("POST", "/v1/auth/password", owner, map[string]any{"current_password": apitest.Password, "new_password": apitest.Password}, http.StatusNoContent, "")
	now := time.Now().UTC().Truncate(30 * time.Second).Add(10 * time.Second)
	c.s.Clock.Set(now)
	secret := do("POST", "/v1/auth/totp", owner, nil, http.StatusCreated, "").Str(t, "secret")
	do("POST", "/v1/auth/totp/confirm", owner, map[string]any{"code": "12345x"}, http.StatusUnprocessableEntity, "validation-failed")
	do("POST", "/v1/auth/totp/confirm", owner, map[string]any{"code": totpCode(t, secret, now)}, http.StatusOK, "")
	do("POST", "/v1/auth/totp", owner, nil, http.StatusConflict, "conflict")
	do("POST", "/v1/auth/sign-in/email", "", map[string]any{"email": "owner@example.com", "password": apitest.Password}, http.StatusUnauthorized, "totp-required")
	do("PATCH", "/v1/orgs/"+orgID, owner, map[string]any{"require_2fa": true}, http.StatusOK, "")
	do("PATCH", "/v1/orgs/"+orgID, owner, map[string]any{"sso_required": true}, http.StatusForbidden, "sso-required")
	do("PATCH", "/v1/orgs/"+orgID, owner, map[string]any{"require_2fa": false}, http.StatusOK, "")
	do("DELETE", "/v1/auth/totp", owner, map[string]any{"code": totpCode(t, secret, now.Add(30*time.Second))}, http.StatusNoContent, "")
	do("PATCH", "/v1/orgs/"+orgID, owner, map[string]any{"require_2fa": true}, http.StatusForbidden, "2fa-required")
	c.s.Clock.Set(time.Time{})
	verificationFlow(t, c)
	do("GET", "/v1/orgs/"+orgID+"/audit-log?limit=5", owner, nil, http.StatusOK, "")
	do("GET", "/v1/orgs/"+orgID+"/audit-log?action=member.role_changed", owner, nil, http.StatusOK, "")
}

// verificationFlow validates email verification's answers. It needs email,
// so it runs on a second server with an SMTP server and open sign-up,
// checking its answers against c's document.
func verificationFlow(t *testing.T, c *contract) {
	t.Helper()
	smtp := mailtest.Start(t)
	other := apitest.Start(t, store.SQLite, func(cfg *config.Serve) { cfg.SMTPURL, cfg.Signup = smtp.URL(), "open" })
	do := func(method, path, token string, body any, status int, code string) *apitest.Response {
		t.Helper()
		req := apitest.Request{Method: method, Path: path, Token: token, Body: body}
		res := other.Do(req).Expect(t, status, code)
		if status >= 300 {
			return res // its problem type names the other server's docs
		}
		if err := c.check(req, res); err != nil {
			t.Errorf("%s %s answered %d, which the document does not describe:\n%v\nbody: %s", method, path, res.Status, err, res.Body)
		}
		return res
	}
	other.SignUp(t, "first@example.com")
	ada := other.SignUp(t, "ada@example.com")
	do("POST", "/v1/auth/verify-email/send", ada.Token, nil, http.StatusNoContent, "")
	deliverDue(t, other)
	token := verificationToken(t, smtp, "ada@example.com", 2)
	do("POST", "/v1/auth/verify-email", "", map[string]any{"token": token}, http.StatusOK, "")
	do("POST", "/v1/auth/verify-email", "", map[string]any{"token": token}, http.StatusUnprocessableEntity, "validation-failed")
	do("POST", "/v1/auth/verify-email/send", ada.Token, nil, http.StatusConflict, "conflict")
}
