package httpapi_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/id"
)

func redeliver(s *apitest.Server, token, deliveryID string) *apitest.Response {
	return s.Do(apitest.Request{Method: "POST", Path: "/v1/deliveries/" + deliveryID + "/redeliver", Token: token})
}

// TestTicketDeliveries: a high ticket goes to every webhook channel; the
// delivery log shows each delivery with its attempts; redelivery keeps the
// id and the body and starts a new series.
func TestTicketDeliveries(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		ok, broken, gone := newReceiver(t, http.StatusOK), newReceiver(t, http.StatusServiceUnavailable), newReceiver(t, http.StatusGone)
		okID, secret := newHook(t, s, w.World, w.ProjectID, "ok", ok.URL)
		brokenID, _ := newHook(t, s, w.World, w.ProjectID, "broken", broken.URL)
		goneID, _ := newHook(t, s, w.World, w.ProjectID, "gone", gone.URL)

		feed(t, s, w.Key, batchOf("api", ev("payment 42 failed", "error")))
		tkt := items(t, s, w.Viewer.Token, "/v1/projects/"+w.ProjectID+"/tickets")[0]
		before := time.Now()
		if n := deliverDue(t, s); n != 3 {
			t.Fatalf("deliveries attempted = %d, want 3 (one per channel)", n)
		}

		// Delivered.
		log := deliveries(t, s, w.Viewer.Token, okID)
		if len(log) != 1 {
			t.Fatalf("delivery log = %v, want one delivery", ids(log))
		}
		d := log[0]
		dlv, _ := d["id"].(string)
		if !strings.HasPrefix(dlv, "dlv_") || d["channel_id"] != okID || d["event"] != "ticket" || d["subject_id"] != tkt["id"] ||
			d["status"] != "delivered" || d["next_attempt_at"] != nil {
			t.Errorf("delivery = %v, want a delivered dlv_ of ticket %v", d, tkt["id"])
		}
		apiTime(t, d["created_at"])
		apiTime(t, d["updated_at"])
		wantAttempt(t, "delivered", attemptsOf(d), 1, map[string]any{"series": float64(1), "outcome": "delivered", "http_status": float64(200),
			"error_class": "", "error": "", "next_retry_at": nil})
		hooks := ok.got()
		if len(hooks) != 1 || hooks[0].Header.Get("Service-Delivery-Id") != dlv {
			t.Fatalf("receiver got %d requests (first id %q), want 1 with id %s", len(hooks), hookID(hooks), dlv)
		}
		body := verified(t, hooks[0], "ticket", secret)
		full := getJSON(t, s, w.Viewer.Token, "/v1/tickets/"+tkt["id"].(string))
		if !reflect.DeepEqual(body["ticket"], full) || body["ticket_url"] != full["url"] || body["organization_id"] != w.OrgID ||
			!reflect.DeepEqual(body["project"], map[string]any{"id": w.ProjectID, "name": "web"}) {
			t.Errorf("ticket body = %v, want the ticket %v of project web", body, full)
		}

		// Retried: 503 waits about a minute (±10%).
		b := deliveries(t, s, w.Viewer.Token, brokenID)[0]
		a := wantAttempt(t, "503", attemptsOf(b), 1, map[string]any{"series": float64(1), "outcome": "retry", "http_status": float64(503), "error_class": "http-status"})
		next := apiTime(t, a["next_retry_at"])
		if b["status"] != "pending" || b["next_attempt_at"] != a["next_retry_at"] || !near(next, before.Add(time.Minute), 7*time.Second) {
			t.Errorf("retried delivery = %v, want pending with the attempt's next_retry_at about a minute on", b)
		}
		if a["error"] == "" {
			t.Errorf("retried attempt has no error: %v", a)
		}
		redeliver(s, w.Admin.Token, b["id"].(string)).Expect(t, http.StatusConflict, "delivery-pending")

		// Given up at once: 410.
		g := deliveries(t, s, w.Viewer.Token, goneID)[0]
		wantAttempt(t, "410", attemptsOf(g), 1, map[string]any{"outcome": "failed", "http_status": float64(410), "error_class": "http-status", "next_retry_at": nil})
		if g["status"] != "failed" || g["next_attempt_at"] != nil {
			t.Errorf("given-up delivery = %v, want failed", g)
		}

		// Redelivery: 202, same id, pending; again is 409 until attempted.
		for _, target := range []string{dlv, g["id"].(string)} {
			r := redeliver(s, w.Admin.Token, target).Expect(t, http.StatusAccepted, "").JSON(t)
			if r["id"] != target || r["status"] != "pending" || r["next_attempt_at"] == nil || len(attemptsOf(r)) != 1 {
				t.Errorf("redelivery answer = %v, want %s pending with its one past attempt", r, target)
			}
			redeliver(s, w.Admin.Token, target).Expect(t, http.StatusConflict, "delivery-pending")
		}
		redeliver(s, w.Member.Token, dlv).Expect(t, http.StatusForbidden, "forbidden")
		if n := deliverDue(t, s); n != 2 {
			t.Errorf("deliveries attempted after redelivery = %d, want 2", n)
		}
		d = deliveries(t, s, w.Viewer.Token, okID)[0]
		as := attemptsOf(d)
		wantAttempt(t, "redelivered", as, 2, map[string]any{"number": float64(2), "series": float64(2), "outcome": "delivered"})
		if d["id"] != dlv || d["status"] != "delivered" || as[0]["number"] != float64(1) || as[0]["series"] != float64(1) {
			t.Errorf("redelivered = %v, want %s delivered with attempts 1 (series 1) and 2 (series 2)", d, dlv)
		}
		if hooks = ok.got(); len(hooks) != 2 || hooks[1].Header.Get("Service-Delivery-Id") != dlv || !bytes.Equal(hooks[0].Body, hooks[1].Body) {
			t.Errorf("redelivery: %d requests, want 2 with the same id %s and body", len(hooks), dlv)
		} else {
			verified(t, hooks[1], "ticket", secret)
		}
		if g = deliveries(t, s, w.Viewer.Token, goneID)[0]; g["status"] != "failed" || len(attemptsOf(g)) != 2 {
			t.Errorf("redelivered 410 = %v, want failed again after a second attempt", g)
		}

		// A test is not redelivered; unknown deliveries are not found.
		tst := testChannel(s, w.Member.Token, okID).Expect(t, http.StatusOK, "").Str(t, "id")
		redeliver(s, w.Admin.Token, tst).Expect(t, http.StatusConflict, "conflict")
		for _, unknown := range []string{"dlv_" + zeros, id.New(id.TestDelivery), "nope", okID} {
			redeliver(s, w.Admin.Token, unknown).Expect(t, http.StatusNotFound, "not-found")
		}
		// A disabled channel's delivery is refused: disabling cancels its
		// deliveries, so the series would end before any attempt.
		patchJSON(s, w.Admin.Token, "/v1/channels/"+goneID, map[string]any{"enabled": false}).Expect(t, http.StatusOK, "")
		if r := redeliver(s, w.Admin.Token, g["id"].(string)).Expect(t, http.StatusConflict, "conflict"); !strings.Contains(r.Str(t, "detail"), "disabled") {
			t.Errorf("redelivery to a disabled channel: %s, want a detail saying it is disabled", r.Body)
		}
		if g = deliveries(t, s, w.Viewer.Token, goneID)[0]; g["status"] != "failed" {
			t.Errorf("refused redelivery changed the delivery: %v", g)
		}
		// Another organization sees none of it.
		redeliver(s, w.Outsider.Token, dlv).Expect(t, http.StatusNotFound, "not-found")
		s.Do(apitest.Request{Method: "GET", Path: "/v1/channels/" + okID + "/deliveries", Token: w.Outsider.Token}).Expect(t, http.StatusNotFound, "not-found")
	}, allowPrivate, withAppURL)
}

// wantAttempt checks the attempt of a list at position n (1-based) against
// want and returns it.
func wantAttempt(t *testing.T, name string, as []map[string]any, n int, want map[string]any) map[string]any {
	t.Helper()
	if len(as) != n {
		t.Fatalf("%s: %d attempts, want %d: %v", name, len(as), n, as)
	}
	a := as[n-1]
	for k, v := range want {
		if got, present := a[k]; !present || got != v {
			t.Errorf("%s: attempt %s = %v (present %v), want %v", name, k, got, present, v)
		}
	}
	if ms, ok := a["duration_ms"].(float64); !ok || ms < 0 {
		t.Errorf("%s: attempt duration_ms = %v", name, a["duration_ms"])
	}
	apiTime(t, a["at"])
	return a
}

func hookID(hs []hook) string {
	if len(hs) == 0 {
		return ""
	}
	return hs[0].Header.Get("Service-Delivery-Id")
}

// TestDeliveriesPaging: the delivery log pages like every list (CONTRACT 2).
func TestDeliveriesPaging(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newProcWorld(t, s)
		rc := newReceiver(t, http.StatusOK)
		hookID, _ := newHook(t, s, w.World, w.ProjectID, "hook", rc.URL)
		otherID, _ := newHook(t, s, w.World, w.ProjectID, "other", rc.URL)
		// A test first, then five tickets: tests (tst_) and the others
		// (dlv_) share one log, newest first.
		tst := testChannel(s, w.Member.Token, hookID).Expect(t, http.StatusOK, "").Str(t, "id")
		for i := range 5 {
			feed(t, s, w.Key, batchOf("api", fpEv(fmt.Sprintf("paging-%d", i), "error")))
		}
		log := deliveries(t, s, w.Viewer.Token, hookID)
		if len(log) != 6 || log[5]["id"] != tst {
			t.Fatalf("delivery log = %v, want 5 ticket deliveries, then the older test %s", ids(log), tst)
		}
		for i, d := range log[:5] {
			if d["status"] != "pending" || d["event"] != "ticket" || d["next_attempt_at"] == nil || len(attemptsOf(d)) != 0 {
				t.Errorf("deliveries[%d] = %v, want a pending ticket delivery, not yet attempted", i, d)
			}
			if i > 0 && d["created_at"].(string) > log[i-1]["created_at"].(string) {
				t.Errorf("deliveries are not newest first: %v", ids(log))
			}
		}
		path := "/v1/channels/" + hookID + "/deliveries"
		got, pages := pageIDs(t, s, w.Viewer.Token, path, "2")
		if !reflect.DeepEqual(got, ids(log)) || pages != 3 {
			t.Errorf("paging by 2: %v in %d pages, want %v in 3", got, pages, ids(log))
		}
		if got := pageAll(t, s, w.Viewer.Token, path+"?limit=5", ""); len(got) != 2 || len(got[0]) != 5 || len(got[1]) != 1 || got[1][0] != tst {
			t.Errorf("paging by 5: %v, want 5 then the test", got)
		}

		first := getJSON(t, s, w.Viewer.Token, path+"?limit=2")
		cursor := first["next_cursor"].(string)
		theirs := getJSON(t, s, w.Viewer.Token, "/v1/channels/"+otherID+"/deliveries?limit=2")["next_cursor"].(string)
		flip := map[byte]byte{'A': 'B', 'B': 'A'}
		altered := []byte(cursor)
		if c, ok := flip[altered[0]]; ok {
			altered[0] = c
		} else {
			altered[0] = 'A'
		}
		for _, c := range []struct {
			name, query, field string
		}{
			{"limit 0", "limit=0", "limit"},
			{"limit 101", "limit=101", "limit"},
			{"limit not a number", "limit=ten", "limit"},
			{"altered cursor", "cursor=" + url.QueryEscape(string(altered)), "cursor"},
			{"garbage cursor", "cursor=bogus", "cursor"},
			{"another channel's cursor", "cursor=" + url.QueryEscape(theirs), "cursor"},
		} {
			r := s.Do(apitest.Request{Method: "GET", Path: path + "?" + c.query, Token: w.Viewer.Token})
			if r.Status != http.StatusUnprocessableEntity {
				t.Errorf("%s: status = %d, want 422; body: %s", c.name, r.Status, r.Body)
				continue
			}
			r.Expect(t, http.StatusUnprocessableEntity, "validation-failed")
			if d := r.Str(t, "detail"); !namesField(d, c.field) {
				t.Errorf("%s: detail = %q, want it to name %s", c.name, d, c.field)
			}
		}
		// limit 100 is allowed, and so are the channel list's bounds.
		getJSON(t, s, w.Viewer.Token, path+"?limit=100")
		s.Do(apitest.Request{Method: "GET", Path: channelsPath(w.ProjectID) + "?limit=101", Token: w.Viewer.Token}).Expect(t, http.StatusUnprocessableEntity, "validation-failed")
		if got, pages := pageIDs(t, s, w.Viewer.Token, channelsPath(w.ProjectID), "1"); len(got) != 2 || pages != 2 {
			t.Errorf("channels paged by 1: %v in %d pages, want 2 in 2", got, pages)
		}
	}, allowPrivate)
}
