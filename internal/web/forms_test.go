package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// TestFormsRefusedClearly: a posted body that is not a form is 400
// malformed-body and one over 1 MiB is 413 payload-too-large, on every
// form, signed in or not; never a 500.
func TestFormsRefusedClearly(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, storetest.Dialects[0])
	w := s.NewWorld(t)
	b := newBrowser(t, s)
	b.signIn(w.Owner.Email)
	raw := func(path, body string) *page {
		t.Helper()
		return b.send("POST", path, strings.NewReader(body), map[string]string{"Origin": s.URL})
	}
	big := "x=" + strings.Repeat("a", 1<<20)
	for _, path := range []string{"/orgs/" + w.OrgID + "/sign-in-rules", "/account/password", "/sign-in", "/sign-up"} {
		if p := raw(path, "require_2fa=%zz"); p.Status != http.StatusBadRequest || !strings.Contains(p.Body, "malformed-body") {
			t.Errorf("POST %s, not a form: %d, want 400 malformed-body", path, p.Status)
		}
		if p := raw(path, big); p.Status != http.StatusRequestEntityTooLarge || !strings.Contains(p.Body, "1 MiB") {
			t.Errorf("POST %s, over 1 MiB: %d, want 413 saying 1 MiB", path, p.Status)
		}
	}
}
