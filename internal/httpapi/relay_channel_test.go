package httpapi_test

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/mail/mailtest"
)

// confirmLink is the confirmation link in an email's text.
var confirmLink = regexp.MustCompile(`https?://\S+/email/confirm\?token=[A-Za-z0-9_%-]+`)

// unsubscribeLink reads an email's one-click unsubscribe URL (RFC 8058)
// from its headers, failing unless both fields are there.
func unsubscribeLink(t *testing.T, m mailtest.Message) string {
	t.Helper()
	lu, post := m.Header.Get("List-Unsubscribe"), m.Header.Get("List-Unsubscribe-Post")
	if post != "List-Unsubscribe=One-Click" || !strings.HasPrefix(lu, "<http") || !strings.HasSuffix(lu, ">") {
		t.Fatalf("email %q: List-Unsubscribe %q, List-Unsubscribe-Post %q; want a one-click URL", m.Header.Get("Subject"), lu, post)
	}
	return strings.Trim(lu, "<>")
}

// openLink requests u with no account (no credential, no cookie) and returns
// the status and body.
func openLink(t *testing.T, method, u, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	res, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// TestEmailChannelNeedsConfirmation: an email channel to an address that is
// no member's sends one email, the confirmation, and nothing else (no
// ticket, digest or test) until its link is opened, by anyone, with no
// account; then it sends, every email carrying a one-click unsubscribe link
// that stops the channel for that address, no account needed. A new
// address is pending again.
func TestEmailChannelNeedsConfirmation(t *testing.T) {
	t.Parallel()
	eachWithSMTP(t, func(t *testing.T, s *apitest.Server, smtp *mailtest.Server) {
		w := newProcWorld(t, s)
		ch := createChannel(t, s, w.Admin.Token, w.ProjectID, map[string]any{"member_id": w.Admin.MemberID, "name": "victim", "type": "email",
			"email": "Victim@Example.NET", "filters": map[string]any{"min_severity": "medium"}})
		chID := ch["id"].(string)
		if ch["confirmation"] != "pending" || ch["email"] != "victim@example.net" {
			t.Fatalf("channel to a stranger = %v, want pending, to the normalised address", ch)
		}
		// What an attacker would send: a ticket, a digest, a test.
		feed(t, s, w.Key, batchOf("api", ev("buy cheap pills at evil.example", "fatal")))
		sendDigest(t, s, w.Admin.Token, w.ProjectID)
		testChannel(s, w.Member.Token, chID).Expect(t, http.StatusConflict, "channel-pending-confirmation")
		deliverDue(t, s)
		msgs := waitMail(t, smtp, 1)
		confirm := msgs[0]
		if !mailtest.To("victim@example.net")(confirm) || !strings.HasPrefix(confirm.Header.Get("Subject"), "Confirm Errata notifications of ") {
			t.Fatalf("the one email = to %v, subject %q; want the confirmation to the address", confirm.To, confirm.Header.Get("Subject"))
		}
		if d := deliveries(t, s, w.Viewer.Token, chID); len(d) != 0 {
			t.Errorf("deliveries of a pending channel = %v, want none", ids(d))
		}
		// Opening the link confirms, without an account; the link works once.
		link := confirmLink.FindString(confirm.Parts["text/plain"])
		if !strings.HasPrefix(link, s.Config.AppURL+"/") {
			t.Fatalf("confirmation link %q, want one under %s", link, s.Config.AppURL)
		}
		if st, body := openLink(t, "GET", link, ""); st != http.StatusOK || !strings.Contains(body, "Notifications confirmed") {
			t.Fatalf("opening the confirmation link: %d %s", st, body)
		}
		if st, _ := openLink(t, "GET", link, ""); st != http.StatusNotFound {
			t.Errorf("opening a used confirmation link: %d, want 404", st)
		}
		if got := getChannel(t, s, w.Viewer.Token, chID); got["confirmation"] != "confirmed" {
			t.Fatalf("channel after its link was opened = %v", got)
		}
		// Now it sends: the test and a digest, each with one-click unsubscribe.
		testChannel(s, w.Member.Token, chID).Expect(t, http.StatusOK, "")
		sendDigestAgain(t, s, w.Admin.Token, w.ProjectID)
		deliverDue(t, s)
		msgs = waitMail(t, smtp, 3)
		for _, m := range msgs[1:] {
			if !mailtest.To("victim@example.net")(m) {
				t.Errorf("email to %v, want the confirmed address", m.To)
			}
		}
		unsub := unsubscribeLink(t, msgs[2])
		if other := unsubscribeLink(t, confirm); other != unsub {
			t.Errorf("the confirmation's unsubscribe link %q differs from the channel's %q", other, unsub)
		}
		// A forged or altered token stops nothing.
		u, _ := url.Parse(unsub)
		q := u.Query()
		q.Set("token", strings.Repeat("A", len(q.Get("token"))))
		forged := *u
		forged.RawQuery = q.Encode()
		if st, _ := openLink(t, "POST", forged.String(), "List-Unsubscribe=One-Click"); st != http.StatusNotFound {
			t.Errorf("a forged unsubscribe token: %d, want 404", st)
		}
		// GET shows a button and changes nothing; the one-click POST stops it.
		if st, body := openLink(t, "GET", unsub, ""); st != http.StatusOK || !strings.Contains(body, `method="post"`) || !strings.Contains(body, "victim@example.net") {
			t.Fatalf("the unsubscribe page: %d %s", st, body)
		}
		if got := getChannel(t, s, w.Viewer.Token, chID); got["enabled"] != true || got["unsubscribed_at"] != nil {
			t.Fatalf("channel after a GET of its unsubscribe link = %v, want unchanged", got)
		}
		if st, body := openLink(t, "POST", unsub, "List-Unsubscribe=One-Click"); st != http.StatusOK || !strings.Contains(body, "no longer receives") {
			t.Fatalf("one-click unsubscribe: %d %s", st, body)
		}
		got := getChannel(t, s, w.Viewer.Token, chID)
		if got["enabled"] != false || got["unsubscribed_at"] == nil {
			t.Fatalf("channel after one-click unsubscribe = %v, want disabled with unsubscribed_at", got)
		}
		if st, _ := openLink(t, "POST", unsub, "List-Unsubscribe=One-Click"); st != http.StatusOK {
			t.Errorf("unsubscribing again: %d, want 200", st)
		}
		testChannel(s, w.Member.Token, chID).Expect(t, http.StatusConflict, "channel-unsubscribed")
		feed(t, s, w.Key, batchOf("api", ev("another fatal thing", "fatal")))
		sendDigestAgain(t, s, w.Admin.Token, w.ProjectID)
		deliverDue(t, s)
		waitMail(t, smtp, 3)

		// Enabling it again asks the address again (a channel's confirmation
		// goes at most every 10 minutes); a new address is pending, and the
		// old links no longer apply.
		s.Clock.Advance(10 * time.Minute)
		patchJSON(s, w.Admin.Token, "/v1/channels/"+chID, map[string]any{"enabled": true}).Expect(t, http.StatusOK, "")
		if got := getChannel(t, s, w.Viewer.Token, chID); got["confirmation"] != "pending" || got["unsubscribed_at"] != nil || got["enabled"] != true {
			t.Errorf("unsubscribed channel enabled again = %v, want pending", got)
		}
		s.Clock.Advance(10 * time.Minute)
		patchJSON(s, w.Admin.Token, "/v1/channels/"+chID, map[string]any{"email": "someone-else@example.org"}).Expect(t, http.StatusOK, "")
		if got := getChannel(t, s, w.Viewer.Token, chID); got["confirmation"] != "pending" || got["email"] != "someone-else@example.org" {
			t.Errorf("channel moved to another stranger = %v, want pending", got)
		}
		if st, _ := openLink(t, "POST", unsub, "List-Unsubscribe=One-Click"); st != http.StatusNotFound {
			t.Errorf("the old address's unsubscribe link after the move: %d, want 404", st)
		}
		deliverDue(t, s)
		msgs = waitMail(t, smtp, 4) // the first re-confirmation was cancelled: the address moved on
		if !mailtest.To("someone-else@example.org")(msgs[3]) || confirmLink.FindString(msgs[3].Parts["text/plain"]) == "" {
			t.Errorf("4th email to %v: want the new address's confirmation", msgs[3].To)
		}
	}, allowPrivate)
}

// TestConfirmationEmailFlood: confirmation emails are themselves limited:
// one per channel per 10 minutes (a resend), 20 per organization an hour.
func TestConfirmationEmailFlood(t *testing.T) {
	t.Parallel()
	eachWithSMTP(t, func(t *testing.T, s *apitest.Server, smtp *mailtest.Server) {
		w := s.NewWorld(t)
		var r refusals
		statuses := together(22, func(i int) int {
			return r.post(t, s.URL+channelsPath(w.ProjectID), w.Admin.Token, map[string]any{"member_id": w.Admin.MemberID, "name": fmt.Sprint("c", i),
				"type": "email", "email": fmt.Sprintf("stranger%d@example.net", i)})
		})
		if c := count(statuses); c[http.StatusCreated] != 20 || c[http.StatusTooManyRequests] != 2 {
			t.Fatalf("22 channels to strangers at once: %v, want 20 created and 2 refused", c)
		}
		r.check(t, time.Hour)
		// A member's address needs no confirmation, so no limit applies.
		createChannel(t, s, w.Admin.Token, w.ProjectID, emailChannel(w.Member.MemberID, "member's"))
		deliverDue(t, s)
		waitMail(t, smtp, 20)

		s.Clock.Advance(time.Hour)
		pending := items(t, s, w.Admin.Token, channelsPath(w.ProjectID)+"?limit=100")[1]["id"].(string)
		resend := func() *apitest.Response {
			return s.Do(apitest.Request{Method: "POST", Path: "/v1/channels/" + pending + "/confirmation", Token: w.Admin.Token})
		}
		if ch := resend().Expect(t, http.StatusOK, "").JSON(t); ch["confirmation"] != "pending" {
			t.Errorf("resent confirmation: channel %v", ch)
		}
		resend().Expect(t, http.StatusTooManyRequests, "rate-limited")
		s.Do(apitest.Request{Method: "POST", Path: "/v1/channels/" + pending + "/confirmation", Token: w.Member.Token}).Expect(t, http.StatusForbidden, "forbidden")
		deliverDue(t, s)
		msgs := waitMail(t, smtp, 21)
		// The first link of that channel no longer works: the resent one does.
		var first, second string
		for _, m := range msgs {
			if mailtest.To(getChannel(t, s, w.Admin.Token, pending)["email"].(string))(m) {
				first, second = second, confirmLink.FindString(m.Parts["text/plain"])
			}
		}
		if st, _ := openLink(t, "GET", first, ""); st != http.StatusNotFound {
			t.Errorf("the replaced confirmation link: %d, want 404", st)
		}
		if st, _ := openLink(t, "GET", second, ""); st != http.StatusOK {
			t.Errorf("the resent confirmation link: %d, want 200", st)
		}
		resend().Expect(t, http.StatusConflict, "conflict")
	})
}

// TestDigestNowFlood: "send the digest now" fired together sends one
// digest, one email to a channel; the rest are 429 until 10 minutes pass.
func TestDigestNowFlood(t *testing.T) {
	t.Parallel()
	eachWithSMTP(t, func(t *testing.T, s *apitest.Server, smtp *mailtest.Server) {
		s.Clock.Set(time.Now()) // the waits below are exact
		w := s.NewWorld(t)
		newMail(t, s, w, w.ProjectID, "mine") // the admin's own address: confirmed
		path := s.URL + "/v1/projects/" + w.ProjectID + "/digests"
		var r refusals
		statuses := together(10, func(int) int { return r.post(t, path, w.Admin.Token, map[string]any{}) })
		if c := count(statuses); c[http.StatusCreated] != 1 || c[http.StatusTooManyRequests] != 9 {
			t.Fatalf("10 digests at once: %v, want one sent and 9 refused", c)
		}
		r.check(t, 10*time.Minute)
		deliverDue(t, s)
		if m := waitMail(t, smtp, 1); m[0].Header.Get("List-Unsubscribe-Post") != "List-Unsubscribe=One-Click" {
			t.Errorf("digest email headers: %v, want one-click List-Unsubscribe", m[0].Header)
		}
		s.Clock.Advance(10*time.Minute - time.Second)
		if st, _ := rawPost(t, path, w.Admin.Token, map[string]any{}); st != http.StatusTooManyRequests {
			t.Errorf("a digest 9m59s later: %d, want 429", st)
		}
		s.Clock.Advance(time.Second)
		if st, _ := rawPost(t, path, w.Admin.Token, map[string]any{}); st != http.StatusCreated {
			t.Errorf("a digest 10 minutes later: %d, want 201", st)
		}
	})
}
