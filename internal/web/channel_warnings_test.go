package web_test

import (
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
)

// TestChannelPageShowsFilterWarnings: the channel page lists the filter
// values no event of the project has had in 30 days, with the value the
// events carry when it differs only by case; a value they carry is not
// listed. The edit form saves values trimmed.
func TestChannelPageShowsFilterWarnings(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		seedTicket(t, s, w.Owner.Token, w.ProjectID, "boom", "error") // service checkout, environment prod
		ch := s.Do(apitest.Request{Method: "POST", Path: "/v1/projects/" + w.ProjectID + "/channels", Token: w.Admin.Token,
			Body: map[string]any{"member_id": w.Admin.MemberID, "name": "ops", "type": "email",
				"filters": map[string]any{"environments": []string{"Prod", "prod"}, "services": []string{"checkout"}}}}).Expect(t, http.StatusCreated, "").JSON(t)
		page := "/channels/" + ch["id"].(string)

		viewer := newBrowser(t, s)
		viewer.signIn(w.Viewer.Email)
		p := viewer.get(page).expect(t, http.StatusOK, "Filters that take no ticket", "environments: <code>Prod</code>")
		text := html.UnescapeString(p.Body)
		if !strings.Contains(text, `no event of this project has had the environment "Prod" in the last 30 days; its events say "prod"`) {
			t.Errorf("the warning does not suggest prod: %s", p.Body)
		}
		if strings.Contains(text, "environments: <code>prod</code>") || strings.Contains(text, "services: <code>checkout</code>") {
			t.Errorf("a value the events carry is warned about: %s", p.Body)
		}

		admin := newBrowser(t, s)
		admin.signIn(w.Admin.Email)
		admin.post(page+"/edit", url.Values{"name": {"ops"}, "email": {w.Admin.Email}, "min_severity": {"high"}, "environments": {" prod ,  staging "}, "services": {""}}).
			expect(t, http.StatusSeeOther)
		after := admin.get(page).expect(t, http.StatusOK, "environments: <code>staging</code>")
		if strings.Contains(after.Body, "<code>Prod</code>") || strings.Contains(after.Body, "<code> staging") {
			t.Errorf("after the edit the page shows %s", after.Body)
		}
	})
}
