package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
)

// TestGroupSearchBox: the group list's search box takes the API's query
// language, keeps the query in the address and in its paging links, and
// shows a malformed query's message.
func TestGroupSearchBox(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		_ = seedTicket(t, s, w.Owner.Token, w.ProjectID, "first failure", "error")
		_ = seedTicket(t, s, w.Owner.Token, w.ProjectID, "second failure", "fatal")
		b := newBrowser(t, s)
		b.signIn(w.Owner.Email)
		base := "/projects/" + w.ProjectID + "/groups?query="
		p := b.get(base + url.QueryEscape("SECOND level:fatal"))
		if p.Status != http.StatusOK || !strings.Contains(p.Body, "second failure") || strings.Contains(p.Body, "first failure") ||
			!strings.Contains(p.Body, `name="query" type="search" value="SECOND level:fatal"`) {
			t.Errorf("search page: status %d; body: %.2000s", p.Status, p.Body)
		}
		if p := b.get(base + url.QueryEscape("!second")); !strings.Contains(p.Body, "first failure") || strings.Contains(p.Body, "second failure") {
			t.Errorf("negated search: %.2000s", p.Body)
		}
		p = b.get(base + url.QueryEscape("level:loud"))
		if p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Body, "level:loud") {
			t.Errorf("malformed query: status %d; body: %.2000s", p.Status, p.Body)
		}
	})
}
