package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/config"
	"github.com/errata-dev/errata/internal/mail/mailtest"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/tickets"
)

// TestBulkAssignmentOneEmail: a bulk change assigning several groups tells
// the assignee in one email naming each group, not one email a group; a
// group taken back before it is sent is left out of it, and with every
// group taken back it is cancelled.
func TestBulkAssignmentOneEmail(t *testing.T) {
	t.Parallel()
	smtp := mailtest.Start(t)
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w, gids, bulk := bulkAssignWorld(t, s, 4)
		bulk(gids, w.Member.MemberID)
		// One group taken back before the email goes out: the others
		// still hold, so it is sent, without it.
		patchJSON(s, w.Owner.Token, groupPath(gids[0]), map[string]any{"assignee_id": nil}).Expect(t, http.StatusOK, "")
		if n := deliverDue(t, s); n != 0 {
			t.Fatalf("deliveries attempted at once after a bulk assignment = %d, want none while its email gathers the bulk's groups", n)
		}
		s.Clock.Advance(gathered)
		if n := deliverDue(t, s); n != 1 {
			t.Fatalf("deliveries attempted after a bulk assignment of 4 groups = %d, want 1 email", n)
		}
		m := smtp.Wait(t, 30*time.Second, func(m mailtest.Message) bool {
			return mailtest.To("member@example.com")(m) && strings.Contains(m.Parts["text/plain"], gids[1])
		})
		if subj := m.Header.Get("Subject"); subj != "[web] 3 error groups assigned to you" {
			t.Errorf("Subject = %q", subj)
		}
		text := m.Parts["text/plain"]
		for _, gid := range gids[1:] {
			if !strings.Contains(text, testAppURL+"/groups/"+gid) || !strings.Contains(m.Parts["text/html"], `href="`+testAppURL+"/groups/"+gid+`"`) {
				t.Errorf("the email does not link group %s:\n%s\n%s", gid, text, m.Parts["text/html"])
			}
		}
		if !strings.Contains(text, "assigned 3 error groups of web to you") || strings.Contains(text, gids[0]) {
			t.Errorf("want the three groups still assigned, not the one taken back; text:\n%s", text)
		}

		// Every group of a bulk email taken back before it is sent: it is
		// cancelled. One group alone is the one-group email.
		bulk(gids[1:], w.Admin.MemberID)
		bulk(gids[1:], nil)
		bulk(gids[:1], w.Admin.MemberID)
		s.Clock.Advance(gathered)
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

// TestBulkAssignmentEmailOnce: groups assigned by a bulk and assigned again
// before its email goes out are told once, by the latest assignment's
// email: a bulk back and forth sends one email; a group of a bulk moved
// away and back by itself is left out of the bulk's email, which names the
// others alone.
func TestBulkAssignmentEmailOnce(t *testing.T) {
	t.Parallel()
	smtp := mailtest.Start(t)
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w, gids, bulk := bulkAssignWorld(t, s, 3)
		bulk(gids[:2], w.Member.MemberID)
		bulk(gids[:2], w.Admin.MemberID)
		bulk(gids[:2], w.Member.MemberID)
		s.Clock.Advance(gathered)
		deliverDue(t, s)
		smtp.Wait(t, 30*time.Second, func(m mailtest.Message) bool {
			return mailtest.To("member@example.com")(m) && strings.Contains(m.Parts["text/plain"], gids[0])
		})
		// A group of a bulk moved away and back by itself: its own email
		// tells it, the bulk's the other.
		bulk(gids[1:], w.Admin.MemberID)
		s.Clock.Advance(time.Second)
		patchJSON(s, w.Owner.Token, groupPath(gids[1]), map[string]any{"assignee_id": w.Member.MemberID}).Expect(t, http.StatusOK, "")
		s.Clock.Advance(time.Second)
		patchJSON(s, w.Owner.Token, groupPath(gids[1]), map[string]any{"assignee_id": w.Admin.MemberID}).Expect(t, http.StatusOK, "")
		s.Clock.Advance(gathered)
		deliverDue(t, s)
		smtp.Wait(t, 30*time.Second, func(m mailtest.Message) bool {
			return mailtest.To("admin@example.com")(m) && strings.Contains(m.Parts["text/plain"], gids[2])
		})
		if n := deliverDue(t, s); n != 0 {
			t.Errorf("deliveries left = %d, want none", n)
		}
		told := toldOf(smtp, gids)
		for _, k := range []string{"member@example.com " + gids[0], "member@example.com " + gids[1], "admin@example.com " + gids[1], "admin@example.com " + gids[2]} {
			if told[k] != 1 {
				t.Errorf("emails telling %s = %d, want 1 (all: %v)", k, told[k], told)
			}
		}
		if len(told) != 4 {
			t.Errorf("emails told %v, want the four above", told)
		}
	}, withAppURL, func(c *config.Serve) { c.SMTPURL = smtp.URL() })
}

// TestBulkAssignmentOfManyGroups: a bulk of more groups than one of its
// transactions takes tells the assignee in one email: each transaction
// adds its groups to the bulk's email while it waits.
func TestBulkAssignmentOfManyGroups(t *testing.T) {
	t.Parallel()
	smtp := mailtest.Start(t)
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w, _, _ := bulkAssignWorld(t, s, 150)
		s.Do(apitest.Request{Method: "POST", Path: "/v1/projects/" + w.ProjectID + "/groups/bulk", Token: w.Owner.Token,
			Body: map[string]any{"query": "is:unassigned", "set": map[string]any{"assignee_id": w.Member.MemberID}}}).Expect(t, http.StatusOK, "")
		s.Clock.Advance(gathered)
		if n := deliverDue(t, s); n != 1 {
			t.Fatalf("deliveries attempted after a bulk assignment of 150 groups = %d, want 1 email", n)
		}
		m := smtp.Wait(t, 30*time.Second, func(m mailtest.Message) bool {
			return mailtest.To("member@example.com")(m) && strings.Contains(m.Parts["text/plain"], w.ProjectID)
		})
		if m.Header.Get("Subject") != "[web] 150 error groups assigned to you" {
			t.Errorf("Subject = %q", m.Header.Get("Subject"))
		}
		if text := m.Parts["text/plain"]; !strings.Contains(text, "and 130 more:") || !strings.Contains(text, testAppURL+"/projects/"+w.ProjectID+"/groups?query=assigned%3Ame") {
			t.Errorf("text:\n%s", text)
		}
	}, withAppURL, func(c *config.Serve) { c.SMTPURL = smtp.URL() })
}

// TestAssignmentEmailOfMergedGroup: a group merged into another before its
// assignment email goes out is no longer anyone's: its email is cancelled,
// the target's is sent.
func TestAssignmentEmailOfMergedGroup(t *testing.T) {
	t.Parallel()
	smtp := mailtest.Start(t)
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w, gids, _ := bulkAssignWorld(t, s, 2)
		for _, gid := range gids {
			patchJSON(s, w.Owner.Token, groupPath(gid), map[string]any{"assignee_id": w.Member.MemberID}).Expect(t, http.StatusOK, "")
		}
		r := s.Do(apitest.Request{Method: "POST", Path: "/v1/projects/" + w.ProjectID + "/groups/bulk", Token: w.Owner.Token,
			Body: map[string]any{"ids": gids, "merge": true}}).Expect(t, http.StatusOK, "").JSON(t)
		if r["updated"] != float64(2) {
			t.Fatalf("merge = %v", r)
		}
		target, merged := gids[0], gids[1]
		if g := getJSON(t, s, w.Owner.Token, groupPath(target)); g["merged_into"] != nil {
			target, merged = merged, target
		}
		if n := deliverDue(t, s); n != 2 {
			t.Fatalf("deliveries attempted = %d, want both emails (one cancelled)", n)
		}
		smtp.Wait(t, 30*time.Second, func(m mailtest.Message) bool { return strings.Contains(m.Parts["text/plain"], target) })
		for _, m := range smtp.Messages() {
			if strings.Contains(m.Parts["text/plain"], merged) {
				t.Errorf("told the assignment of %s, merged into %s before its email went out", merged, target)
			}
		}
	}, withAppURL, func(c *config.Serve) { c.SMTPURL = smtp.URL() })
}

// TestBulkAssignmentEmailPartsKeepTheirTime: a group of a bulk's first
// transaction assigned away and back before the bulk's last transaction is
// told by its own email only: each transaction's groups are checked against
// when that transaction added them, not when the last one did.
func TestBulkAssignmentEmailPartsKeepTheirTime(t *testing.T) {
	t.Parallel()
	smtp := mailtest.Start(t)
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w, gids, _ := bulkAssignWorld(t, s, 3)
		assign := func(gid, member string) {
			t.Helper()
			s.Clock.Advance(time.Second)
			patchJSON(s, w.Owner.Token, groupPath(gid), map[string]any{"assignee_id": member}).Expect(t, http.StatusOK, "")
		}
		for _, gid := range gids {
			assign(gid, w.Member.MemberID)
		}
		// The bulk's transactions, as tickets.BulkChange runs them: the
		// first two groups, then (after the first was moved away and back
		// by itself) the third.
		part := func(ids ...string) {
			t.Helper()
			s.Clock.Advance(time.Second)
			m := tickets.AssignmentEmail{Bulk: "dlv_bulk" + w.ProjectID, ProjectID: w.ProjectID, Project: "web", To: "member@example.com", AssignedBy: "Owner"}
			for _, gid := range ids {
				m.Groups = append(m.Groups, tickets.AssignedGroup{ID: gid, Title: "failure"})
			}
			if err := s.App.DB.Tx(context.Background(), func(c *store.Conn) error { return s.App.Notify.QueueAssignment(context.Background(), c, m) }); err != nil {
				t.Fatal(err)
			}
		}
		part(gids[0], gids[1])
		assign(gids[0], w.Admin.MemberID)
		assign(gids[0], w.Member.MemberID)
		part(gids[2])
		s.Clock.Advance(gathered)
		if n := deliverDue(t, s); n != 2 {
			t.Fatalf("deliveries attempted = %d, want the bulk's email and the first group's own", n)
		}
		smtp.Wait(t, 30*time.Second, func(m mailtest.Message) bool { return strings.Contains(m.Parts["text/plain"], gids[2]) })
		smtp.Wait(t, 30*time.Second, func(m mailtest.Message) bool {
			return strings.Contains(m.Parts["text/plain"], gids[0]) && !strings.Contains(m.Parts["text/plain"], gids[2])
		})
		if told := toldOf(smtp, gids)["member@example.com "+gids[0]]; told != 1 {
			t.Errorf("emails telling the member of %s = %d, want 1", gids[0], told)
		}
	}, withAppURL, func(c *config.Serve) { c.SMTPURL = smtp.URL() })
}

// toldOf counts the emails the sink received naming each of gids, by
// "<recipient> <group id>".
func toldOf(smtp *mailtest.Server, gids []string) map[string]int {
	told := map[string]int{}
	for _, m := range smtp.Messages() {
		for _, gid := range gids {
			if strings.Contains(m.Parts["text/plain"], gid) {
				told[strings.Trim(m.Header.Get("To"), "<>")+" "+gid]++
			}
		}
	}
	return told
}

// gathered is longer than a bulk's assignment email waits for the bulk's
// groups (notify's bulkGather).
const gathered = 11 * time.Second

// bulkAssignWorld makes a world whose project has n groups (its invitation
// emails sent) and returns them (the first 100) with a bulk assignment as
// its owner, a second after the previous change.
func bulkAssignWorld(t *testing.T, s *apitest.Server, n int) (apitest.World, []string, func(ids []string, assignee any)) {
	t.Helper()
	w := s.NewWorld(t)
	var evs []map[string]any
	for i := range n {
		evs = append(evs, fpEv(fmt.Sprintf("bulk-%d-%d", emailSeq.Add(1), i), "error"))
	}
	feed(t, s, projectKey(t, s, w.Owner.Token, w.ProjectID), batchOf("api", evs...))
	gids := ids(items(t, s, w.Owner.Token, "/v1/projects/"+w.ProjectID+"/groups?limit=100"))
	if len(gids) != min(n, 100) {
		t.Fatalf("groups = %d, want %d", len(gids), n)
	}
	deliverDue(t, s) // the world's invitations
	return w, gids, func(ids []string, assignee any) {
		t.Helper()
		s.Clock.Advance(time.Second)
		s.Do(apitest.Request{Method: "POST", Path: "/v1/projects/" + w.ProjectID + "/groups/bulk", Token: w.Owner.Token,
			Body: map[string]any{"ids": ids, "set": map[string]any{"assignee_id": assignee}}}).Expect(t, http.StatusOK, "")
	}
}
