package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
)

// TestChannelEditAndPreview: an admin edits a channel from its page (name,
// format, filters), a problem is shown on the form with its field, a viewer
// sees the previews but no form and cannot post one; the creation forms
// take a format and filters.
func TestChannelEditAndPreview(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		rc := chanReceiver(t, http.StatusOK)
		admin := newBrowser(t, s)
		admin.signIn(w.Admin.Email)
		list := "/projects/" + w.ProjectID + "/channels"
		admin.get(list).expect(t, http.StatusOK, `<select id="wh-format" name="format"`, `<option value="teams">Microsoft Teams (Workflows)</option>`,
			`<option value="high" selected>high and critical (default)</option>`, `id="em-environments"`)
		created := chanCreate(admin, w.ProjectID, url.Values{"type": {"webhook"}, "name": {"chat"}, "url": {rc.URL}, "format": {"discord"},
			"min_severity": {"medium"}, "environments": {"prod, staging,,prod"}, "services": {""}}).expect(t, http.StatusCreated)
		id := chanIDRe.FindStringSubmatch(created.Body)[1]
		api := chanAPI(t, s, w.Admin.Token, id)
		if api["format"] != "discord" || api["filters"].(map[string]any)["min_severity"] != "medium" ||
			strings.Join(toStrings(api["filters"].(map[string]any)["environments"]), ",") != "prod,staging" {
			t.Fatalf("created from the form: %v", api)
		}
		chanCreate(admin, w.ProjectID, url.Values{"type": {"webhook"}, "name": {"bad"}, "url": {rc.URL}, "format": {"telegram"}}).
			expect(t, http.StatusUnprocessableEntity, `id="wh-format-err"`, "Want one of errata")

		chPage := "/channels/" + id
		admin.get(chPage).expect(t, http.StatusOK, `action="`+chPage+`/edit"`, `<option value="discord" selected>`, `<option value="medium" selected>`,
			`value="prod, staging"`, `id="preview-discord" open`, "a sample ticket (the project has none yet)", "TypeError: cannot read properties",
			"&#34;allowed_mentions&#34;", "X-Title: high: TypeError")

		edit := func(v url.Values) *page {
			base := url.Values{"name": {"chat"}, "url": {rc.URL}, "format": {"discord"}, "min_severity": {"medium"}, "environments": {"prod"}, "services": {""}}
			for k := range v {
				base[k] = v[k]
			}
			return admin.post(chPage+"/edit", base)
		}
		if loc := edit(url.Values{"name": {"alerts"}, "format": {"ntfy"}, "services": {"checkout"}}).expect(t, http.StatusSeeOther).Header.Get("Location"); loc != chPage+"?updated=1" {
			t.Fatalf("an edit redirects to %q", loc)
		}
		admin.get(chPage+"?updated=1").expect(t, http.StatusOK, "Channel updated.", "<h1>alerts</h1>", `<option value="ntfy" selected>`, `id="preview-ntfy" open`)
		api = chanAPI(t, s, w.Admin.Token, id)
		if api["name"] != "alerts" || api["format"] != "ntfy" || strings.Join(toStrings(api["filters"].(map[string]any)["services"]), ",") != "checkout" ||
			strings.Join(toStrings(api["filters"].(map[string]any)["environments"]), ",") != "prod" {
			t.Errorf("after the edit: %v", api)
		}
		for _, c := range []struct {
			form  url.Values
			field string
		}{
			{url.Values{"name": {"  "}}, "ch-name-err"},
			{url.Values{"format": {"telegram"}}, "ch-format-err"},
			{url.Values{"min_severity": {"low"}}, "ch-min-severity-err"},
			{url.Values{"services": {strings.Repeat("s", 129)}}, "ch-services-err"},
			{url.Values{"url": {"http://127.0.0.1/x"}}, "ch-url-err"},
		} {
			p := edit(c.form).expect(t, http.StatusUnprocessableEntity, `id="`+c.field+`"`, `aria-invalid="true"`)
			if v := c.form.Get("services"); v != "" && !strings.Contains(p.Body, `value="`+v+`"`) {
				t.Errorf("the refused form does not keep what was typed")
			}
		}
		if api2 := chanAPI(t, s, w.Admin.Token, id); api2["name"] != "alerts" || api2["format"] != "ntfy" {
			t.Errorf("refused edits changed the channel: %v", api2)
		}

		viewer := newBrowser(t, s)
		viewer.signIn(w.Viewer.Email)
		v := viewer.get(chPage).expect(t, http.StatusOK, `id="preview-ntfy" open`)
		if strings.Contains(v.Body, `action="`+chPage+`/edit"`) {
			t.Error("a viewer is offered the edit form")
		}
		viewer.post(chPage+"/edit", url.Values{"name": {"mine"}}).expect(t, http.StatusForbidden)
	}, chanAllowPrivate)
}

func toStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}
