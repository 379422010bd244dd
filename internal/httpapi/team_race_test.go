package httpapi_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/intake"
	"github.com/errata-dev/errata/internal/problem"
)

// TestAssignWhileMemberIsRemoved: assignments to a member fired together
// with the member's removal leave no group assigned to someone who is no
// longer a member: each assignment either lands before the removal, which
// then unassigns it, or is refused (on PostgreSQL the removal waits for
// the assignment holding the member's row).
func TestAssignWhileMemberIsRemoved(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		var gids []string
		for _, name := range []string{"alpha", "bravo", "charlie", "delta"} {
			feed(t, s, w.Key, batchOf("api", fpEv("race "+name, "error")))
			gids = append(gids, groupByTitle(t, s, w.Owner.Token, w.ProjectID, "failure race "+name)["id"].(string))
		}
		for round := range 6 {
			m := s.AddMember(t, w.Owner.Token, w.OrgID, fmt.Sprintf("racer%d@example.com", round), "member")
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i := range 3 * len(gids) {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					patchJSON(s, w.Admin.Token, "/v1/groups/"+gids[i%len(gids)], map[string]any{"assignee_id": m.MemberID})
				}()
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				s.Do(apitest.Request{Method: "DELETE", Path: "/v1/members/" + m.MemberID, Token: w.Owner.Token}).Expect(t, http.StatusNoContent, "")
			}()
			close(start)
			wg.Wait()
			if got := items(t, s, w.Owner.Token, "/v1/projects/"+w.ProjectID+"/groups?query=is:assigned&limit=100"); len(got) != 0 {
				t.Fatalf("round %d: %d groups still assigned after their assignee was removed", round, len(got))
			}
		}
	})
}

// TestSameNamesCreatedTogether: organizations and projects of one name
// created at once each get a slug of their own, as one after the other
// would (x, x-2, x-3), never a 409.
func TestSameNamesCreatedTogether(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		for _, path := range []string{"/v1/orgs", "/v1/orgs/" + w.OrgID + "/projects"} {
			const n = 12
			slugs := make(chan string, n)
			var wg sync.WaitGroup
			start := make(chan struct{})
			for range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					r := s.Do(apitest.Request{Method: "POST", Path: path, Token: w.Owner.Token, Body: map[string]any{"name": "Same Name"}})
					if r.Status != http.StatusCreated {
						t.Errorf("POST %s: %d %s", path, r.Status, r.Body)
						return
					}
					slugs <- r.Str(t, "slug")
				}()
			}
			close(start)
			wg.Wait()
			close(slugs)
			seen := map[string]bool{}
			for sl := range slugs {
				if seen[sl] {
					t.Errorf("POST %s: slug %q twice", path, sl)
				}
				seen[sl] = true
			}
			if len(seen) != n {
				t.Errorf("POST %s: %d distinct slugs, want %d", path, len(seen), n)
			}
		}
	})
}

// TestIngestForADeletedProject: a batch whose key was checked before its
// project was deleted is answered 401, as the next request with the key
// is, not 404 (no ingestion route answers 404).
func TestIngestForADeletedProject(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		ctx := context.Background()
		p, err := s.App.DB.Read().ProjectByID(ctx, w.ProjectID)
		if err != nil {
			t.Fatal(err)
		}
		s.Do(apitest.Request{Method: "DELETE", Path: "/v1/projects/" + w.ProjectID, Token: w.Owner.Token}).Expect(t, http.StatusNoContent, "")
		in := &intake.Intake{Committer: s.App.Committer, Monitor: s.App.Monitor, Metrics: s.App.Metrics}
		err = in.Commit(ctx, "rest", p, time.Now(), []ingest.Event{{Service: "api", Message: "late", Level: ingest.Error, Timestamp: time.Now().UnixMilli()}})
		var pr *problem.Problem
		if !errors.As(err, &pr) || pr.Code() != "unauthorized" || pr.Status != http.StatusUnauthorized {
			t.Fatalf("Commit for a deleted project = %v, want 401 unauthorized", err)
		}
	})
}

// TestBulkMergeRacingAMerge: a bulk merge fired with a merge of some of its
// groups answers 200, skipping what the other merge took, and no event is
// lost or counted twice.
func TestBulkMergeRacingAMerge(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		for round := range 4 {
			var ids []string
			for i, name := range []string{"alpha", "bravo", "charlie", "delta"} {
				fp := fmt.Sprintf("merge %s %s", name, []string{"one", "two", "three", "four"}[round])
				evs := make([]map[string]any, i+1)
				for k := range evs {
					evs[k] = fpEv(fp, "error")
				}
				feed(t, s, w.Key, batchOf("api", evs...))
				ids = append(ids, groupByTitle(t, s, w.Owner.Token, w.ProjectID, "failure "+fp)["id"].(string))
			}
			var wg sync.WaitGroup
			start := make(chan struct{})
			var bulk, merge *apitest.Response
			wg.Add(2)
			go func() {
				defer wg.Done()
				<-start
				bulk = s.Do(apitest.Request{Method: "POST", Path: "/v1/projects/" + w.ProjectID + "/groups/bulk", Token: w.Member.Token,
					Body: map[string]any{"ids": []string{ids[1], ids[2], ids[3], ids[0]}, "merge": true}})
			}()
			go func() {
				defer wg.Done()
				<-start
				merge = s.Do(apitest.Request{Method: "POST", Path: "/v1/groups/" + ids[0] + "/merge", Token: w.Member.Token, Body: map[string]any{"group_ids": []string{ids[1]}}})
			}()
			close(start)
			wg.Wait()
			if bulk.Status != http.StatusOK {
				t.Fatalf("round %d: bulk merge racing a merge answered %d %s (the merge: %d)", round, bulk.Status, bulk.Body, merge.Status)
			}
			total := 0.0
			for _, gid := range ids {
				if g := getJSON(t, s, w.Owner.Token, "/v1/groups/"+gid); g["merged_into"] == nil {
					total += g["event_count"].(float64)
				}
			}
			if total != 10 {
				t.Fatalf("round %d: %v events in the groups left, want 10", round, total)
			}
		}
	})
}

// TestBulkByQueryRacingAnAssignment: a bulk assigning every unassigned
// group, fired with a PATCH assigning one of them to someone else, leaves
// that group with the PATCH's assignee whichever commits first: a group
// the PATCH took out of the query's match is not the bulk's to change.
func TestBulkByQueryRacingAnAssignment(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		for round := range 5 {
			var gids []string
			for _, name := range []string{"one", "two", "three"} {
				fp := fmt.Sprintf("claim %s %c", name, 'a'+round)
				feed(t, s, w.Key, batchOf("api", fpEv(fp, "error")))
				gids = append(gids, groupByTitle(t, s, w.Owner.Token, w.ProjectID, "failure "+fp)["id"].(string))
			}
			var wg sync.WaitGroup
			start := make(chan struct{})
			var bulk, patch *apitest.Response
			wg.Add(2)
			go func() {
				defer wg.Done()
				<-start
				bulk = s.Do(apitest.Request{Method: "POST", Path: "/v1/projects/" + w.ProjectID + "/groups/bulk", Token: w.Admin.Token,
					Body: map[string]any{"query": "assigned:none", "set": map[string]any{"assignee_id": w.Admin.MemberID}}})
			}()
			go func() {
				defer wg.Done()
				<-start
				patch = s.Do(apitest.Request{Method: "PATCH", Path: "/v1/groups/" + gids[1], Token: w.Member.Token,
					Body: map[string]any{"assignee_id": w.Member.MemberID}})
			}()
			close(start)
			wg.Wait()
			if bulk.Status != http.StatusOK || patch.Status != http.StatusOK {
				t.Fatalf("round %d: bulk %d %s, patch %d %s", round, bulk.Status, bulk.Body, patch.Status, patch.Body)
			}
			for i, gid := range gids {
				want := w.Admin.MemberID
				if i == 1 {
					want = w.Member.MemberID
				}
				g := getJSON(t, s, w.Owner.Token, "/v1/groups/"+gid)
				if a, _ := g["assignee"].(map[string]any); a == nil || a["member_id"] != want {
					t.Fatalf("round %d: group %d assigned to %v, want %s (bulk answered %s)", round, i, g["assignee"], want, bulk.Body)
				}
			}
		}
	})
}
