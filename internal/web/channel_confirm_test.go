package web_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/config"
	"github.com/errata-dev/errata/internal/mail/mailtest"
	"github.com/errata-dev/errata/internal/notify"
	"github.com/errata-dev/errata/internal/store/storetest"
)

var confirmLinkRe = regexp.MustCompile(`https?://\S+(/email/confirm\?token=[A-Za-z0-9_%-]+)`)

// TestChannelConfirmationPages: the dashboard shows an email channel waiting
// for its address to confirm, lets an admin send the confirmation again,
// and the email's links work in a browser with no account: the
// confirmation page, and the unsubscribe page whose button stops the
// channel, which the channel's page then says.
func TestChannelConfirmationPages(t *testing.T) {
	t.Parallel()
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			smtp := mailtest.Start(t)
			s := apitest.Start(t, d, func(c *config.Serve) { c.SMTPURL = smtp.URL() })
			w := s.NewWorld(t)
			chID := s.Do(apitest.Request{Method: "POST", Path: "/v1/projects/" + w.ProjectID + "/channels", Token: w.Admin.Token,
				Body: map[string]any{"member_id": w.Admin.MemberID, "name": "Stranger", "type": "email", "email": "stranger@example.net"}}).
				Expect(t, http.StatusCreated, "").Str(t, "id")
			page := "/channels/" + chID
			chanDeliverDue(t, s)
			smtp.Count(t, 30*time.Second, 1)

			viewer := newBrowser(t, s)
			viewer.signIn(w.Viewer.Email)
			v := viewer.get(page).expect(t, http.StatusOK, "pending confirmation", "Waiting for confirmation", "stranger@example.net is not the email of a member")
			if strings.Contains(v.Body, "resend-confirmation") {
				t.Error("a viewer is offered to send the confirmation again")
			}
			viewer.get("/projects/"+w.ProjectID+"/channels").expect(t, http.StatusOK, "pending confirmation")

			admin := newBrowser(t, s)
			admin.signIn(w.Admin.Email)
			admin.get(page).expect(t, http.StatusOK, `action="/channels/`+chID+`/resend-confirmation"`)
			chanCreate(admin, w.ProjectID, url.Values{"type": {"email"}, "name": {"Other"}, "email": {"other@example.net"}}).
				expect(t, http.StatusCreated, "nothing is sent to it (no ticket, digest or test) until that link is opened")
			admin.post(page+"/resend-confirmation", nil).expect(t, http.StatusTooManyRequests, `role="alert"`, "less than 10 minutes ago")
			s.Clock.Advance(notify.ConfirmationResend.Span)
			admin.post(page+"/resend-confirmation", nil).expect(t, http.StatusOK, "The confirmation email is on its way to stranger@example.net")
			chanDeliverDue(t, s)
			var resent mailtest.Message // the second to the stranger; the third is Other's
			for _, m := range smtp.Count(t, 30*time.Second, 3)[1:] {
				if mailtest.To("stranger@example.net")(m) {
					resent = m
				}
			}

			// The link of the second email confirms, in a browser with no account.
			m := confirmLinkRe.FindStringSubmatch(resent.Parts["text/plain"])
			if m == nil {
				t.Fatalf("no confirmation link in:\n%s", resent.Parts["text/plain"])
			}
			stranger := newBrowser(t, s)
			stranger.get(m[1]).expect(t, http.StatusOK, "Notifications confirmed", "web")
			admin.get(page).expect(t, http.StatusOK, "<th scope=\"row\">confirmation</th><td>confirmed</td>")
			if strings.Contains(admin.get(page).Body, "Waiting for confirmation") {
				t.Error("a confirmed channel still shows it waits")
			}

			// The unsubscribe page: a button, whose POST stops the channel.
			lu := strings.Trim(resent.Header.Get("List-Unsubscribe"), "<>")
			u, err := url.Parse(lu)
			if err != nil || u.Path != notify.UnsubscribePath {
				t.Fatalf("List-Unsubscribe %q", lu)
			}
			form := stranger.get(u.RequestURI()).expect(t, http.StatusOK, "Unsubscribe stranger@example.net", `<button type="submit">Unsubscribe</button>`)
			action := regexp.MustCompile(`action="([^"]+)"`).FindStringSubmatch(form.Body)
			if action == nil {
				t.Fatal("the unsubscribe page has no form")
			}
			stranger.post(strings.ReplaceAll(action[1], "&amp;", "&"), url.Values{"List-Unsubscribe": {"One-Click"}}).
				expect(t, http.StatusOK, "Unsubscribed", "no longer receives")
			admin.get(page).expect(t, http.StatusOK, "Unsubscribed by its recipient", `<span class="badge health-failing">unsubscribed</span>`, "disabled")
			stranger.get("/email/unsubscribe?channel="+chID+"&token=forged").expect(t, http.StatusNotFound, "This unsubscribe link is not valid")
			stranger.get("/email/confirm?token=forged").expect(t, http.StatusNotFound, "This confirmation link is not valid")
			// A channel parameter no channel id can be (a NUL, bytes that
			// are not UTF-8) is a link that is not valid, on PostgreSQL too.
			for _, bad := range []string{"%00", "%ff"} {
				stranger.get("/email/unsubscribe?channel="+chID+bad+"&token=x").expect(t, http.StatusNotFound, "This unsubscribe link is not valid")
				stranger.post("/email/unsubscribe?channel="+chID+bad+"&token=x", url.Values{"List-Unsubscribe": {"One-Click"}}).
					expect(t, http.StatusNotFound, "This unsubscribe link is not valid")
			}
		})
	}
}

// TestChannelPagesWithoutSMTP: without ERRATA_SMTP_URL an email channel's
// pages say that no email can bring the confirmation link and offer no
// resend; one posted anyway says so rather than that an email is on its
// way.
func TestChannelPagesWithoutSMTP(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, storetest.Dialects[0])
	w := s.NewWorld(t)
	admin := newBrowser(t, s)
	admin.signIn(w.Admin.Email)
	created := chanCreate(admin, w.ProjectID, url.Values{"type": {"email"}, "name": {"Stranger"}, "email": {"stranger@example.net"}}).
		expect(t, http.StatusCreated, "this server sends no email")
	if strings.Contains(created.Body, "Errata sent it a confirmation link") {
		t.Error("the created page says a confirmation link was sent")
	}
	chID := regexp.MustCompile(`/channels/(chn_[0-9a-z]+)`).FindStringSubmatch(created.Body)
	if chID == nil {
		t.Fatalf("no channel link in:\n%s", created.Body)
	}
	page := "/channels/" + chID[1]
	if p := admin.get(page).expect(t, http.StatusOK, "this server sends no email"); strings.Contains(p.Body, "resend-confirmation") {
		t.Error("the page offers to send the confirmation email again, which no server without SMTP can")
	}
	s.Clock.Advance(notify.ConfirmationResend.Span)
	if r := admin.post(page+"/resend-confirmation", nil).expect(t, http.StatusOK, "this server sends no email"); strings.Contains(r.Body, "is on its way") {
		t.Error("the resend says an email is on its way")
	}
}
