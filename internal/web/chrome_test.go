package web_test

// End-to-end tests of the dashboard in a real browser (headless Chromium,
// chromedp): what a person does, clicking and typing, against a real
// server. The handler tests cover every page on both databases; the journey
// runs on both too, the narrower browser tests (chrome_access_test.go) on
// SQLite.

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// chromeSignIn signs email in through the sign-in form, typing as a person
// does, and fails unless it lands on the home page.
func chromeSignIn(c *chromeTab, email string) {
	c.t.Helper()
	if st := c.open("/sign-in"); st != http.StatusOK {
		c.t.Fatalf("GET /sign-in = %d", st)
	}
	c.fill("email", email)
	c.fill("password", apitest.Password)
	st, loc := c.click(`main form button[type="submit"]`)
	if st != http.StatusOK || loc != "/" {
		c.t.Fatalf("after signing in as %s: status %d at %q, want 200 at /", email, st, loc)
	}
	c.expectText("h1", "Your organizations")
}

// chromeGo clicks sel and fails unless it leads to status at a path
// starting with prefix; it returns the path.
func chromeGo(c *chromeTab, sel string, status int64, prefix string) string {
	c.t.Helper()
	st, loc := c.click(sel)
	if st != status || !strings.HasPrefix(loc, prefix) {
		c.t.Fatalf("click %s: status %d at %q, want %d at %s…", sel, st, loc, status, prefix)
	}
	return loc
}

// chromeTicketStatus reads a ticket's status through the API.
func chromeTicketStatus(t *testing.T, s *apitest.Server, token, ticketID string) string {
	t.Helper()
	return s.Do(apitest.Request{Method: "GET", Path: "/v1/tickets/" + ticketID, Token: token}).Expect(t, http.StatusOK, "").Str(t, "status")
}

// TestChromeJourney: the owner signs in, creates a project and an API key,
// an error sent with that key opens a ticket, the owner resolves it, adds a
// webhook channel, tests it and rotates its secret; every page stays on its
// own origin, without a console error or a CSP violation, and app.js shows
// times in the browser's zone. Every main page is screenshotted.
func TestChromeJourney(t *testing.T) {
	t.Parallel()
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			t.Parallel()
			chromePath(t) // skip (or fail in CI) before building anything
			// The receiver first: it installs the test CA before the
			// server verifies any certificate.
			rc := chanReceiver(t, http.StatusOK)
			s := apitest.Start(t, d, chanAllowPrivate)
			chromeJourney(t, s, rc)
		})
	}
}

func chromeJourney(t *testing.T, s *apitest.Server, rc *chanRecv) {
	w := s.NewWorld(t)
	c := newChrome(t, s)
	chromeSignIn(c, w.Owner.Email)
	c.expectText("main", "Acme", "web")
	c.shot("home")

	// A project, created on the organization's page.
	chromeGo(c, `main a[href="/orgs/`+w.OrgID+`"]`, http.StatusOK, "/orgs/"+w.OrgID)
	c.expectText("h1", "Acme")
	c.shot("org")
	c.fill("project-name", "storefront")
	prj := chromeGo(c, `form[action="/orgs/`+w.OrgID+`/projects"] button[type="submit"]`, http.StatusOK, "/projects/prj_")
	c.expectText("h1", "storefront")
	c.shot("overview-empty")

	// An API key, shown once.
	chromeGo(c, `nav.tabs a[href="`+prj+`/keys"]`, http.StatusOK, prj+"/keys")
	c.fill("key-name", "checkout production")
	chromeGo(c, `form[action="`+prj+`/keys"] button[type="submit"]`, http.StatusCreated, prj+"/keys")
	key := strings.TrimSpace(c.text("#api-key"))
	if len(key) < 20 {
		t.Fatalf("the key shown is %q", key)
	}
	if dsn := strings.TrimSpace(c.text("#sentry-dsn")); !strings.HasPrefix(dsn, "http://"+key+"@") {
		t.Errorf("the DSN shown is %q, want the key in it", dsn)
	}
	c.shot("key-created")
	if st := c.open(prj + "/keys"); st != http.StatusOK {
		t.Fatalf("keys page: status %d", st)
	}
	c.expectText("main table.keys", "checkout production", "active")
	if strings.Contains(c.text("main"), key) {
		t.Error("the keys page shows the key again")
	}
	c.shot("keys")

	// An error sent with that key through the real API opens a ticket.
	s.Do(apitest.Request{Method: "POST", Path: "/v1/ingest", Token: key, Body: map[string]any{"service": "checkout", "environment": "prod",
		"events": []any{map[string]any{"message": "payment gateway timeout", "level": "error"}}}}).Expect(t, http.StatusAccepted, "")
	drainAll(t, s)
	if st := c.open(prj); st != http.StatusOK {
		t.Fatalf("overview: status %d", st)
	}
	c.expectText("main", "payment gateway timeout")
	c.shot("overview")

	chromeGo(c, `nav.tabs a[href="`+prj+`/tickets"]`, http.StatusOK, prj+"/tickets")
	c.expectText("main table.tickets", "payment gateway timeout", "checkout", "open")
	c.shot("tickets")

	// The ticket, resolved.
	loc := chromeGo(c, `main table.tickets a[href^="/tickets/"]`, http.StatusOK, "/tickets/tkt_")
	ticketID := strings.TrimPrefix(loc, "/tickets/")
	c.expectText("h1", "payment gateway timeout")
	c.expectText("main .badge", store.TicketOpen)
	c.shot("ticket")
	chromeGo(c, `form[action="/tickets/`+ticketID+`/resolve"] button`, http.StatusOK, "/tickets/"+ticketID)
	c.expectText("main .badge", store.TicketResolved)
	if c.count(`form[action="/tickets/`+ticketID+`/reopen"] button`) != 1 {
		t.Error("a resolved ticket shows no Reopen button")
	}
	c.shot("ticket-resolved")
	if got := chromeTicketStatus(t, s, w.Viewer.Token, ticketID); got != store.TicketResolved {
		t.Fatalf("API status after Resolve in the browser = %q", got)
	}

	// Its error group, and the project's groups.
	chromeGo(c, `main a[href^="/groups/"]`, http.StatusOK, "/groups/grp_")
	c.expectText("h1", "payment gateway timeout")
	c.shot("group")
	chromeGo(c, `nav.tabs a[href="`+prj+`/groups"]`, http.StatusOK, prj+"/groups")
	c.expectText("main table.groups", "payment gateway timeout")
	c.shot("groups")
	chromeGo(c, `nav.tabs a[href="`+prj+`/summaries"]`, http.StatusOK, prj+"/summaries")
	c.expectText("h1", "INFO summaries")
	c.shot("summaries")

	chromeChannel(c, prj, rc)

	chromeGo(c, `nav.tabs a[href="`+prj+`/notifications"]`, http.StatusOK, prj+"/notifications")
	c.expectText("h1", "Notifications")
	c.shot("notifications")
	if st := c.open("/orgs/" + w.OrgID + "/members"); st != http.StatusOK {
		t.Fatalf("members page: status %d", st)
	}
	c.expectText("main table.members", w.Owner.Email, w.Viewer.Email)
	c.shot("members")

	// app.js ran: the last page's times are in the browser's zone.
	c.waitScript()
	if n := c.count(`time[data-local="` + chromeZone + `"]`); n == 0 {
		t.Errorf("no time[data-local=%q] on %s: times were not made local", chromeZone, c.location())
	} else if txt := c.text(`time[data-local]`); !strings.Contains(txt, "GMT+9") {
		t.Errorf("a local time reads %q, want the %s offset GMT+9", txt, chromeZone)
	}
	c.expectOnlyOwnOrigin()
	c.expectNoProblems()
}

// chromeChannel adds a webhook channel to rc on the project's channels tab,
// previews and edits it, sends a test and rotates the secret (cancelling
// the confirmation first).
func chromeChannel(c *chromeTab, prj string, rc *chanRecv) {
	t := c.t
	t.Helper()
	chromeGo(c, `nav.tabs a[href="`+prj+`/channels"]`, http.StatusOK, prj+"/channels")
	c.shot("channels-empty")
	c.fill("wh-name", "ops hook")
	c.fill("wh-url", rc.URL)
	chromeGo(c, `form:has(#wh-url) button[type="submit"]`, http.StatusCreated, prj+"/channels")
	c.expectText("h1", "ops hook")
	secret := strings.TrimSpace(c.text("#signing-secret"))
	if !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("secret shown = %q, want whsec_…", secret)
	}
	c.shot("channel-created")

	channel := chromeGo(c, `main a[href^="/channels/"]`, http.StatusOK, "/channels/chn_")
	c.expectText("h1", "ops hook")
	if c.count("#signing-secret") != 0 {
		t.Error("the channel's page shows the secret again")
	}
	c.shot("channel")

	chromePreviewAndEdit(c, channel)

	chromeGo(c, `form[action="`+channel+`/test"] button`, http.StatusOK, channel)
	c.expectText("#test-h", "Test delivered")
	if n := rc.hits.Load(); n != 1 {
		t.Errorf("the receiver got %d requests after Send a test, want 1", n)
	}
	// The test went in the format chosen: Slack's text and blocks.
	var slack struct {
		Text   string           `json:"text"`
		Blocks []map[string]any `json:"blocks"`
	}
	if ct, body := rc.last(); ct != "application/json" || json.Unmarshal(body, &slack) != nil || slack.Text == "" || len(slack.Blocks) == 0 {
		t.Errorf("the test arrived as %s %s, want a Slack message", ct, body)
	}
	c.shot("channel-tested")

	// Rotation asks first (data-confirm); Cancel leaves the secret alone.
	rotate := `form[action="` + channel + `/rotate-secret"] button`
	before := c.location()
	c.answerDialogs(false)
	c.run("click Rotate secret, then Cancel", chromedp.Click(chromedp.CSS(rotate), chromedp.NodeVisible))
	asked := c.answerDialogs(true)
	if len(asked) != 1 || !strings.Contains(asked[0], "Rotate the signing secret") {
		t.Fatalf("dialogs on Rotate secret: %q, want one confirmation", asked)
	}
	if loc := c.location(); loc != before || c.count("#signing-secret") != 0 {
		t.Fatalf("after cancelling the rotation: at %q with %d secrets shown", loc, c.count("#signing-secret"))
	}
	chromeGo(c, rotate, http.StatusOK, channel)
	c.expectText("#secret-h", "New signing secret")
	if rotated := strings.TrimSpace(c.text("#signing-secret")); !strings.HasPrefix(rotated, "whsec_") || rotated == secret {
		t.Errorf("secret after rotation = %q (before %q), want a new whsec_…", rotated, secret)
	}
	c.shot("channel-rotated")
}

// chromePreviewAndEdit reads the channel page's previews of the project's
// ticket, then renames the channel, makes it a Slack channel taking medium
// tickets of production, and checks the page and the preview follow.
func chromePreviewAndEdit(c *chromeTab, channel string) {
	t := c.t
	t.Helper()
	c.expectText("main table.facts", "Errata JSON", "high tickets and above") // the creation form's defaults
	c.expectText("#preview-h", "Preview")
	c.expectText("main", "the project's most recent ticket", "payment gateway timeout")
	if n := c.count("details.preview"); n != 7 {
		t.Errorf("%d format previews, want 7", n)
	}
	if c.count("#preview-errata[open]") != 1 || c.count("#preview-slack[open]") != 0 {
		t.Error("the open preview is not the channel's format, errata")
	}
	c.expectText("#preview-errata pre", `"type": "ticket"`, "payment gateway timeout")
	c.run("open the Teams preview", chromedp.Click(chromedp.CSS("#preview-teams summary"), chromedp.NodeVisible))
	c.expectText("#preview-teams pre", "application/vnd.microsoft.card.adaptive", "payment gateway timeout")
	c.run("open the ntfy preview", chromedp.Click(chromedp.CSS("#preview-ntfy summary"), chromedp.NodeVisible))
	c.expectText("#preview-ntfy", "X-Title: high: payment gateway timeout", "X-Priority: 4")
	c.shot("channel-preview")

	c.replace("ch-name", "ops chat")
	c.run("choose Slack and medium", chromedp.SetValue(chromedp.ID("ch-format"), "slack"), chromedp.SetValue(chromedp.ID("ch-min-severity"), "medium"))
	c.replace("ch-environments", "prod, eu-prod")
	chromeGo(c, `form[action="`+channel+`/edit"] button[type="submit"]`, http.StatusOK, channel)
	c.expectText("main .notice", "Channel updated.")
	c.expectText("h1", "ops chat")
	c.expectText("main table.facts", "Slack", "medium tickets and above", "prod, eu-prod")
	if c.count("#preview-slack[open]") != 1 || c.count("#preview-errata[open]") != 0 {
		t.Error("after the edit, the open preview is not Slack's")
	}
	c.expectText("#preview-slack pre", `"blocks"`, "payment gateway timeout")

	// A refused change shows the form again with the message under its field.
	c.replace("ch-environments", strings.Repeat("e", 65))
	st, loc := c.click(`form[action="` + channel + `/edit"] button[type="submit"]`)
	if st != http.StatusUnprocessableEntity || loc != channel+"/edit" {
		t.Fatalf("a too long environment: status %d at %q, want 422", st, loc)
	}
	c.expectText("#ch-environments-err", "Each value must be 1 to 64 characters")
	c.shot("channel-edit-refused")
	if st := c.open(channel); st != http.StatusOK {
		t.Fatalf("channel page: status %d", st)
	}
	c.expectText("main table.facts", "prod, eu-prod")
}
