package httpapi_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/config"
	"github.com/errata-dev/errata/internal/mail/mailtest"
)

// TestBulkAssignmentOneEmail: a bulk change assigning several groups tells
// the assignee in one email naming each group, not one email a group; it is
// sent while any of its groups is still theirs, and a later change of one
// group cancels none of it.
func TestBulkAssignmentOneEmail(t *testing.T) {
	t.Parallel()
	smtp := mailtest.Start(t)
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		var gids []string
		for range 3 {
			_, gid := seedTicket(t, s, w.Owner.Token, w.ProjectID)
			gids = append(gids, gid)
		}
		deliverDue(t, s) // the world's invitations
		bulk := func(ids []string, assignee any) {
			t.Helper()
			s.Do(apitest.Request{Method: "POST", Path: "/v1/projects/" + w.ProjectID + "/groups/bulk", Token: w.Owner.Token,
				Body: map[string]any{"ids": ids, "set": map[string]any{"assignee_id": assignee}}}).Expect(t, http.StatusOK, "")
		}
		bulk(gids, w.Member.MemberID)
		// One group taken back before the email goes out: the others
		// still hold, so it is sent.
		patchJSON(s, w.Owner.Token, groupPath(gids[0]), map[string]any{"assignee_id": nil}).Expect(t, http.StatusOK, "")
		if n := deliverDue(t, s); n != 1 {
			t.Fatalf("deliveries attempted after a bulk assignment of 3 groups = %d, want 1 email", n)
		}
		m := smtp.Wait(t, 30*time.Second, func(m mailtest.Message) bool {
			return mailtest.To("member@example.com")(m) && strings.Contains(m.Parts["text/plain"], gids[1])
		})
		if subj := m.Header.Get("Subject"); subj != "[web] 3 error groups assigned to you" {
			t.Errorf("Subject = %q", subj)
		}
		text := m.Parts["text/plain"]
		for _, gid := range gids {
			if !strings.Contains(text, testAppURL+"/groups/"+gid) || !strings.Contains(m.Parts["text/html"], `href="`+testAppURL+"/groups/"+gid+`"`) {
				t.Errorf("the email does not link group %s:\n%s\n%s", gid, text, m.Parts["text/html"])
			}
		}
		if !strings.Contains(text, "assigned 3 error groups of web to you") {
			t.Errorf("text:\n%s", text)
		}

		// Every group of a bulk email taken back before it is sent: it is
		// cancelled. One group alone is the one-group email.
		bulk(gids[1:], w.Admin.MemberID)
		bulk(gids[1:], nil)
		bulk(gids[:1], w.Admin.MemberID)
		if n := deliverDue(t, s); n != 2 {
			t.Fatalf("deliveries attempted = %d, want the cancelled bulk email and the one-group email", n)
		}
		a := smtp.Wait(t, 30*time.Second, func(m mailtest.Message) bool {
			return mailtest.To("admin@example.com")(m) && strings.Contains(m.Parts["text/plain"], gids[0])
		})
		if !strings.Contains(a.Header.Get("Subject"), "assigned to you: ") || !strings.Contains(a.Parts["text/plain"], gids[0]) {
			t.Errorf("the one-group email: %q\n%s", a.Header.Get("Subject"), a.Parts["text/plain"])
		}
		for _, m := range smtp.Messages() {
			if mailtest.To("admin@example.com")(m) && strings.Contains(m.Parts["text/plain"], gids[1]) {
				t.Errorf("sent the bulk email whose groups were all taken back")
			}
		}
	}, withAppURL, func(c *config.Serve) { c.SMTPURL = smtp.URL() })
}
