package httpapi_test

// Working the errors as a team (CONTRACT 8): assignment, activity and
// comments, over real HTTP on both databases.

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/config"
	"github.com/errata-dev/errata/internal/mail/mailtest"
)

// activity lists a group's activity (first page of 100), newest first.
func activity(t *testing.T, s *apitest.Server, token, groupID string) []map[string]any {
	t.Helper()
	return items(t, s, token, "/v1/groups/"+groupID+"/activity?limit=100")
}

// kinds are the kinds of entries, newest first.
func kinds(list []map[string]any) []string {
	out := make([]string, len(list))
	for i, a := range list {
		out[i] = a["kind"].(string)
	}
	return out
}

// countKind counts the entries of kind.
func countKind(list []map[string]any, kind string) int {
	n := 0
	for _, a := range list {
		if a["kind"] == kind {
			n++
		}
	}
	return n
}

func groupPath(id string) string { return "/v1/groups/" + id }

// TestAssignGroup: PATCH assignee_id sets and clears a group's assignee,
// shown on the group, its list and its tickets; only members of the
// project's organization may be assigned (422 naming assignee_id), viewers
// may not assign (403); the assignee gets an email through the delivery
// engine unless they assigned themselves; the activity records both
// changes with their actor.
func TestAssignGroup(t *testing.T) {
	t.Parallel()
	smtp := mailtest.Start(t)
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		ticket, gid := seedTicket(t, s, w.Owner.Token, w.ProjectID)
		deliverDue(t, s) // the world's invitations
		patchJSON(s, w.Viewer.Token, groupPath(gid), map[string]any{"assignee_id": w.Member.MemberID}).Expect(t, http.StatusForbidden, "forbidden")
		for _, bad := range []string{"mem_00000000000000000000000000", "not-an-id", w.Owner.UserID, ""} {
			r := patchJSON(s, w.Owner.Token, groupPath(gid), map[string]any{"assignee_id": bad}).Expect(t, http.StatusUnprocessableEntity, "validation-failed")
			if d := r.Str(t, "detail"); !strings.HasPrefix(d, "assignee_id: ") {
				t.Errorf("detail for %q = %q, want it to name assignee_id", bad, d)
			}
		}
		// A member of another organization is not a member of this one.
		outsider := s.MemberID(t, w.Outsider.Token, w.OtherOrgID, w.Outsider.UserID)
		patchJSON(s, w.Owner.Token, groupPath(gid), map[string]any{"assignee_id": outsider}).Expect(t, http.StatusUnprocessableEntity, "validation-failed")

		g := patchJSON(s, w.Owner.Token, groupPath(gid), map[string]any{"assignee_id": w.Member.MemberID}).Expect(t, http.StatusOK, "").JSON(t)
		a, _ := g["assignee"].(map[string]any)
		if a["member_id"] != w.Member.MemberID || a["email"] != "member@example.com" || a["name"] == "" {
			t.Fatalf("assignee = %v, want the member", g["assignee"])
		}
		if g["status"] != "unresolved" {
			t.Errorf("status after assigning = %v, want unchanged", g["status"])
		}
		if tk := getJSON(t, s, w.Viewer.Token, "/v1/tickets/"+ticket); tk["assignee"].(map[string]any)["member_id"] != w.Member.MemberID {
			t.Errorf("ticket assignee = %v", tk["assignee"])
		}
		if it := items(t, s, w.Viewer.Token, "/v1/projects/"+w.ProjectID+"/tickets")[0]; it["assignee"].(map[string]any)["member_id"] != w.Member.MemberID {
			t.Errorf("ticket item assignee = %v", it["assignee"])
		}
		if gl := items(t, s, w.Viewer.Token, "/v1/projects/"+w.ProjectID+"/groups")[0]; gl["assignee"].(map[string]any)["member_id"] != w.Member.MemberID {
			t.Errorf("group item assignee = %v", gl["assignee"])
		}
		if n := deliverDue(t, s); n != 1 {
			t.Fatalf("deliveries attempted = %d, want the assignment email", n)
		}
		m := smtp.Wait(t, 30*time.Second, func(m mailtest.Message) bool {
			return mailtest.To("member@example.com")(m) && strings.Contains(m.Parts["text/plain"], testAppURL+"/groups/"+gid)
		})
		if subj := m.Header.Get("Subject"); !strings.Contains(subj, "assigned to you") {
			t.Errorf("Subject = %q", subj)
		}
		if !strings.Contains(m.Parts["text/plain"], "assigned this error group of web to you") {
			t.Errorf("text:\n%s", m.Parts["text/plain"])
		}

		// Assigning oneself sends nothing; null unassigns.
		patchJSON(s, w.Admin.Token, groupPath(gid), map[string]any{"assignee_id": w.Admin.MemberID}).Expect(t, http.StatusOK, "")
		if n := deliverDue(t, s); n != 0 {
			t.Errorf("deliveries after self-assignment = %d, want none", n)
		}
		g = patchJSON(s, w.Admin.Token, groupPath(gid), map[string]any{"assignee_id": nil}).Expect(t, http.StatusOK, "").JSON(t)
		if v, ok := g["assignee"]; !ok || v != nil {
			t.Errorf("assignee after null = %v (present %v), want null", v, ok)
		}
		acts := activity(t, s, w.Viewer.Token, gid)
		if got := strings.Join(kinds(acts)[:3], ","); got != "unassigned,assigned,assigned" {
			t.Errorf("latest activity = %s, want unassigned,assigned,assigned", got)
		}
		if actor := acts[2]["actor"].(map[string]any); actor["member_id"] != w.Owner.MemberID || actor["name"] == "" {
			t.Errorf("actor of the first assignment = %v, want the owner", actor)
		}
		if acts[2]["data"].(map[string]any)["member_id"] != w.Member.MemberID {
			t.Errorf("data of the first assignment = %v", acts[2]["data"])
		}
		// A removed member's groups are unassigned.
		patchJSON(s, w.Owner.Token, groupPath(gid), map[string]any{"assignee_id": w.Viewer.MemberID}).Expect(t, http.StatusOK, "")
		s.Do(apitest.Request{Method: "DELETE", Path: "/v1/members/" + w.Viewer.MemberID, Token: w.Owner.Token}).Expect(t, http.StatusNoContent, "")
		if g := getJSON(t, s, w.Owner.Token, groupPath(gid)); g["assignee"] != nil {
			t.Errorf("assignee after the member left = %v, want null", g["assignee"])
		}
		// ... and their activity says so, by whoever removed the member.
		acts = activity(t, s, w.Owner.Token, gid)
		if acts[0]["kind"] != "unassigned" || acts[0]["actor"].(map[string]any)["member_id"] != w.Owner.MemberID ||
			acts[0]["data"].(map[string]any)["member_id"] != w.Viewer.MemberID {
			t.Errorf("latest activity after the member left = %v, want unassigned by the owner, naming the member", acts[0])
		}
	}, withAppURL, func(c *config.Serve) { c.SMTPURL = smtp.URL() })
}

// TestAssignmentEmailNoLongerTrue: an assignment email not yet sent (an
// SMTP refusal holds it for its retry) is cancelled once the group is no
// longer assigned to its recipient: unassigned, or the member removed.
func TestAssignmentEmailNoLongerTrue(t *testing.T) {
	t.Parallel()
	smtp := mailtest.Start(t)
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		_, gid := seedTicket(t, s, w.Owner.Token, w.ProjectID)
		deliverDue(t, s) // the world's invitations
		patchJSON(s, w.Owner.Token, groupPath(gid), map[string]any{"assignee_id": w.Member.MemberID}).Expect(t, http.StatusOK, "")
		patchJSON(s, w.Owner.Token, groupPath(gid), map[string]any{"assignee_id": nil}).Expect(t, http.StatusOK, "")
		patchJSON(s, w.Owner.Token, groupPath(gid), map[string]any{"assignee_id": w.Viewer.MemberID}).Expect(t, http.StatusOK, "")
		s.Do(apitest.Request{Method: "DELETE", Path: "/v1/members/" + w.Viewer.MemberID, Token: w.Owner.Token}).Expect(t, http.StatusNoContent, "")
		// The one that still holds is sent: it shows the others were
		// attempted, and cancelled, in the same round.
		patchJSON(s, w.Owner.Token, groupPath(gid), map[string]any{"assignee_id": w.Admin.MemberID}).Expect(t, http.StatusOK, "")
		deliverDue(t, s)
		smtp.Wait(t, 30*time.Second, func(m mailtest.Message) bool {
			return mailtest.To("admin@example.com")(m) && strings.Contains(m.Parts["text/plain"], gid)
		})
		for _, m := range smtp.Messages() {
			if strings.Contains(m.Header.Get("Subject"), "assigned to you") && !mailtest.To("admin@example.com")(m) {
				t.Errorf("sent %q to %v, whose assignment no longer holds", m.Header.Get("Subject"), m.Header.Get("To"))
			}
		}
		if n := deliverDue(t, s); n != 0 {
			t.Errorf("deliveries left after the round = %d, want none (cancelled)", n)
		}
	}, withAppURL, func(c *config.Serve) { c.SMTPURL = smtp.URL() })
}

// TestAssignmentEmailOnceWhenAssignedAgain: a group assigned back and forth
// before its emails go out tells only the last assignee, once: each
// assignment replaces the one not yet told.
func TestAssignmentEmailOnceWhenAssignedAgain(t *testing.T) {
	t.Parallel()
	smtp := mailtest.Start(t)
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		_, gid := seedTicket(t, s, w.Owner.Token, w.ProjectID)
		deliverDue(t, s) // the world's invitations
		for _, m := range []string{w.Member.MemberID, w.Admin.MemberID, w.Member.MemberID, w.Admin.MemberID, w.Member.MemberID} {
			patchJSON(s, w.Owner.Token, groupPath(gid), map[string]any{"assignee_id": m}).Expect(t, http.StatusOK, "")
		}
		deliverDue(t, s)
		smtp.Wait(t, 30*time.Second, func(m mailtest.Message) bool {
			return mailtest.To("member@example.com")(m) && strings.Contains(m.Parts["text/plain"], gid)
		})
		if n := deliverDue(t, s); n != 0 {
			t.Errorf("deliveries left after the round = %d, want none", n)
		}
		sent := 0
		for _, m := range smtp.Messages() {
			if strings.Contains(m.Parts["text/plain"], gid) {
				sent++
				if !mailtest.To("member@example.com")(m) {
					t.Errorf("sent %q to %v, no longer the assignee", m.Header.Get("Subject"), m.Header.Get("To"))
				}
			}
		}
		if sent != 1 {
			t.Errorf("assignment emails about the group = %d, want 1", sent)
		}
	}, withAppURL, func(c *config.Serve) { c.SMTPURL = smtp.URL() })
}

// TestProcessingActivity: processing records first_seen and ticket_opened
// for a new group, regression and ticket_opened when it comes back, with
// no actor; people's changes carry theirs.
func TestProcessingActivity(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		feed(t, s, w.Key, batchOf("api", fpEv("activity", "error")))
		gid := items(t, s, w.Owner.Token, "/v1/projects/"+w.ProjectID+"/groups")[0]["id"].(string)
		acts := activity(t, s, w.Viewer.Token, gid)
		if got := strings.Join(kinds(acts), ","); got != "ticket_opened,first_seen" {
			t.Fatalf("activity of a new group = %s, want ticket_opened,first_seen", got)
		}
		for _, a := range acts {
			if v, ok := a["actor"]; !ok || v != nil {
				t.Errorf("%s actor = %v, want null (Errata)", a["kind"], v)
			}
		}
		if d := acts[0]["data"].(map[string]any); d["reason"] != "new" || !strings.HasPrefix(d["ticket_id"].(string), "tkt_") {
			t.Errorf("ticket_opened data = %v", d)
		}
		patchJSON(s, w.Member.Token, groupPath(gid), map[string]any{"status": "resolved"}).Expect(t, http.StatusOK, "")
		feed(t, s, w.Key, batchOf("api", fpEv("activity", "error")))
		acts = activity(t, s, w.Viewer.Token, gid)
		want := "ticket_opened,regression,resolved,ticket_resolved,ticket_opened,first_seen"
		if got := strings.Join(kinds(acts), ","); got != want {
			t.Fatalf("activity = %s, want %s", got, want)
		}
		if acts[2]["actor"].(map[string]any)["member_id"] != w.Member.MemberID {
			t.Errorf("resolved actor = %v, want the member", acts[2]["actor"])
		}
		// Paging: newest first, one at a time, then the end.
		page := getJSON(t, s, w.Viewer.Token, "/v1/groups/"+gid+"/activity?limit=4")
		next := page["next_cursor"].(string)
		rest := getJSON(t, s, w.Viewer.Token, "/v1/groups/"+gid+"/activity?limit=4&cursor="+next)
		if got := len(rest["data"].([]any)); got != 2 || rest["next_cursor"] != nil {
			t.Errorf("second page = %d entries, next %v; want 2 and null", got, rest["next_cursor"])
		}
		// A merge is recorded on both groups.
		feed(t, s, w.Key, batchOf("api", fpEv("activity-other", "error")))
		other := groupByTitle(t, s, w.Owner.Token, w.ProjectID, "activity-other")["id"].(string)
		s.Do(apitest.Request{Method: "POST", Path: "/v1/groups/" + gid + "/merge", Token: w.Member.Token, Body: map[string]any{"group_ids": []string{other}}}).
			Expect(t, http.StatusOK, "")
		if k := kinds(activity(t, s, w.Viewer.Token, gid)); k[0] != "merged" {
			t.Errorf("target's latest activity = %v, want merged", k)
		}
		if k := kinds(activity(t, s, w.Viewer.Token, other)); k[0] != "merged" || k[1] != "ticket_resolved" {
			t.Errorf("merged group's latest activity = %v, want merged, ticket_resolved", k)
		}
		// A merged group is changed through the one it was merged into.
		for _, ch := range []map[string]any{{"status": "unresolved"}, {"assignee_id": w.Member.MemberID}} {
			patchJSON(s, w.Member.Token, groupPath(other), ch).Expect(t, http.StatusConflict, "conflict")
		}
	})
}

// TestConcurrentResolveAndAssign: two people resolving and assigning one
// group at once leave one consistent state and an entry each.
func TestConcurrentResolveAndAssign(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		for round := 0; round < 5; round++ {
			_, gid := seedTicket(t, s, w.Owner.Token, w.ProjectID)
			var wg sync.WaitGroup
			for _, body := range []map[string]any{{"status": "resolved"}, {"assignee_id": w.Member.MemberID}} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if r := patchJSON(s, w.Admin.Token, groupPath(gid), body); r.Status != http.StatusOK {
						t.Errorf("PATCH %v: %d %s", body, r.Status, r.Body)
					}
				}()
			}
			wg.Wait()
			g := getJSON(t, s, w.Owner.Token, groupPath(gid))
			if g["status"] != "resolved" || g["assignee"] == nil {
				t.Errorf("round %d: status %v, assignee %v; want resolved and assigned", round, g["status"], g["assignee"])
			}
			acts := activity(t, s, w.Owner.Token, gid)
			if countKind(acts, "resolved") != 1 || countKind(acts, "assigned") != 1 || countKind(acts, "ticket_resolved") != 1 {
				t.Errorf("round %d: activity %v, want one resolved, one assigned, one ticket_resolved", round, kinds(acts))
			}
		}
		// Two assignments at once: one wins, each is recorded.
		_, gid := seedTicket(t, s, w.Owner.Token, w.ProjectID)
		var wg sync.WaitGroup
		for _, m := range []string{w.Member.MemberID, w.Admin.MemberID} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				patchJSON(s, w.Owner.Token, groupPath(gid), map[string]any{"assignee_id": m}).Expect(t, http.StatusOK, "")
			}()
		}
		wg.Wait()
		acts := activity(t, s, w.Owner.Token, gid)
		last := acts[0]["data"].(map[string]any)["member_id"]
		if g := getJSON(t, s, w.Owner.Token, groupPath(gid)); countKind(acts, "assigned") != 2 || g["assignee"].(map[string]any)["member_id"] != last {
			t.Errorf("assignee %v after %v: the latest entry must name the assignee", g["assignee"], acts)
		}
	})
}

// TestComments: members comment (201); the author or an admin edits (200)
// and deletes (204); another member may not (403), a viewer may not
// comment (403); bodies are 1 to 10,000 characters; the activity shows a
// comment with its id and body, edited in place and gone once deleted.
func TestComments(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		_, gid := seedTicket(t, s, w.Owner.Token, w.ProjectID)
		post := func(token, body string) *apitest.Response {
			return s.Do(apitest.Request{Method: "POST", Path: "/v1/groups/" + gid + "/comments", Token: token, Body: map[string]any{"body": body}})
		}
		post(w.Viewer.Token, "hi").Expect(t, http.StatusForbidden, "forbidden")
		for _, bad := range []string{"", "   ", strings.Repeat("é", 10_001)} {
			if d := post(w.Member.Token, bad).Expect(t, http.StatusUnprocessableEntity, "validation-failed").Str(t, "detail"); !strings.Contains(d, "body") {
				t.Errorf("detail = %q, want it to name body", d)
			}
		}
		post(w.Member.Token, strings.Repeat("é", 10_000)).Expect(t, http.StatusCreated, "")
		c := post(w.Member.Token, "looks like the cache\nagain").Expect(t, http.StatusCreated, "").JSON(t)
		cid := c["id"].(string)
		if !strings.HasPrefix(cid, "cmt_") || c["group_id"] != gid || c["body"] != "looks like the cache\nagain" ||
			c["author"].(map[string]any)["member_id"] != w.Member.MemberID || c["created_at"] != c["updated_at"] {
			t.Fatalf("comment = %v", c)
		}
		acts := activity(t, s, w.Viewer.Token, gid)
		if d := acts[0]["data"].(map[string]any); acts[0]["kind"] != "comment" || d["comment_id"] != cid || d["body"] != c["body"] {
			t.Errorf("latest activity = %v, want the comment", acts[0])
		}
		path := "/v1/comments/" + cid
		edit := map[string]any{"body": "it was the cache"}
		s.Do(apitest.Request{Method: "PATCH", Path: path, Token: w.Admin.Token, Body: map[string]any{"body": "admin's word"}}).Expect(t, http.StatusOK, "")
		other := s.AddMember(t, w.Owner.Token, w.OrgID, "other@example.com", "member")
		s.Do(apitest.Request{Method: "PATCH", Path: path, Token: other.Token, Body: edit}).Expect(t, http.StatusForbidden, "forbidden")
		s.Do(apitest.Request{Method: "DELETE", Path: path, Token: other.Token}).Expect(t, http.StatusForbidden, "forbidden")
		// 403 before 400 and 422 (CONTRACT 6): whatever the body, another
		// member may not edit it.
		s.Do(apitest.Request{Method: "PATCH", Path: path, Token: other.Token, Body: []byte("{bad")}).Expect(t, http.StatusForbidden, "forbidden")
		s.Do(apitest.Request{Method: "PATCH", Path: path, Token: other.Token, Body: map[string]any{"body": ""}}).Expect(t, http.StatusForbidden, "forbidden")
		s.Do(apitest.Request{Method: "PATCH", Path: path, Token: w.Outsider.Token, Body: edit}).Expect(t, http.StatusNotFound, "not-found")
		e := s.Do(apitest.Request{Method: "PATCH", Path: path, Token: w.Member.Token, Body: edit}).Expect(t, http.StatusOK, "").JSON(t)
		if e["body"] != "it was the cache" {
			t.Errorf("edited = %v", e)
		}
		if d := activity(t, s, w.Viewer.Token, gid)[0]["data"].(map[string]any); d["body"] != "it was the cache" {
			t.Errorf("activity after the edit = %v", d)
		}
		s.Do(apitest.Request{Method: "DELETE", Path: path, Token: w.Admin.Token}).Expect(t, http.StatusNoContent, "")
		s.Do(apitest.Request{Method: "DELETE", Path: path, Token: w.Member.Token}).Expect(t, http.StatusNotFound, "not-found")
		if n := countKind(activity(t, s, w.Viewer.Token, gid), "comment"); n != 1 {
			t.Errorf("comment entries after the delete = %d, want 1 (the long one)", n)
		}
	})
}

// TestCommentEditsAtOnce: edits of one comment fired together leave the
// last one written, stamped with the latest update time of all the
// answers: on PostgreSQL the edit took its time before waiting for the
// row, and an edit answered earlier could be the one kept.
func TestCommentEditsAtOnce(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		_, gid := seedTicket(t, s, w.Owner.Token, w.ProjectID)
		for round := range 8 {
			c := s.Do(apitest.Request{Method: "POST", Path: "/v1/groups/" + gid + "/comments", Token: w.Member.Token, Body: map[string]any{"body": "first"}}).Expect(t, http.StatusCreated, "").JSON(t)
			cid := c["id"].(string)
			type answer struct {
				body string
				at   time.Time
			}
			answers := make([]answer, 6)
			var wg sync.WaitGroup
			for i := range answers {
				token := w.Member.Token
				if i%2 == 1 {
					token = w.Admin.Token
				}
				wg.Go(func() {
					body := "edit " + string(rune('a'+i))
					e := s.Do(apitest.Request{Method: "PATCH", Path: "/v1/comments/" + cid, Token: token, Body: map[string]any{"body": body}}).Expect(t, http.StatusOK, "").JSON(t)
					at, err := time.Parse(time.RFC3339Nano, e["updated_at"].(string))
					if err != nil {
						t.Error(err)
					}
					answers[i] = answer{body, at.Truncate(time.Millisecond)}
				})
			}
			wg.Wait()
			stored, err := s.App.DB.Read().CommentByID(t.Context(), cid)
			if err != nil {
				t.Fatal(err)
			}
			latest := answers[0].at
			for _, a := range answers {
				if a.at.After(latest) {
					latest = a.at
				}
			}
			kept := false
			for _, a := range answers {
				kept = kept || (a.body == stored.Body && a.at.Equal(latest))
			}
			if !stored.UpdatedAt.Equal(latest) || !kept {
				t.Fatalf("round %d: stored %q at %s; answers %v: the edit kept is not the one answered last", round, stored.Body, stored.UpdatedAt, answers)
			}
		}
	})
}
