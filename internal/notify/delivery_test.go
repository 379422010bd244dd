package notify_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/notify"
	"github.com/errata-dev/errata/internal/notify/delivery"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
	"github.com/errata-dev/errata/webhook"
)

func TestTicketDeliveryCarriesTheSpecHeadersAndBody(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		r := newRig(t, db, notify.Options{})
		rc := r.receiver(t, status(204))
		ch := r.webhookChannel(t, rc.srv.URL+"/hooks/errata")
		r.openTicket(t, "medium") // digest only
		tk := r.openTicket(t, "critical")
		if n := r.deliverDue(t); n != 1 {
			t.Fatalf("attempted %d deliveries, want 1 (medium tickets wait for the digest)", n)
		}
		reqs := rc.requests()
		if len(reqs) != 1 {
			t.Fatalf("receiver got %d requests, want 1", len(reqs))
		}
		h, body := reqs[0].header, reqs[0].body
		for name, want := range map[string]string{"Content-Type": "application/json", "User-Agent": "Service-Webhook/1", "Service-Event": "ticket"} {
			if got := h.Get(name); got != want {
				t.Errorf("%s = %q, want %q", name, got, want)
			}
		}
		if err := webhook.Verify(body, h.Get("Service-Signature"), r.clock.Now(), ch.Secret); err != nil {
			t.Fatalf("signature %q does not verify: %v", h.Get("Service-Signature"), err)
		}
		var got struct {
			Type, DeliveryID, OrganizationID, TicketURL string
			Project                                     struct{ ID, Name string }
			Ticket                                      struct {
				ID, Severity, Title, Summary string
				Facts                        map[string]any
			}
		}
		if err := json.Unmarshal(body, &got); err != nil {
			t.Fatalf("body: %v", err)
		}
		var raw map[string]any
		_ = json.Unmarshal(body, &raw)
		for _, k := range []string{"type", "delivery_id", "organization_id", "project", "ticket", "ticket_url"} {
			if _, ok := raw[k]; !ok {
				t.Errorf("body lacks %q: %s", k, body)
			}
		}
		if raw["delivery_id"] != h.Get("Service-Delivery-Id") || !strings.HasPrefix(h.Get("Service-Delivery-Id"), "dlv_") {
			t.Errorf("delivery_id %v, header %q: want the same dlv_ id", raw["delivery_id"], h.Get("Service-Delivery-Id"))
		}
		if raw["type"] != "ticket" || raw["organization_id"] != r.org.ID || raw["ticket_url"] != "https://errata.example/tickets/"+tk.ID {
			t.Errorf("body = %s", body)
		}
		tv, _ := raw["ticket"].(map[string]any)
		if tv["id"] != tk.ID || tv["severity"] != "critical" || tv["summary"] == "" || tv["facts"] == nil {
			t.Errorf("ticket object = %v", tv)
		}
		ds := r.deliveries(t, ch)
		if len(ds) != 1 || ds[0].Status != store.DeliveryDelivered {
			t.Fatalf("deliveries = %+v, want one delivered", ds)
		}
	})
}

func TestFailingDeliveryFollowsTheEightAttemptSchedule(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		r := newRig(t, db, notify.Options{})
		rc := r.receiver(t, status(500))
		ch := r.webhookChannel(t, rc.srv.URL)
		r.openTicket(t, "high")
		ctx := context.Background()
		for i := 0; i < delivery.MaxAttempts; i++ {
			if n := r.deliverDue(t); n != 1 {
				t.Fatalf("attempt %d: attempted %d, want 1", i+1, n)
			}
			d := r.deliveries(t, ch)[0]
			if i == delivery.MaxAttempts-1 {
				if d.Status != store.DeliveryFailed || d.NextAttemptAt != nil {
					t.Fatalf("after attempt 8: %+v, want failed with no next attempt", d)
				}
				break
			}
			if d.Status != store.DeliveryPending || d.NextAttemptAt == nil {
				t.Fatalf("after attempt %d: %+v, want pending", i+1, d)
			}
			wait := d.NextAttemptAt.Sub(r.clock.Now())
			base := delivery.DefaultWaits[i]
			if wait < base*9/10 || wait > base*11/10 {
				t.Fatalf("wait after attempt %d = %v, want %v ±10%%", i+1, wait, base)
			}
			// Nothing is attempted before the wait is over.
			r.clock.Set(d.NextAttemptAt.Add(-time.Second))
			if n := r.deliverDue(t); n != 0 {
				t.Fatalf("attempted %d a second before the retry time", n)
			}
			r.clock.Set(*d.NextAttemptAt)
		}
		if n := r.deliverDue(t); n != 0 {
			t.Fatalf("attempted %d after giving up", n)
		}
		reqs := rc.requests()
		if len(reqs) != delivery.MaxAttempts {
			t.Fatalf("receiver got %d requests, want 8", len(reqs))
		}
		first := reqs[0]
		for i, q := range reqs {
			if q.header.Get("Service-Delivery-Id") != first.header.Get("Service-Delivery-Id") || string(q.body) != string(first.body) {
				t.Fatalf("attempt %d changed the delivery id or the body", i+1)
			}
			if i > 0 && q.header.Get("Service-Signature") == reqs[i-1].header.Get("Service-Signature") {
				t.Fatalf("attempt %d reused the previous signature; each attempt signs afresh", i+1)
			}
		}
		as, _ := db.Read().AttemptsOf(ctx, []string{r.deliveries(t, ch)[0].ID})
		if len(as) != 1 || len(as[r.deliveries(t, ch)[0].ID]) != 8 {
			t.Fatalf("attempts logged = %v, want 8", as)
		}
		got, _ := db.Read().ChannelByID(ctx, ch.ID)
		if got.ConsecutiveFailures != 1 || got.Health != store.HealthOK {
			t.Fatalf("channel after one given-up delivery: %d failures, %s", got.ConsecutiveFailures, got.Health)
		}
	})
}

func TestRetryAfterReplacesAShorterWaitUpToTwelveHours(t *testing.T) {
	cases := []struct {
		name   string
		code   int
		header string
		want   time.Duration
	}{
		{"429 seconds", 429, "7200", 2 * time.Hour},
		{"503 over the cap", 503, "172800", 12 * time.Hour},
		{"429 shorter than the wait", 429, "5", time.Minute},
		{"503 HTTP date", 503, t0.Add(3 * time.Hour).Format(http.TimeFormat), 3 * time.Hour},
	}
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				got := firstRetry(t, db, func(w http.ResponseWriter, _ *http.Request) {
					w.Header().Set("Retry-After", tc.header)
					w.WriteHeader(tc.code)
				})
				if got < tc.want-2*time.Second || got > tc.want+2*time.Second {
					t.Fatalf("next attempt in %v, want %v", got, tc.want)
				}
			})
		}
	})
}

// TestRetryWaitFollowsTheFailure: the wait before a retry counts from the
// end of the failed attempt, so a slow failure does not shorten it.
func TestRetryWaitFollowsTheFailure(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		const slow = 700 * time.Millisecond
		got := firstRetry(t, db, func(w http.ResponseWriter, _ *http.Request) {
			time.Sleep(slow)
			w.WriteHeader(http.StatusInternalServerError)
		})
		if got < time.Minute+slow || got > time.Minute+slow+5*time.Second {
			t.Fatalf("next attempt %v after the attempt began, want the minute's wait after its %v failure", got, slow)
		}
	})
}

// firstRetry delivers a high ticket's webhook to a receiver answering with
// h, without jitter, and returns when the retry is due after t0.
func firstRetry(t *testing.T, db *store.DB, h http.HandlerFunc) time.Duration {
	t.Helper()
	r := newRig(t, db, notify.Options{Delivery: delivery.Options{Jitter: 1e-9}})
	rc := r.receiver(t, h)
	ch := r.webhookChannel(t, rc.srv.URL)
	r.openTicket(t, "high")
	r.deliverDue(t)
	d := r.deliveries(t, ch)[0]
	if d.NextAttemptAt == nil {
		t.Fatalf("no retry scheduled: %+v", d)
	}
	return d.NextAttemptAt.Sub(t0)
}

func TestThreeDeliveriesGivenUpMarkTheChannelFailing(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		r := newRig(t, db, notify.Options{})
		code := 404
		rc := r.receiver(t, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(code) })
		ch := r.webhookChannel(t, rc.srv.URL)
		ctx := context.Background()
		for i := 1; i <= 3; i++ {
			r.openTicket(t, "high")
			r.deliverDue(t) // a 404 gives up at once
			got, _ := db.Read().ChannelByID(ctx, ch.ID)
			want := store.HealthOK
			if i == 3 {
				want = store.HealthFailing
			}
			if got.Health != want || got.ConsecutiveFailures != int64(i) {
				t.Fatalf("after %d given up: %s with %d failures, want %s", i, got.Health, got.ConsecutiveFailures, want)
			}
		}
		code = 200
		r.openTicket(t, "high")
		r.deliverDue(t)
		got, _ := db.Read().ChannelByID(ctx, ch.ID)
		if got.Health != store.HealthOK || got.ConsecutiveFailures != 0 || got.LastDeliveryAt == nil {
			t.Fatalf("after a delivery: %+v, want ok", got)
		}
		for _, d := range r.deliveries(t, ch)[1:] {
			if d.Status != store.DeliveryFailed || d.Attempts != 1 {
				t.Fatalf("a 404 delivery: %+v, want failed after 1 attempt", d)
			}
		}
	})
}

func TestRotatedSecretSignsAlongsideTheOldOneForADay(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		r := newRig(t, db, notify.Options{})
		rc := r.receiver(t, status(200))
		ch := r.webhookChannel(t, rc.srv.URL)
		rotated, err := r.svc.RotateSecret(context.Background(), ch.ID)
		if err != nil || rotated.Secret == ch.Secret || !strings.HasPrefix(rotated.Secret, notify.SecretPrefix) {
			t.Fatalf("RotateSecret = %+v, %v", rotated, err)
		}
		r.openTicket(t, "critical")
		r.deliverDue(t)
		r.clock.Set(t0.Add(notify.RotationOverlap + time.Minute))
		r.openTicket(t, "critical")
		r.deliverDue(t)
		reqs := rc.requests()
		if len(reqs) != 2 {
			t.Fatalf("receiver got %d requests", len(reqs))
		}
		during, after := reqs[0].header.Get("Service-Signature"), reqs[1].header.Get("Service-Signature")
		if strings.Count(during, "v1=") != 2 || strings.Count(after, "v1=") != 1 {
			t.Fatalf("signatures %q then %q: want two v1 entries during the overlap, one after", during, after)
		}
		for _, secret := range []string{ch.Secret, rotated.Secret} {
			if err := webhook.Verify(reqs[0].body, during, t0, secret); err != nil {
				t.Fatalf("during the overlap, %.10s… does not verify: %v", secret, err)
			}
		}
		if err := webhook.Verify(reqs[1].body, after, r.clock.Now(), ch.Secret); err == nil {
			t.Fatal("the old secret still verifies after the overlap")
		}
		if err := webhook.Verify(reqs[1].body, after, r.clock.Now(), rotated.Secret); err != nil {
			t.Fatalf("new secret after the overlap: %v", err)
		}
	})
}

func TestDisabledAndDowngradedChannelsGetNothing(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		r := newRig(t, db, notify.Options{})
		rc := r.receiver(t, status(200))
		ch := r.webhookChannel(t, rc.srv.URL)
		r.openTicket(t, "critical")
		off := false
		if _, err := r.svc.UpdateChannel(ctx, ch.ID, notify.ChannelPatch{Enabled: &off}); err != nil {
			t.Fatalf("disable: %v", err)
		}
		if n := r.deliverDue(t); n != 0 || len(rc.requests()) != 0 {
			t.Fatalf("a disabled channel's delivery was attempted")
		}
		if d := r.deliveries(t, ch)[0]; d.Status != store.DeliveryCancelled {
			t.Fatalf("delivery of a disabled channel: %s, want cancelled", d.Status)
		}
		on := true
		if _, err := r.svc.UpdateChannel(ctx, ch.ID, notify.ChannelPatch{Enabled: &on}); err != nil {
			t.Fatalf("enable: %v", err)
		}
		r.openTicket(t, "critical")
		o := r.org
		o.Plan = "free"
		if err := db.Write().UpdateOrg(ctx, o); err != nil {
			t.Fatalf("downgrade: %v", err)
		}
		r.deliverDue(t)
		if len(rc.requests()) != 0 {
			t.Fatal("a webhook was delivered on the free plan")
		}
		if d := r.deliveries(t, ch)[0]; d.Status != store.DeliveryCancelled {
			t.Fatalf("delivery after a downgrade: %s, want cancelled", d.Status)
		}
		r.openTicket(t, "critical") // not even queued now
		if n := len(r.deliveries(t, ch)); n != 2 {
			t.Fatalf("deliveries = %d, want 2 (none queued on the free plan)", n)
		}
	})
}

func TestRedeliveryKeepsTheIdentifier(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		r := newRig(t, db, notify.Options{})
		code := 410
		rc := r.receiver(t, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(code) })
		ch := r.webhookChannel(t, rc.srv.URL)
		r.openTicket(t, "critical")
		r.deliverDue(t)
		d := r.deliveries(t, ch)[0]
		if d.Status != store.DeliveryFailed {
			t.Fatalf("status %s, want failed", d.Status)
		}
		code = 200
		if err := r.svc.Redeliver(ctx, d.ID); err != nil {
			t.Fatalf("Redeliver: %v", err)
		}
		var p *problem.Problem
		if err := r.svc.Redeliver(ctx, d.ID); !errors.As(err, &p) || p.Code() != "delivery-pending" {
			t.Fatalf("Redeliver while pending = %v, want delivery-pending", err)
		}
		r.deliverDue(t)
		reqs := rc.requests()
		if len(reqs) != 2 || reqs[1].header.Get("Service-Delivery-Id") != d.ID || string(reqs[1].body) != string(reqs[0].body) {
			t.Fatalf("redelivery: %d requests, id %q; want the same id and body", len(reqs), reqs[len(reqs)-1].header.Get("Service-Delivery-Id"))
		}
		if got := r.deliveries(t, ch)[0]; got.Status != store.DeliveryDelivered || got.Series != 2 {
			t.Fatalf("after redelivery: %+v", got)
		}
	})
}

func TestChannelTestIsOneAttemptOnceAMinute(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		r := newRig(t, db, notify.Options{})
		code := 200
		rc := r.receiver(t, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(code) })
		ch := r.webhookChannel(t, rc.srv.URL)
		res, err := r.svc.TestChannel(ctx, ch.ID)
		if err != nil || !res.Delivered || res.HTTPStatus != 200 || !strings.HasPrefix(res.ID, "tst_") {
			t.Fatalf("TestChannel = %+v, %v", res, err)
		}
		q := rc.requests()[0]
		var body map[string]any
		_ = json.Unmarshal(q.body, &body)
		chv, _ := body["channel"].(map[string]any)
		if q.header.Get("Service-Event") != "test" || q.header.Get("Service-Delivery-Id") != res.ID || body["type"] != "test" || chv["id"] != ch.ID || chv["name"] != "hook" {
			t.Fatalf("test delivery: headers %v, body %s", q.header, q.body)
		}
		r.clock.Set(t0.Add(30 * time.Second))
		var p *problem.Problem
		if _, err := r.svc.TestChannel(ctx, ch.ID); !errors.As(err, &p) || p.Code() != "channel-test-rate-limited" || p.GetHeaders().Get("Retry-After") != "30" {
			t.Fatalf("second test = %v, want channel-test-rate-limited with Retry-After 30", err)
		}
		code = 500
		r.clock.Set(t0.Add(time.Minute))
		res, err = r.svc.TestChannel(ctx, ch.ID)
		if err != nil || res.Delivered || res.HTTPStatus != 500 || res.Error == "" {
			t.Fatalf("failing test = %+v, %v", res, err)
		}
		if n := r.deliverDue(t); n != 0 {
			t.Fatalf("a test was retried (%d attempts)", n)
		}
		got, _ := db.Read().ChannelByID(ctx, ch.ID)
		if got.ConsecutiveFailures != 1 {
			t.Fatalf("a failed test counts towards failing: %d failures, want 1", got.ConsecutiveFailures)
		}
		if ds := r.deliveries(t, ch); len(ds) != 2 || ds[0].Event != "test" {
			t.Fatalf("tests in the delivery log: %+v", ds)
		}
	})
}
