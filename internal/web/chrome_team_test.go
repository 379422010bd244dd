package web_test

// Browser test of the triage list's shortcuts: j selects a row, r resolves
// it, a assigns it to the signed-in member, i ignores it, ? lists them.

import (
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/store"
)

func TestChromeTriageShortcuts(t *testing.T) {
	t.Parallel()
	chromePath(t) // skip (or fail in CI) before building anything
	s := apitest.Start(t, store.SQLite)
	w := s.NewWorld(t)
	ev := func(fp string) map[string]any {
		return map[string]any{"message": "failure " + fp, "level": "error", "attributes": map[string]any{"fingerprint": fp}}
	}
	groupsIngest(t, s, w.Owner.Token, w.ProjectID, map[string]any{"service": "api", "events": []any{ev("alpha"), ev("bravo"), ev("charlie")}})
	c := newChrome(t, s)
	chromeSignIn(c, w.Member.Email)
	home := "/projects/" + w.ProjectID
	// rowGroup is the group of the first row of the triage list.
	firstRow := func() string {
		t.Helper()
		return eval[string](c, `document.querySelector("main table.triage tbody tr").dataset.group`)
	}
	press := func(what, key string) (int64, string) {
		t.Helper()
		return c.follow(what, chromedp.KeyEvent("j"), chromedp.KeyEvent(key))
	}

	if st := c.open(home); st != http.StatusOK {
		t.Fatalf("project page: status %d", st)
	}
	c.waitScript()
	gid := firstRow()
	if st, loc := press("j r", "r"); st != http.StatusOK || loc != home+"?done=resolve&n=1" {
		t.Fatalf("r: status %d at %s, want the project page again, saying what was done", st, loc)
	}
	if g := apiGroup(t, s, w.Owner.Token, gid); g["status"] != "resolved" {
		t.Errorf("after r the first group is %v, want resolved", g["status"])
	}
	c.waitScript()
	gid = firstRow()
	press("j a", "a")
	if g := apiGroup(t, s, w.Owner.Token, gid); g["assignee"] == nil || g["assignee"].(map[string]any)["member_id"] != w.Member.MemberID {
		t.Errorf("after a the first group's assignee is %v, want the member", g["assignee"])
	}
	c.waitScript()
	press("j i", "i")
	if g := apiGroup(t, s, w.Owner.Token, gid); g["status"] != "ignored" {
		t.Errorf("after i the group is %v, want ignored", g["status"])
	}
	c.waitScript()
	c.run("?", chromedp.KeyEvent("?"))
	if txt := c.text("#keys-help"); !strings.Contains(txt, "Resolve the selected error group") || !strings.Contains(txt, "Assign the selected error group to me") {
		t.Errorf("the shortcut list lacks r and a: %q", txt)
	}
	c.shot("triage-shortcuts")
	c.expectNoProblems()
}
