package web_test

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/config"
	"github.com/errata-dev/errata/internal/mail/mailtest"
)

// TestMembersShowInvitationEmails: with an SMTP server, an invitation made
// on the members page is emailed by the delivery engine, and the page
// shows its email as sending, then sent.
func TestMembersShowInvitationEmails(t *testing.T) {
	t.Parallel()
	smtp := mailtest.Start(t)
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		admin := newBrowser(t, s)
		admin.signIn(w.Admin.Email)
		admin.post("/orgs/"+w.OrgID+"/invitations", url.Values{"email": {"mailed@example.com"}, "role": {"viewer"}}).expect(t, http.StatusCreated)
		members := "/orgs/" + w.OrgID + "/members"
		admin.get(members).expect(t, http.StatusOK, "mailed@example.com", `<span class="badge status-pending">sending</span>`)
		chanDeliverDue(t, s)
		smtp.Wait(t, 10*time.Second, mailtest.To("mailed@example.com"))
		admin.get(members).expect(t, http.StatusOK, `<span class="badge status-delivered">sent</span>`)
	}, func(c *config.Serve) { c.SMTPURL = smtp.URL() })
}
