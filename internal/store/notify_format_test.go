package store_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

func TestChannelFormatAndFilters(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		p := seedProject(t, db.Write())
		ch := seedChannel(t, db.Write(), p.ID)
		got, err := db.Read().ChannelByID(ctx, ch.ID)
		if err != nil || got.Format != "errata" || got.Filters.MinSeverity != "high" || len(got.Filters.Environments) != 0 || len(got.Filters.Services) != 0 {
			t.Fatalf("new channel = format %q, filters %+v, %v; want errata, high and no lists", got.Format, got.Filters, err)
		}
		got.Format = "teams"
		got.Filters = store.Filters{MinSeverity: "medium", Environments: []string{"production", "eu-prod"}, Services: []string{"checkout"}}
		if err := db.Write().UpdateChannel(ctx, got); err != nil {
			t.Fatal(err)
		}
		again, _ := db.Read().ChannelByID(ctx, ch.ID)
		if again.Format != "teams" || again.Filters.MinSeverity != "medium" || !slices.Equal(again.Filters.Environments, []string{"production", "eu-prod"}) ||
			!slices.Equal(again.Filters.Services, []string{"checkout"}) {
			t.Fatalf("after update = format %q, filters %+v", again.Format, again.Filters)
		}
		list, _ := db.Read().EnabledChannels(ctx, p.ID)
		if len(list) != 1 || list[0].Format != "teams" || list[0].Filters.MinSeverity != "medium" {
			t.Fatalf("EnabledChannels = %+v", list)
		}
	})
}

// TestSystemEmailDeliveries: a delivery without a channel (an invitation's
// email) is queued, claimed beside channels' deliveries, limited like one
// channel ("") and excluded by it, recorded without touching any channel's
// health, and its status is found by its subject.
func TestSystemEmailDeliveries(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		p := seedProject(t, db.Write())
		ch := seedChannel(t, db.Write(), p.ID)
		queueDelivery(t, db.Write(), ch, now.Add(-time.Minute))
		var sys []store.Delivery
		for i := range 3 {
			due := now.Add(-time.Duration(3-i) * time.Second)
			d := store.Delivery{ID: id.New(id.Delivery), Event: store.EventInvitation, SubjectID: "inv_" + string(rune('a'+i)), Format: store.FormatEmail,
				Body: []byte(`{"to":"ada@example.com"}`), Status: store.DeliveryPending, Series: 1, NextAttemptAt: &due, CreatedAt: now, UpdatedAt: now}
			if err := db.Write().InsertDelivery(ctx, d); err != nil {
				t.Fatalf("InsertDelivery without a channel: %v", err)
			}
			sys = append(sys, d)
		}
		// Excluding "" skips the system emails.
		ds, err := db.Write().ClaimDeliveries(ctx, now, now.Add(time.Minute), 2, 10, []string{""})
		if err != nil || len(ds) != 1 || ds[0].ChannelID != ch.ID {
			t.Fatalf("claim excluding system emails = %+v, %v; want the channel's one", ds, err)
		}
		ds, err = db.Write().ClaimDeliveries(ctx, now, now.Add(time.Minute), 2, 10, nil)
		if err != nil || len(ds) != 2 {
			t.Fatalf("claim = %d deliveries, %v; want 2 system emails (2 per channel)", len(ds), err)
		}
		for i, d := range ds {
			if d.ChannelID != "" || d.ID != sys[i].ID || d.Format != store.FormatEmail || string(d.Body) != `{"to":"ada@example.com"}` {
				t.Fatalf("claimed %d = %+v, want system email %s (oldest first)", i, d, sys[i].ID)
			}
		}
		a := store.Attempt{DeliveryID: ds[0].ID, Series: 1, At: now, Outcome: store.OutcomeDelivered}
		if err := db.Write().RecordAttempt(ctx, ds[0], a); err != nil {
			t.Fatalf("RecordAttempt of a system email: %v", err)
		}
		st, err := db.Read().SystemEmailStatus(ctx, []string{"inv_a", "inv_b", "inv_z"})
		if err != nil || len(st) != 2 || st["inv_a"] != store.DeliveryDelivered || st["inv_b"] != store.DeliveryPending {
			t.Fatalf("SystemEmailStatus = %v, %v", st, err)
		}
		// An ended system email's body (an invitation's holds its token) is
		// emptied; a pending one's is kept.
		for _, c := range []struct{ subject, body string }{{"inv_a", "{}"}, {"inv_b", `{"to":"ada@example.com"}`}} {
			if b, err := db.Read().SystemEmailBody(ctx, c.subject); err != nil || string(b) != c.body {
				t.Errorf("body of %s's email = %s, %v; want %s", c.subject, b, err, c.body)
			}
		}
		if err := db.Write().CancelDelivery(ctx, ds[1], now); err != nil {
			t.Fatal(err)
		}
		if b, _ := db.Read().SystemEmailBody(ctx, "inv_b"); string(b) != "{}" {
			t.Errorf("body of a cancelled system email = %s, want {}", b)
		}
		if got, _ := db.Read().ChannelByID(ctx, ch.ID); got.LastDeliveryAt != nil {
			t.Fatalf("a system email touched channel %s: last delivery %v", ch.ID, got.LastDeliveryAt)
		}
	})
}

// TestDeliveryFormatMigration: deliveries and attempts written before
// migration 00014 keep everything, email channels' deliveries get the
// email format and the others errata.
func TestDeliveryFormatMigration(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		p := seedProject(t, db.Write()) // before going down: the code writes today's columns
		if err := db.MigrateDownTo(ctx, 13); err != nil {
			t.Fatal(err)
		}
		w := db.Write()
		due := ms(now)
		for _, c := range []struct{ ch, kind, dl string }{{"chn_hook", "webhook", "dlv_hook"}, {"chn_mail", "email", "dlv_mail"}} {
			if err := w.ExecForTest(ctx, `INSERT INTO channels (id, project_id, member_id, name, type, url, email, enabled, secret, old_secret,
				health, consecutive_failures, created_at, updated_at) VALUES (?, ?, 'mem_x', 'n', ?, '', '', ?, '', '', 'ok', 0, ?, ?)`,
				c.ch, p.ID, c.kind, true, due, due); err != nil {
				t.Fatal(err)
			}
			if err := w.ExecForTest(ctx, `INSERT INTO deliveries (id, channel_id, project_id, event, subject_id, body, status, series, attempts,
				next_attempt_at, lease_until, created_at, updated_at) VALUES (?, ?, ?, 'ticket', 'tkt_x', ?, 'pending', 1, 1, ?, 0, ?, ?)`,
				c.dl, c.ch, p.ID, []byte(`{"old":true}`), due, due, due); err != nil {
				t.Fatal(err)
			}
			if err := w.ExecForTest(ctx, `INSERT INTO delivery_attempts (delivery_id, n, series, at, outcome, http_status, error_class, error, duration_ms)
				VALUES (?, 1, 1, ?, 'retry', 503, 'http-status', 'busy', 12)`, c.dl, due); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := db.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		for dl, format := range map[string]string{"dlv_hook": "errata", "dlv_mail": "email"} {
			d, err := db.Read().DeliveryByID(ctx, dl)
			if err != nil || d.Format != format || d.Status != store.DeliveryPending || d.Attempts != 1 {
				t.Fatalf("%s after the migration = %+v, %v; want format %s, still pending after 1 attempt", dl, d, err, format)
			}
			as, err := db.Read().AttemptsOf(ctx, []string{dl})
			if err != nil || len(as[dl]) != 1 || as[dl][0].HTTPStatus != 503 {
				t.Fatalf("%s's attempts after the migration = %+v, %v", dl, as, err)
			}
		}
		ds, err := db.Write().ClaimDeliveries(ctx, now, now.Add(time.Minute), 8, 10, nil)
		if err != nil || len(ds) != 2 || string(ds[0].Body) != `{"old":true}` {
			t.Fatalf("claim after the migration = %+v, %v", ds, err)
		}
		// Deleting a channel still deletes its deliveries and their attempts.
		if err := db.Write().DeleteChannel(ctx, "chn_hook"); err != nil {
			t.Fatal(err)
		}
		if as, _ := db.Read().AttemptsOf(ctx, []string{"dlv_hook"}); len(as["dlv_hook"]) != 0 {
			t.Fatalf("attempts of a deleted channel's delivery = %+v", as)
		}
	})
}

func ms(t time.Time) int64 { return t.UnixMilli() }
