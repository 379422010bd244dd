package web_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/store"
)

// TestChromeLongWordsWrapAt1280: a comment of one unbroken word and a
// group title of one long word wrap on the group and event pages at 1280
// pixels rather than making the page scroll sideways (issue 29: "the page
// never scrolls sideways").
func TestChromeLongWordsWrapAt1280(t *testing.T) {
	t.Parallel()
	chromePath(t)
	s := apitest.Start(t, store.SQLite)
	w := s.NewWorld(t)
	groupsIngest(t, s, w.Owner.Token, w.ProjectID, map[string]any{"service": "api",
		"events": []any{map[string]any{"message": "x is undefined " + strings.Repeat("W", 400), "level": "error"}}})
	gid := groupsAPI(t, s, w.Owner.Token, w.ProjectID, "")[0]["id"].(string)
	s.Do(apitest.Request{Method: "POST", Path: "/v1/groups/" + gid + "/comments", Token: w.Member.Token,
		Body: map[string]any{"body": strings.Repeat("D", 3000)}}).Expect(t, http.StatusCreated, "")
	events := s.Do(apitest.Request{Method: "GET", Path: "/v1/groups/" + gid + "/events", Token: w.Owner.Token}).Expect(t, http.StatusOK, "").JSON(t)
	eid := events["data"].([]any)[0].(map[string]any)["id"].(string)

	c := newChrome(t, s)
	c.run("set a 1280 × 800 window", chromedp.EmulateViewport(1280, 800))
	chromeSignIn(c, w.Owner.Email)
	for _, path := range []string{"/groups/" + gid, "/events/" + eid} {
		if st := c.open(path); st != http.StatusOK {
			t.Fatalf("%s: status %d", path, st)
		}
		c.waitScript()
		if over := eval[float64](c, `document.documentElement.scrollWidth - document.documentElement.clientWidth`); over > 0 {
			t.Errorf("%s scrolls sideways by %.0f px", path, over)
		}
	}
}
