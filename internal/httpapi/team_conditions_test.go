package httpapi_test

// Ignoring with a condition, resolving in a release and bulk actions
// (CONTRACT 8), over real HTTP on both databases.

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/apitest"
)

// groupTickets lists the tickets of a group (first page of 100).
func groupTickets(t *testing.T, s *apitest.Server, token, projectID, groupID string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, it := range items(t, s, token, "/v1/projects/"+projectID+"/tickets?limit=100") {
		tk := getJSON(t, s, token, "/v1/tickets/"+it["id"].(string))
		if tk["group_id"] == groupID {
			out = append(out, tk)
		}
	}
	return out
}

// userEv is an error event of the custom fingerprint fp from user.
func userEv(fp, user string) map[string]any {
	return ev("failure "+fp, "error", "attributes", map[string]any{"fingerprint": fp, "user.id": user})
}

// expectIgnored checks a group's status and, once unignored, its new ticket.
func expectStatus(t *testing.T, s *apitest.Server, token, gid, want string) map[string]any {
	t.Helper()
	g := getJSON(t, s, token, groupPath(gid))
	if g["status"] != want {
		t.Fatalf("status = %v, want %s", g["status"], want)
	}
	return g
}

// TestIgnoreConditions: an ignored group with {"events": N}, {"events": N,
// "window"}, {"users": N} or {"until"} stays ignored until the condition is
// met, then becomes unresolved (activity unignored) with a new ticket whose
// reason is unignored; bad conditions are 422 naming the field.
func TestIgnoreConditions(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		tok := w.Member.Token
		seed := func(fp string, n int) string {
			t.Helper()
			evs := make([]map[string]any, n)
			for i := range evs {
				evs[i] = fpEv(fp, "error")
			}
			feed(t, s, w.Key, batchOf("api", evs...))
			return groupByTitle(t, s, tok, w.ProjectID, fp)["id"].(string)
		}
		ignore := func(gid string, cond map[string]any) map[string]any {
			t.Helper()
			return patchJSON(s, tok, groupPath(gid), map[string]any{"status": "ignored", "ignore": cond}).Expect(t, http.StatusOK, "").JSON(t)
		}
		send := func(fp string, n int) {
			t.Helper()
			evs := make([]map[string]any, n)
			for i := range evs {
				evs[i] = fpEv(fp, "error")
			}
			feed(t, s, w.Key, batchOf("api", evs...))
		}
		unignored := func(gid string) {
			t.Helper()
			g := expectStatus(t, s, tok, gid, "unresolved")
			if g["ignore"] != nil {
				t.Errorf("ignore after unignoring = %v, want null", g["ignore"])
			}
			tks := groupTickets(t, s, tok, w.ProjectID, gid)
			if len(tks) != 2 || tks[0]["facts"].(map[string]any)["reason"] != "unignored" || tks[0]["status"] != "open" || tks[0]["id"] != g["ticket_id"] {
				t.Fatalf("tickets = %v, want a new open one with reason unignored", tks)
			}
			if f := tks[0]["facts"].(map[string]any); f["first_seen"].(string) > f["last_seen"].(string) {
				t.Errorf("facts first_seen %v after last_seen %v", f["first_seen"], f["last_seen"])
			}
			acts := activity(t, s, tok, gid)
			if acts[0]["kind"] != "ticket_opened" || acts[1]["kind"] != "unignored" || acts[1]["actor"] != nil {
				t.Errorf("activity = %v, want ticket_opened after unignored by Errata", kinds(acts))
			}
		}

		// N more events.
		gid := seed("ign-events", 4)
		if g := ignore(gid, map[string]any{"events": 3}); g["ignore"].(map[string]any)["events"] != float64(3) {
			t.Errorf("ignore shown = %v", g["ignore"])
		}
		send("ign-events", 2)
		expectStatus(t, s, tok, gid, "ignored")
		send("ign-events", 1)
		unignored(gid)

		// N within a window: the events before ignoring do not count.
		gid = seed("ign-window", 5)
		if g := ignore(gid, map[string]any{"events": 3, "window": "1h"}); g["ignore"].(map[string]any)["window"] != "1h" {
			t.Errorf("ignore shown = %v", g["ignore"])
		}
		send("ign-window", 2)
		expectStatus(t, s, tok, gid, "ignored")
		send("ign-window", 1)
		unignored(gid)

		// N more distinct users: users seen before ignoring count again.
		feed(t, s, w.Key, batchOf("api", userEv("ign-users", "u1")))
		gid = groupByTitle(t, s, tok, w.ProjectID, "ign-users")["id"].(string)
		ignore(gid, map[string]any{"users": 2})
		feed(t, s, w.Key, batchOf("api", userEv("ign-users", "u1"), userEv("ign-users", "u1"), fpEv("ign-users", "error")))
		expectStatus(t, s, tok, gid, "ignored")
		feed(t, s, w.Key, batchOf("api", userEv("ign-users", "u2"), userEv("ign-users", "u1")))
		unignored(gid)

		// Until a time: with an event after it, or without (the workers'
		// sweep, which Drain runs too).
		gid = seed("ign-until", 1)
		quiet := seed("ign-quiet", 1)
		until := time.Now().Add(2 * time.Second).UTC().Truncate(time.Second) // a whole second: shown with .000
		if g := ignore(gid, map[string]any{"until": until.Format(time.RFC3339Nano)}); g["ignore"].(map[string]any)["until"] != until.Format("2006-01-02T15:04:05.000Z") {
			t.Errorf("ignore shown = %v, want until with milliseconds and Z", g["ignore"])
		}
		ignore(quiet, map[string]any{"until": until.Format(time.RFC3339Nano)})
		send("ign-until", 1)
		expectStatus(t, s, tok, gid, "ignored")
		expectStatus(t, s, tok, quiet, "ignored")
		time.Sleep(time.Until(until) + 10*time.Millisecond)
		send("ign-until", 1)
		unignored(gid)
		unignored(quiet)

		// Forever: no condition, no ticket.
		gid = seed("ign-forever", 1)
		if g := ignore(gid, map[string]any{}); g["ignore"] != nil {
			t.Errorf("ignore {} shown as %v, want null (forever)", g["ignore"])
		}
		send("ign-forever", 5)
		expectStatus(t, s, tok, gid, "ignored")

		// Refused conditions name their field.
		for _, tc := range []struct {
			body  map[string]any
			field string
		}{
			{map[string]any{"status": "ignored", "ignore": map[string]any{"events": 3, "users": 2}}, "ignore: "},
			{map[string]any{"status": "ignored", "ignore": map[string]any{"window": "1h"}}, "ignore.window: "},
			{map[string]any{"status": "ignored", "ignore": map[string]any{"events": 3, "window": "1 hour"}}, "ignore.window: "},
			{map[string]any{"status": "ignored", "ignore": map[string]any{"events": 3, "window": "8d"}}, "ignore.window: "},
			{map[string]any{"status": "ignored", "ignore": map[string]any{"events": 0}}, "ignore.events: "},
			{map[string]any{"status": "ignored", "ignore": map[string]any{"until": "2001-01-01T00:00:00Z"}}, "ignore.until: "},
			{map[string]any{"status": "resolved", "ignore": map[string]any{"events": 3}}, "ignore: "},
			{map[string]any{"status": "ignored", "resolved_in": "next"}, "resolved_in: "},
			{map[string]any{"status": "resolved", "resolved_in": "   "}, "resolved_in: "},
			{map[string]any{"status": "resolved", "resolved_in": strings.Repeat("9", 65)}, "resolved_in: at most 64"},
			{map[string]any{}, "status: "},
		} {
			r := patchJSON(s, tok, groupPath(gid), tc.body).Expect(t, http.StatusUnprocessableEntity, "validation-failed")
			if d := r.Str(t, "detail"); !strings.HasPrefix(d, tc.field) {
				t.Errorf("%v: detail %q, want it to start with %q", tc.body, d, tc.field)
			}
		}
	})
}

// TestIgnoreConditionMetConcurrently: events arriving together, processed
// by two workers at once, meet an ignore condition; exactly one new ticket
// opens.
func TestIgnoreConditionMetConcurrently(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		feed(t, s, w.Key, batchOf("api", fpEv("ign-race", "error")))
		gid := groupByTitle(t, s, w.Owner.Token, w.ProjectID, "ign-race")["id"].(string)
		patchJSON(s, w.Owner.Token, groupPath(gid), map[string]any{"status": "ignored", "ignore": map[string]any{"events": 3}}).Expect(t, http.StatusOK, "")
		for i := 0; i < 12; i++ {
			s.Do(ingestReq(w.Key, batchOf("api", fpEv("ign-race", "error")), nil)).Expect(t, http.StatusAccepted, "")
		}
		var wg sync.WaitGroup
		for range 3 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := s.App.Processor.Drain(context.Background()); err != nil {
					t.Errorf("drain: %v", err)
				}
			}()
		}
		wg.Wait()
		drain(t, s)
		expectStatus(t, s, w.Owner.Token, gid, "unresolved")
		if tks := groupTickets(t, s, w.Owner.Token, w.ProjectID, gid); len(tks) != 2 {
			t.Errorf("tickets = %d, want the first and one unignored", len(tks))
		}
		if n := countKind(activity(t, s, w.Owner.Token, gid), "unignored"); n != 1 {
			t.Errorf("unignored entries = %d, want 1", n)
		}
	})
}

// TestResolveInRelease: a group resolved in a release regresses only on an
// event of a newer one (semver when both parse, a leading v allowed; else
// the order the project first saw them); events of older or equal releases
// are counted without reopening it. next means newer than the newest
// release seen when it was resolved.
func TestResolveInRelease(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		tok := w.Member.Token
		rel := func(fp, release string) {
			t.Helper()
			e := fpEv(fp, "error")
			e["release"] = release
			feed(t, s, w.Key, batchOf("api", e))
		}
		resolve := func(gid, in string) map[string]any {
			t.Helper()
			return patchJSON(s, tok, groupPath(gid), map[string]any{"status": "resolved", "resolved_in": in}).Expect(t, http.StatusOK, "").JSON(t)
		}

		// Semver: 1.10.0 is newer than 1.9.0; v1.9.0 is 1.9.0.
		rel("semver", "1.9.0")
		gid := groupByTitle(t, s, tok, w.ProjectID, "semver")["id"].(string)
		if g := resolve(gid, "v1.9.0"); g["resolved_in"] != "v1.9.0" {
			t.Errorf("resolved_in = %v", g["resolved_in"])
		}
		for _, old := range []string{"1.8.2", "1.9.0", "v1.9.0", "1.2.0"} {
			rel("semver", old)
		}
		if g := expectStatus(t, s, tok, gid, "resolved"); g["event_count"] != float64(5) {
			t.Errorf("event_count = %v, want 5: older releases are counted", g["event_count"])
		}
		rel("semver", "1.10.0")
		g := expectStatus(t, s, tok, gid, "unresolved")
		if g["resolved_in"] != nil {
			t.Errorf("resolved_in after the regression = %v, want null", g["resolved_in"])
		}
		if acts := activity(t, s, tok, gid); acts[1]["kind"] != "regression" || acts[1]["data"].(map[string]any)["release"] != "1.10.0" {
			t.Errorf("activity = %v", acts[:2])
		}

		// next: newer than the newest release seen when resolved (1.10.0);
		// spaces around a release are not part of it.
		if g := resolve(gid, " next "); g["resolved_in"] != "1.10.0" {
			t.Errorf("resolved_in next = %v, want 1.10.0", g["resolved_in"])
		}
		rel("semver", "1.10.0")
		expectStatus(t, s, tok, gid, "resolved")
		rel("semver", "1.10.1")
		expectStatus(t, s, tok, gid, "unresolved")

		// Not semver: the order the project first saw them.
		rel("named", "alpha")
		rel("other", "bravo")
		gid = groupByTitle(t, s, tok, w.ProjectID, "named")["id"].(string)
		resolve(gid, "bravo")
		rel("named", "alpha")
		rel("named", "bravo")
		expectStatus(t, s, tok, gid, "resolved")
		rel("named", "charlie")
		expectStatus(t, s, tok, gid, "unresolved")
		if tks := groupTickets(t, s, tok, w.ProjectID, gid); len(tks) != 2 || tks[0]["facts"].(map[string]any)["reason"] != "regression" {
			t.Errorf("tickets = %v, want a regression", tks)
		}

		// A release not seen yet: every release seen so far is older.
		rel("future", "delta")
		gid = groupByTitle(t, s, tok, w.ProjectID, "future")["id"].(string)
		resolve(gid, "zulu")
		rel("future", "echo")
		expectStatus(t, s, tok, gid, "resolved")

		// Resolved outright: any event regresses.
		resolve(gid, "")
		rel("future", "alpha")
		expectStatus(t, s, tok, gid, "unresolved")
	})
}

// TestBulkActions: by ids (groups of other projects count as nothing) or
// by query, set applies the group PATCH to each group with an activity
// entry and the caller as actor; merge merges ids; the limits and
// exclusive fields are 422; viewers 403.
func TestBulkActions(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		var gids []string
		for i := 0; i < 4; i++ {
			fp := fmt.Sprintf("bulk-%c", 'a'+i)
			feed(t, s, w.Key, batchOf("api", fpEv(fp, "error")))
			gids = append(gids, groupByTitle(t, s, w.Owner.Token, w.ProjectID, fp)["id"].(string))
		}
		_, foreign := seedTicket(t, s, w.Outsider.Token, w.OtherProjectID)
		path := "/v1/projects/" + w.ProjectID + "/groups/bulk"
		bulk := func(token string, body map[string]any, status int) map[string]any {
			t.Helper()
			return s.Do(apitest.Request{Method: "POST", Path: path, Token: token, Body: body}).Expect(t, status, "").JSON(t)
		}
		bulk(w.Viewer.Token, map[string]any{"ids": gids, "set": map[string]any{"status": "resolved"}}, http.StatusForbidden)
		set := map[string]any{"status": "ignored", "assignee_id": w.Member.MemberID}
		r := bulk(w.Admin.Token, map[string]any{"ids": append([]string{foreign, "grp_nope"}, gids[:3]...), "set": set}, http.StatusOK)
		if r["matched"] != float64(3) || r["updated"] != float64(3) {
			t.Errorf("bulk = %v, want matched 3 and updated 3", r)
		}
		if g := getJSON(t, s, w.Outsider.Token, groupPath(foreign)); g["status"] != "unresolved" {
			t.Errorf("another organization's group = %v", g["status"])
		}
		for _, gid := range gids[:3] {
			g := expectStatus(t, s, w.Owner.Token, gid, "ignored")
			if g["assignee"].(map[string]any)["member_id"] != w.Member.MemberID {
				t.Errorf("assignee = %v", g["assignee"])
			}
			acts := activity(t, s, w.Owner.Token, gid)
			if countKind(acts, "ignored") != 1 || countKind(acts, "assigned") != 1 || acts[0]["actor"].(map[string]any)["member_id"] != w.Admin.MemberID {
				t.Errorf("activity = %v", acts)
			}
		}
		if r := bulk(w.Admin.Token, map[string]any{"ids": gids[:3], "set": set}, http.StatusOK); r["updated"] != float64(0) {
			t.Errorf("repeated bulk = %v, want nothing updated", r)
		}
		if r := bulk(w.Member.Token, map[string]any{"query": "is:ignored", "set": map[string]any{"status": "resolved", "resolved_in": "next"}}, http.StatusOK); r["matched"] != float64(3) || r["updated"] != float64(3) {
			t.Errorf("bulk by query = %v, want 3 and 3", r)
		}
		r = bulk(w.Member.Token, map[string]any{"ids": gids, "merge": true}, http.StatusOK)
		if r["matched"] != float64(4) || r["updated"] != float64(4) {
			t.Errorf("bulk merge = %v", r)
		}
		if list := items(t, s, w.Owner.Token, "/v1/projects/"+w.ProjectID+"/groups"); len(list) != 1 {
			t.Errorf("groups after merging = %d, want 1", len(list))
		}
		many := make([]string, 1001)
		for i := range many {
			many[i] = gids[0]
		}
		for _, tc := range []struct {
			body  map[string]any
			field string
		}{
			{map[string]any{"ids": gids, "query": "is:resolved", "set": set}, "ids"},
			{map[string]any{"set": set}, "ids: give at least one"},
			{map[string]any{"ids": []string{}, "merge": true}, "ids: give at least one"},
			{map[string]any{"ids": gids}, "set"},
			{map[string]any{"ids": gids, "set": set, "merge": true}, "set"},
			{map[string]any{"query": "is:resolved", "merge": true}, "merge"},
			{map[string]any{"ids": many, "set": set}, "ids"},
			{map[string]any{"ids": gids, "set": map[string]any{"status": "ignored", "ignore": map[string]any{"window": "1h"}}}, "set.ignore.window"},
			{map[string]any{"ids": gids, "set": map[string]any{"assignee_id": "mem_00000000000000000000000000"}}, "set.assignee_id"},
			{map[string]any{"query": "  ", "set": set}, "query: is blank"},
			{map[string]any{"ids": gids, "set": map[string]any{"assignee_id": ""}}, "set.assignee_id"},
			{map[string]any{"query": "events:>many", "set": set}, "query"},
		} {
			r := s.Do(apitest.Request{Method: "POST", Path: path, Token: w.Member.Token, Body: tc.body}).Expect(t, http.StatusUnprocessableEntity, "validation-failed")
			if d := r.Str(t, "detail"); !strings.HasPrefix(d, tc.field) {
				t.Errorf("%v: detail %q, want it to name %s", tc.body, d, tc.field)
			}
		}
	})
}

// TestUnignoredNotifies: the ticket a met ignore condition opens is
// delivered like a regression's, and the webhook's ticket names the
// group's assignee.
func TestUnignoredNotifies(t *testing.T) {
	t.Parallel()
	rc := newReceiver(t, http.StatusOK)
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		feed(t, s, w.Key, batchOf("api", fpEv("notify-unignored", "error")))
		gid := groupByTitle(t, s, w.Owner.Token, w.ProjectID, "notify-unignored")["id"].(string)
		patchJSON(s, w.Owner.Token, groupPath(gid), map[string]any{"status": "ignored", "ignore": map[string]any{"events": 1}, "assignee_id": w.Member.MemberID}).
			Expect(t, http.StatusOK, "")
		_, secret := newHook(t, s, w.World, w.ProjectID, "hook", rc.URL)
		before := len(rc.got())
		feed(t, s, w.Key, batchOf("api", fpEv("notify-unignored", "error")))
		deliverDue(t, s)
		hooks := rc.got()[before:]
		var body map[string]any
		for _, h := range hooks {
			if h.Header.Get("Service-Event") == "ticket" {
				body = verified(t, h, "ticket", secret)
			}
		}
		if body == nil {
			t.Fatalf("no ticket delivered among %d requests", len(hooks))
		}
		tk := body["ticket"].(map[string]any)
		if tk["facts"].(map[string]any)["reason"] != "unignored" || tk["group_id"] != gid {
			t.Errorf("delivered ticket = %v, want the unignored one of the group", tk)
		}
		if a, _ := tk["assignee"].(map[string]any); a["member_id"] != w.Member.MemberID {
			t.Errorf("delivered ticket's assignee = %v, want the member", tk["assignee"])
		}
	}, allowPrivate)
}

// TestResolveInNextReleaseBeforeAnyRelease: next in a project that has
// seen no release yet is kept as next: events without a release are
// counted without reopening the group, and the first that names any
// release regresses it.
func TestResolveInNextReleaseBeforeAnyRelease(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		tok := w.Member.Token
		feed(t, s, w.Key, batchOf("api", fpEv("norel", "error")))
		gid := groupByTitle(t, s, tok, w.ProjectID, "norel")["id"].(string)
		g := patchJSON(s, tok, groupPath(gid), map[string]any{"status": "resolved", "resolved_in": "next"}).Expect(t, http.StatusOK, "").JSON(t)
		if g["resolved_in"] != "next" {
			t.Errorf("resolved_in next with no release seen = %v, want next", g["resolved_in"])
		}
		feed(t, s, w.Key, batchOf("api", fpEv("norel", "error")))
		if g := expectStatus(t, s, tok, gid, "resolved"); g["event_count"] != float64(2) {
			t.Errorf("event_count = %v, want 2: an event without a release is counted", g["event_count"])
		}
		e := fpEv("norel", "error")
		e["release"] = "0.1.0"
		feed(t, s, w.Key, batchOf("api", e))
		expectStatus(t, s, tok, gid, "unresolved")
	})
}
