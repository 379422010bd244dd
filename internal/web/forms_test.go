package web_test

import (
	"io"
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
	raw := func(path, body string) (int, string) {
		t.Helper()
		req, err := http.NewRequest("POST", s.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", s.URL)
		req.Header.Set("Accept", "text/html")
		res, err := b.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		page, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(page)
	}
	big := "x=" + strings.Repeat("a", 1<<20)
	for _, path := range []string{"/orgs/" + w.OrgID + "/sign-in-rules", "/account/password", "/sign-in", "/sign-up"} {
		if status, page := raw(path, "require_2fa=%zz"); status != http.StatusBadRequest || !strings.Contains(page, "malformed-body") {
			t.Errorf("POST %s, not a form: %d, want 400 malformed-body", path, status)
		}
		if status, page := raw(path, big); status != http.StatusRequestEntityTooLarge || !strings.Contains(page, "1 MiB") {
			t.Errorf("POST %s, over 1 MiB: %d, want 413 saying 1 MiB", path, status)
		}
	}
}
