package notify_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/mail"
	"github.com/errata-dev/errata/internal/mail/mailtest"
	"github.com/errata-dev/errata/internal/notify"
	"github.com/errata-dev/errata/internal/notify/schedule"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

func TestEmailChannelsGoThroughTheSameEngine(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		smtp := mailtest.Start(t)
		sender, err := mail.New(smtp.URL(), "Errata <errata@example.com>")
		if err != nil {
			t.Fatal(err)
		}
		r := newRig(t, db, notify.Options{Mail: sender})
		ch, err := r.svc.CreateChannel(ctx, r.proj.ID, notify.ChannelInput{MemberID: r.mem.ID, Name: "ops mail", Type: "email"})
		if err != nil || ch.Email != "ada@example.com" || ch.Secret != "" {
			t.Fatalf("email channel = %+v, %v; want the member's address and no secret", ch, err)
		}
		r.openTicket(t, "critical")
		r.deliverDue(t)
		m := smtp.Wait(t, 10*time.Second, mailtest.To("ada@example.com"))
		if !strings.Contains(m.Header.Get("Subject"), "TypeError") || m.Parts["text/plain"] == "" || m.Parts["text/html"] == "" {
			t.Fatalf("ticket email: subject %q, parts %v", m.Header.Get("Subject"), keys(m.Parts))
		}
		if got := m.Header.Get("List-Unsubscribe"); !strings.HasPrefix(got, "<https://errata.example/email/unsubscribe?channel="+ch.ID+"&token=") {
			t.Fatalf("List-Unsubscribe = %q, want the channel's one-click link", got)
		}
		if got := m.Header.Get("List-Unsubscribe-Post"); got != "List-Unsubscribe=One-Click" {
			t.Fatalf("List-Unsubscribe-Post = %q", got)
		}
		if d := r.deliveries(t, ch)[0]; d.Status != store.DeliveryDelivered {
			t.Fatalf("email delivery %s", d.Status)
		}
		// A 4xx SMTP answer is retried; a 5xx one gives up.
		smtp.RejectRcpt("ada@example.com", 451, "try later")
		r.openTicket(t, "critical")
		r.deliverDue(t)
		if d := r.deliveries(t, ch)[0]; d.Status != store.DeliveryPending || d.Attempts != 1 {
			t.Fatalf("after SMTP 451: %+v, want pending for a retry", d)
		}
		smtp.RejectRcpt("ada@example.com", 550, "no such user")
		r.clock.Set(t0.Add(2 * time.Minute))
		r.deliverDue(t)
		if d := r.deliveries(t, ch)[0]; d.Status != store.DeliveryFailed {
			t.Fatalf("after SMTP 550: %s, want failed", d.Status)
		}
	})
}

func TestEmailWithoutSMTPFailsWithAClearReason(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		r := newRig(t, db, notify.Options{})
		res, err := func() (notify.TestResult, error) {
			ch, err := r.svc.CreateChannel(context.Background(), r.proj.ID, notify.ChannelInput{MemberID: r.mem.ID, Name: "m", Type: "email", Email: "Ada@Example.com"})
			if err != nil {
				return notify.TestResult{}, err
			}
			return r.svc.TestChannel(context.Background(), ch.ID)
		}()
		if err != nil || res.Delivered || !strings.Contains(res.Error, "ERRATA_SMTP_URL") {
			t.Fatalf("test without SMTP = %+v, %v", res, err)
		}
	})
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestScheduledDigestListsThePeriodsTickets(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		r := newRig(t, db, notify.Options{})
		rc := r.receiver(t, status(200))
		ch := r.webhookChannel(t, rc.srv.URL)
		st, err := r.digests.PutNotificationSettings(ctx, r.proj.ID, schedule.Digest{Enabled: true, Frequency: "hourly", Timezone: "Europe/Berlin"})
		if err != nil || !st.NextDigestAt.Equal(t0.Add(time.Hour)) {
			t.Fatalf("PutNotificationSettings = %+v, %v; want the next digest at %v", st, err, t0.Add(time.Hour))
		}
		var p interface{ Code() string }
		if _, err := r.digests.PutNotificationSettings(ctx, r.proj.ID, schedule.Digest{Enabled: true, Frequency: "daily", Timezone: "Mars/Olympus"}); err == nil {
			t.Fatal("a bad zone was accepted")
		} else if pp, ok := err.(interface{ Code() string }); !ok || pp.Code() != "validation-failed" || !strings.Contains(err.Error(), "timezone") {
			t.Fatalf("bad zone = %v, want validation-failed naming timezone", err)
		}
		_ = p
		r.clock.Set(t0.Add(10 * time.Minute))
		r.openTicket(t, "medium")
		r.openTicket(t, "critical")
		r.deliverDue(t) // the critical ticket's own delivery
		r.clock.Set(t0.Add(30 * time.Minute))
		if _, err := r.digests.RunDigests(ctx); err != nil {
			t.Fatal(err)
		}
		if ds, _ := db.Read().ListDigests(ctx, r.proj.ID, "", 10); len(ds) != 0 {
			t.Fatalf("a digest before its time: %d", len(ds))
		}
		r.clock.Set(t0.Add(time.Hour + time.Second))
		if _, err := r.digests.RunDigests(ctx); err != nil {
			t.Fatal(err)
		}
		r.deliverDue(t)
		var digest map[string]any
		for _, q := range rc.requests() {
			if q.header.Get("Service-Event") == "digest" {
				_ = json.Unmarshal(q.body, &digest)
			}
		}
		if digest == nil {
			t.Fatalf("no digest delivered; deliveries: %+v", r.deliveries(t, ch))
		}
		d, _ := digest["digest"].(map[string]any)
		period, _ := d["period"].(map[string]any)
		tickets, _ := d["tickets"].([]any)
		if d["ticket_count"] != float64(2) || len(tickets) != 2 || d["info"] != nil || period["timezone"] != "Europe/Berlin" ||
			period["start"] != "2026-11-22T08:00:00.000Z" || period["end"] != "2026-11-22T09:00:00.000Z" {
			t.Fatalf("digest = %v", d)
		}
		first, _ := tickets[0].(map[string]any)
		if first["severity"] != "critical" || !strings.HasPrefix(first["url"].(string), "https://errata.example/tickets/tkt_") {
			t.Fatalf("first digest ticket = %v, want the critical one with its url", first)
		}
		// The next hour brings nothing: no digest.
		r.clock.Set(t0.Add(2*time.Hour + time.Second))
		if _, err := r.digests.RunDigests(ctx); err != nil {
			t.Fatal(err)
		}
		if ds, _ := db.Read().ListDigests(ctx, r.proj.ID, "", 10); len(ds) != 1 {
			t.Fatalf("digests = %d, want 1 (an empty period sends none)", len(ds))
		}
		// On demand, one is always sent, from the end of the last one.
		now, err := r.digests.SendDigest(ctx, r.proj.ID)
		if err != nil || now.TicketCount != 0 || time.Time(now.Period.Start) != t0.Add(time.Hour) {
			t.Fatalf("SendDigest = %+v, %v", now, err)
		}
	})
}
