package httpapi_test

import (
	"net/http"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
)

// testChannel tests a channel as token and returns the answer.
func testChannel(s *apitest.Server, token, channelID string) *apitest.Response {
	return s.Do(apitest.Request{Method: "POST", Path: "/v1/channels/" + channelID + "/test", Token: token})
}

// TestChannelTestDelivers tests webhook channels against real TLS receivers
// on loopback, trusted through SSL_CERT_FILE.
func TestChannelTestDelivers(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		rc := newReceiver(t, http.StatusOK)
		hookID, secret := newHook(t, s, w, w.ProjectID, "ops hook", rc.URL)

		out := testChannel(s, w.Member.Token, hookID).Expect(t, http.StatusOK, "").JSON(t)
		keys := make([]string, 0, len(out))
		for k := range out {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if want := []string{"duration_ms", "error", "http_status", "id", "status"}; !reflect.DeepEqual(keys, want) {
			t.Errorf("test answer fields = %v, want %v", keys, want)
		}
		tst, _ := out["id"].(string)
		if !strings.HasPrefix(tst, "tst_") || out["status"] != "delivered" || out["http_status"] != float64(200) || out["error"] != "" {
			t.Errorf("test answer = %v, want tst_… delivered with HTTP 200 and no error", out)
		}
		if ms, ok := out["duration_ms"].(float64); !ok || ms < 0 || ms > 10000 {
			t.Errorf("duration_ms = %v, want 0 to 10000", out["duration_ms"])
		}

		got := rc.got()
		if len(got) != 1 {
			t.Fatalf("receiver got %d requests, want 1", len(got))
		}
		if id := got[0].Header.Get("Service-Delivery-Id"); id != tst {
			t.Errorf("Service-Delivery-Id = %q, want the test's id %s", id, tst)
		}
		body := verified(t, got[0], "test", secret)
		want := map[string]any{"type": "test", "delivery_id": tst, "organization_id": w.OrgID,
			"project": map[string]any{"id": w.ProjectID, "name": "web"}, "channel": map[string]any{"id": hookID, "name": "ops hook"}}
		if !reflect.DeepEqual(body, want) {
			t.Errorf("test body = %v, want %v", body, want)
		}

		// A test is an attempt like any other in /metrics.
		if m := string(s.Do(apitest.Request{Method: "GET", Path: "/metrics"}).Body); !strings.Contains(m, `errata_delivery_attempts_total{event="test",outcome="delivered"} 1`+"\n") {
			t.Errorf("/metrics after a delivered test lacks errata_delivery_attempts_total{event=\"test\",outcome=\"delivered\"} 1")
		}

		// Once a minute per channel.
		r := testChannel(s, w.Admin.Token, hookID).Expect(t, http.StatusTooManyRequests, "channel-test-rate-limited")
		if ra, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || ra < 1 || ra > 60 {
			t.Errorf("Retry-After = %q, want 1 to 60 seconds", r.Header.Get("Retry-After"))
		}
		if n := len(rc.got()); n != 1 {
			t.Errorf("receiver got %d requests after a refused test, want 1", n)
		}

		// The test is in the delivery log with its one attempt, and counts
		// towards health.
		log := deliveries(t, s, w.Viewer.Token, hookID)
		if len(log) != 1 {
			t.Fatalf("delivery log = %v, want the test", ids(log))
		}
		d := log[0]
		if d["id"] != tst || d["channel_id"] != hookID || d["event"] != "test" || d["subject_id"] != hookID || d["status"] != "delivered" || d["next_attempt_at"] != nil {
			t.Errorf("logged test = %v, want %s, a delivered test of %s", d, tst, hookID)
		}
		as := attemptsOf(d)
		if len(as) != 1 {
			t.Fatalf("attempts = %v, want one", d["attempts"])
		}
		a := as[0]
		if a["number"] != float64(1) || a["series"] != float64(1) || a["outcome"] != "delivered" || a["http_status"] != float64(200) ||
			a["error_class"] != "" || a["error"] != "" || a["next_retry_at"] != nil || a["duration_ms"] != out["duration_ms"] {
			t.Errorf("attempt = %v, want the first, delivered with HTTP 200 in %v ms", a, out["duration_ms"])
		}
		apiTime(t, a["at"])
		if ch := getChannel(t, s, w.Viewer.Token, hookID); ch["health"] != "ok" || ch["consecutive_failures"] != float64(0) || ch["last_delivery_at"] != a["at"] {
			t.Errorf("channel after a delivered test = %v, want ok with last_delivery_at %v", ch, a["at"])
		}

		// A channel disabled by its owner can still be tested.
		offID, offSecret := newHook(t, s, w, w.ProjectID, "off", rc.URL)
		patchJSON(s, w.Admin.Token, "/v1/channels/"+offID, map[string]any{"enabled": false}).Expect(t, http.StatusOK, "")
		if out := testChannel(s, w.Member.Token, offID).Expect(t, http.StatusOK, "").JSON(t); out["status"] != "delivered" {
			t.Errorf("test of a disabled channel = %v, want delivered", out)
		}
		if got := rc.got(); len(got) != 2 {
			t.Errorf("receiver got %d requests, want 2", len(got))
		} else {
			verified(t, got[1], "test", offSecret)
		}
	}, allowPrivate)
}

// TestChannelTestFails: a failed test answers 200 with the reason, is not
// retried, and counts towards the channel's failures.
func TestChannelTestFails(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		broken, gone := newReceiver(t, http.StatusInternalServerError), newReceiver(t, http.StatusGone)
		for _, c := range []struct {
			name       string
			url        string // "" for an email channel (no SMTP server configured)
			httpStatus any
			class      string
			errSub     string
		}{
			{"receiver answers 500", broken.URL, float64(500), "http-status", "500"},
			{"receiver answers 410", gone.URL, float64(410), "http-status", "410"},
			{"nothing listens", closedURL(t), nil, "network", "refused"},
			{"email without SMTP", "", nil, "smtp", "ERRATA_SMTP_URL"},
		} {
			var chID string
			if c.url == "" {
				chID = newMail(t, s, w, w.ProjectID, c.name)
			} else {
				chID, _ = newHook(t, s, w, w.ProjectID, c.name, c.url)
			}
			out := testChannel(s, w.Member.Token, chID).Expect(t, http.StatusOK, "").JSON(t)
			if out["status"] != "failed" || out["http_status"] != c.httpStatus || !strings.Contains(out["error"].(string), c.errSub) {
				t.Errorf("%s: test answer = %v, want failed, http_status %v, error about %q", c.name, out, c.httpStatus, c.errSub)
			}
			log := deliveries(t, s, w.Viewer.Token, chID)
			if len(log) != 1 || log[0]["status"] != "failed" || log[0]["id"] != out["id"] {
				t.Fatalf("%s: delivery log = %v, want the failed test %v", c.name, log, out["id"])
			}
			as := attemptsOf(log[0])
			if len(as) != 1 || as[0]["outcome"] != "failed" || as[0]["http_status"] != c.httpStatus || as[0]["error_class"] != c.class ||
				as[0]["error"] != out["error"] || as[0]["next_retry_at"] != nil {
				t.Errorf("%s: attempts = %v, want one failed of class %s, not retried", c.name, as, c.class)
			}
			ch := getChannel(t, s, w.Viewer.Token, chID)
			if ch["consecutive_failures"] != float64(1) || ch["health"] != "ok" || ch["last_delivery_at"] == nil {
				t.Errorf("%s: channel after a failed test = %v, want one failure, still ok", c.name, ch)
			}
		}
		if n := deliverDue(t, s); n != 0 {
			t.Errorf("deliveries due after failed tests = %d, want 0: tests are not retried", n)
		}
		if len(broken.got()) != 1 || len(gone.got()) != 1 {
			t.Errorf("receivers got %d and %d requests, want 1 each", len(broken.got()), len(gone.got()))
		}
	}, allowPrivate)
}
