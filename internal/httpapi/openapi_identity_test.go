package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
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
	do("GET", "/v1/orgs/"+orgID+"/audit-log?limit=5", owner, nil, http.StatusOK, "")
	do("GET", "/v1/orgs/"+orgID+"/audit-log?action=member.role_changed", owner, nil, http.StatusOK, "")
}
