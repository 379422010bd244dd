package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

func seedProject(t *testing.T, c *store.Conn) store.Project {
	t.Helper()
	o := seedOrg(t, c)
	p := store.Project{ID: id.New(id.Project), OrgID: o.ID, Name: "web", CreatedAt: now, UpdatedAt: now}
	if err := c.CreateProject(context.Background(), p); err != nil {
		t.Fatalf("CreateProject: %v", err)
	}
	return p
}

func seedChannel(t *testing.T, c *store.Conn, projectID string) store.Channel {
	t.Helper()
	ch := store.Channel{ID: id.New(id.Channel), ProjectID: projectID, MemberID: "mem_x", Name: "hook", Type: store.ChannelWebhook,
		URL: "https://example.com/hook", Enabled: true, Secret: "whsec_a", Health: store.HealthOK, CreatedAt: now, UpdatedAt: now}
	if err := c.CreateChannel(context.Background(), ch); err != nil {
		t.Fatalf("CreateChannel: %v", err)
	}
	return ch
}

func queueDelivery(t *testing.T, c *store.Conn, ch store.Channel, due time.Time) store.Delivery {
	t.Helper()
	d := store.Delivery{ID: id.New(id.Delivery), ChannelID: ch.ID, ProjectID: ch.ProjectID, Event: store.EventTicket, SubjectID: "tkt_x",
		Body: []byte(`{"type":"ticket"}`), Status: store.DeliveryPending, Series: 1, NextAttemptAt: &due, CreatedAt: now, UpdatedAt: now}
	if err := c.InsertDelivery(context.Background(), d); err != nil {
		t.Fatalf("InsertDelivery: %v", err)
	}
	return d
}

func TestChannels(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		p := seedProject(t, db.Write())
		ch := seedChannel(t, db.Write(), p.ID)
		got, err := db.Read().ChannelByID(ctx, ch.ID)
		if err != nil || got.Secret != "whsec_a" || !got.Enabled || got.LastDeliveryAt != nil {
			t.Fatalf("ChannelByID = %+v, %v", got, err)
		}
		until := now.Add(24 * time.Hour)
		got.OldSecret, got.OldSecretUntil, got.Secret, got.Enabled = got.Secret, &until, "whsec_b", false
		if err := db.Write().UpdateChannel(ctx, got); err != nil {
			t.Fatalf("UpdateChannel: %v", err)
		}
		got, _ = db.Read().ChannelByID(ctx, ch.ID)
		if s := got.Secrets(now); len(s) != 2 || string(s[0]) != "whsec_b" || string(s[1]) != "whsec_a" {
			t.Fatalf("Secrets during the overlap = %q, want new then old", s)
		}
		if s := got.Secrets(until); len(s) != 1 {
			t.Fatalf("Secrets after the overlap = %q, want only the new one", s)
		}
		if n, _ := db.Read().CountChannels(ctx, p.ID); n != 1 {
			t.Fatalf("CountChannels = %d, want 1", n)
		}
		if en, _ := db.Read().EnabledChannels(ctx, p.ID); len(en) != 0 {
			t.Fatalf("EnabledChannels = %d, want 0 after disabling", len(en))
		}
		if _, err := db.Write().ClaimChannelTest(ctx, ch.ID, now, time.Minute); err != nil {
			t.Fatalf("first test: %v", err)
		}
		last, err := db.Write().ClaimChannelTest(ctx, ch.ID, now.Add(59*time.Second), time.Minute)
		if !errors.Is(err, store.ErrConflict) || !last.Equal(now) {
			t.Fatalf("second test within a minute = %v, %v; want ErrConflict and %v", last, err, now)
		}
		if _, err := db.Write().ClaimChannelTest(ctx, ch.ID, now.Add(time.Minute), time.Minute); err != nil {
			t.Fatalf("test a minute later: %v", err)
		}
		if err := db.Write().DeleteChannel(ctx, ch.ID); err != nil {
			t.Fatalf("DeleteChannel: %v", err)
		}
		if _, err := db.Read().ChannelByID(ctx, ch.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("deleted channel: %v, want ErrNotFound", err)
		}
	})
}

func TestClaimDeliveriesIsFairAcrossChannels(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		p := seedProject(t, db.Write())
		busy, quiet := seedChannel(t, db.Write(), p.ID), seedChannel(t, db.Write(), p.ID)
		for i := range 20 {
			queueDelivery(t, db.Write(), busy, now.Add(-time.Hour+time.Duration(i)*time.Second))
		}
		late := queueDelivery(t, db.Write(), quiet, now.Add(-time.Minute))
		queueDelivery(t, db.Write(), quiet, now.Add(time.Minute)) // not due
		ds, err := db.Write().ClaimDeliveries(ctx, now, now.Add(time.Minute), 4, 10, nil)
		if err != nil {
			t.Fatalf("ClaimDeliveries: %v", err)
		}
		per := map[string]int{}
		for _, d := range ds {
			per[d.ChannelID]++
			if string(d.Body) != `{"type":"ticket"}` {
				t.Fatalf("claimed body = %q", d.Body)
			}
		}
		if per[busy.ID] != 4 || per[quiet.ID] != 1 {
			t.Fatalf("claimed per channel = %v, want 4 of the busy channel and 1 of the quiet one", per)
		}
		// Leased rows are not claimed again; an excluded channel is skipped.
		ds, _ = db.Write().ClaimDeliveries(ctx, now, now.Add(time.Minute), 4, 10, []string{busy.ID})
		if len(ds) != 0 {
			t.Fatalf("second claim = %d deliveries, want 0 (quiet's due one is leased, busy is excluded)", len(ds))
		}
		// A lease that ran out (its process died) makes the delivery claimable.
		ds, _ = db.Write().ClaimDeliveries(ctx, now.Add(2*time.Minute), now.Add(3*time.Minute), 100, 100, []string{busy.ID})
		if len(ds) != 2 || (ds[0].ID != late.ID && ds[1].ID != late.ID) {
			t.Fatalf("claim after the lease = %d deliveries, want quiet's two", len(ds))
		}
		// The busy channel's first four are held until now+1m: the next due
		// one nobody holds is its fifth.
		next, ok, err := db.Read().NextDeliveryDue(ctx, now)
		if err != nil || !ok || !next.Equal(now.Add(-time.Hour+4*time.Second)) {
			t.Fatalf("NextDeliveryDue = %v, %v, %v; want %v", next, ok, err, now.Add(-time.Hour+4*time.Second))
		}
		if next, _, _ := db.Read().NextDeliveryDue(ctx, now.Add(time.Hour)); !next.Equal(now.Add(-time.Hour)) {
			t.Fatalf("NextDeliveryDue once every lease ran out = %v, want %v", next, now.Add(-time.Hour))
		}
	})
}

func TestDeliveryLifecycleAndHealth(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		p := seedProject(t, db.Write())
		ch := seedChannel(t, db.Write(), p.ID)
		fail := func(i int) store.Delivery {
			d := queueDelivery(t, db.Write(), ch, now)
			ds, err := db.Write().ClaimDeliveries(ctx, now, now.Add(time.Minute), 10, 10, nil)
			if err != nil || len(ds) != 1 {
				t.Fatalf("claim %d: %d, %v", i, len(ds), err)
			}
			at := now.Add(time.Second)
			if err := db.Write().RecordAttempt(ctx, ds[0], store.Attempt{DeliveryID: d.ID, Series: 1, At: at, Outcome: store.OutcomeFailed,
				HTTPStatus: 404, ErrorClass: "http-status", Error: "HTTP 404", Duration: 12 * time.Millisecond}); err != nil {
				t.Fatalf("RecordAttempt: %v", err)
			}
			return ds[0]
		}
		for i := range store.FailingAfter {
			fail(i)
			got, _ := db.Read().ChannelByID(ctx, ch.ID)
			want := store.HealthOK
			if i == store.FailingAfter-1 {
				want = store.HealthFailing
			}
			if got.Health != want || got.ConsecutiveFailures != int64(i+1) {
				t.Fatalf("after %d given up: health %s, failures %d; want %s, %d", i+1, got.Health, got.ConsecutiveFailures, want, i+1)
			}
		}
		failing, _ := db.Read().FailingChannels(ctx, p.ID)
		if len(failing) != 1 {
			t.Fatalf("FailingChannels = %d, want 1", len(failing))
		}
		// A stale lease cannot record: another process owns the delivery.
		d := queueDelivery(t, db.Write(), ch, now)
		ds, _ := db.Write().ClaimDeliveries(ctx, now, now.Add(time.Minute), 10, 10, nil)
		stale := ds[0]
		stale.LeaseUntil = now
		if err := db.Write().RecordAttempt(ctx, stale, store.Attempt{DeliveryID: d.ID, At: now, Outcome: store.OutcomeDelivered}); !errors.Is(err, store.ErrLeaseLost) {
			t.Fatalf("RecordAttempt with a lost lease = %v, want ErrLeaseLost", err)
		}
		retry := now.Add(time.Minute)
		if err := db.Write().RecordAttempt(ctx, ds[0], store.Attempt{DeliveryID: d.ID, Series: 1, At: now, Outcome: store.OutcomeRetry, ErrorClass: "timeout", NextRetryAt: &retry}); err != nil {
			t.Fatalf("RecordAttempt retry: %v", err)
		}
		if err := db.Write().Redeliver(ctx, d.ID, now); !errors.Is(err, store.ErrConflict) {
			t.Fatalf("Redeliver while pending = %v, want ErrConflict", err)
		}
		ds, _ = db.Write().ClaimDeliveries(ctx, retry, retry.Add(time.Minute), 10, 10, nil)
		if len(ds) != 1 || ds[0].Attempts != 1 {
			t.Fatalf("claim at the retry time = %+v", ds)
		}
		if err := db.Write().RecordAttempt(ctx, ds[0], store.Attempt{DeliveryID: d.ID, Series: 1, At: retry, Outcome: store.OutcomeDelivered, HTTPStatus: 204}); err != nil {
			t.Fatalf("RecordAttempt delivered: %v", err)
		}
		got, _ := db.Read().ChannelByID(ctx, ch.ID)
		if got.Health != store.HealthOK || got.ConsecutiveFailures != 0 || got.LastDeliveryAt == nil || !got.LastDeliveryAt.Equal(retry) {
			t.Fatalf("after a delivery: %+v, want ok, 0 failures, last delivery at %v", got, retry)
		}
		if err := db.Write().Redeliver(ctx, d.ID, retry); err != nil {
			t.Fatalf("Redeliver: %v", err)
		}
		again, _ := db.Read().DeliveryByID(ctx, d.ID)
		if again.Status != store.DeliveryPending || again.Series != 2 || again.Attempts != 0 {
			t.Fatalf("redelivered = %+v, want pending, series 2, 0 attempts", again)
		}
		as, err := db.Read().AttemptsOf(ctx, []string{d.ID})
		if err != nil || len(as[d.ID]) != 2 || as[d.ID][0].N != 1 || as[d.ID][1].HTTPStatus != 204 || as[d.ID][0].NextRetryAt == nil {
			t.Fatalf("AttemptsOf = %+v, %v", as[d.ID], err)
		}
		if n, err := db.Write().CancelDeliveries(ctx, ch.ID, retry); err != nil || n != 1 {
			t.Fatalf("CancelDeliveries = %d, %v; want 1", n, err)
		}
		if n, _ := db.Read().CountPendingDeliveries(ctx); n != 0 {
			t.Fatalf("pending after cancel = %d", n)
		}
		list, err := db.Read().ListDeliveries(ctx, ch.ID, "", 100)
		if err != nil || len(list) != store.FailingAfter+1 || list[0].ID != d.ID || list[0].Status != store.DeliveryCancelled {
			t.Fatalf("ListDeliveries = %d, %v", len(list), err)
		}
	})
}

func TestNotificationSettingsAndDigests(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		p := seedProject(t, db.Write())
		st, err := db.Read().NotificationSettingsOf(ctx, p.ID)
		if err != nil || st.Frequency != "daily" || st.Hour != 9 || st.Timezone != "UTC" || !st.DigestEnabled || !st.PeriodStart.Equal(p.CreatedAt) {
			t.Fatalf("defaults = %+v, %v", st, err)
		}
		if n, err := db.Write().EnsureNotificationSettings(ctx, now); err != nil || n != 1 {
			t.Fatalf("EnsureNotificationSettings = %d, %v; want 1", n, err)
		}
		if n, _ := db.Write().EnsureNotificationSettings(ctx, now); n != 0 {
			t.Fatalf("second EnsureNotificationSettings = %d, want 0", n)
		}
		due, err := db.Read().DueDigests(ctx, now, 10)
		if err != nil || len(due) != 1 || !due[0].NextDigestAt.IsZero() {
			t.Fatalf("DueDigests of an unscheduled project = %+v, %v", due, err)
		}
		st = due[0]
		st.Frequency, st.Timezone, st.NextDigestAt = "weekly", "Europe/Berlin", now.Add(time.Hour)
		if err := db.Write().PutNotificationSettings(ctx, st); err != nil {
			t.Fatalf("PutNotificationSettings: %v", err)
		}
		if due, _ := db.Read().DueDigests(ctx, now, 10); len(due) != 0 {
			t.Fatalf("DueDigests before the time = %d", len(due))
		}
		next, ok, _ := db.Read().NextDigestDue(ctx)
		if !ok || !next.Equal(now.Add(time.Hour)) {
			t.Fatalf("NextDigestDue = %v, %v", next, ok)
		}
		// Tickets of the period, by severity then newest.
		sev := []string{"medium", "critical", "high", "critical"}
		for i, s := range sev {
			g := seedGroupFor(t, db.Write(), p.ID, fmt.Sprint("fp", i))
			at := now.Add(time.Duration(i) * time.Minute)
			tk := store.Ticket{ID: id.NewAt(id.Ticket, at), ProjectID: p.ID, GroupID: g, Severity: s, Status: store.TicketOpen, Reason: store.ReasonNew,
				Title: s, FirstSeen: at, CreatedAt: at, UpdatedAt: at}
			if err := db.Write().InsertTicket(ctx, tk); err != nil {
				t.Fatalf("InsertTicket: %v", err)
			}
		}
		n, list, err := db.Read().PeriodTickets(ctx, p.ID, now, now.Add(3*time.Minute), 2)
		if err != nil || n != 3 || len(list) != 2 || list[0].Severity != "critical" || list[1].Severity != "high" {
			t.Fatalf("PeriodTickets = %d, %+v, %v; want 3, [critical high]", n, list, err)
		}
		ev, windows, _, err := db.Read().InfoTotals(ctx, p.ID, now, now.Add(time.Hour))
		if err != nil || ev != 0 || windows != 0 {
			t.Fatalf("InfoTotals of nothing = %d, %d, %v", ev, windows, err)
		}
		dg := store.Digest{ID: id.New(id.Digest), ProjectID: p.ID, PeriodStart: now, PeriodEnd: now.Add(time.Hour), Body: []byte(`{"id":"x"}`), CreatedAt: now}
		if err := db.Write().InsertDigest(ctx, dg); err != nil {
			t.Fatalf("InsertDigest: %v", err)
		}
		ds, err := db.Read().ListDigests(ctx, p.ID, "", 10)
		if err != nil || len(ds) != 1 || string(ds[0].Body) != `{"id":"x"}` || !ds[0].PeriodEnd.Equal(now.Add(time.Hour)) {
			t.Fatalf("ListDigests = %+v, %v", ds, err)
		}
	})
}

func seedGroupFor(t *testing.T, c *store.Conn, projectID, fp string) string {
	t.Helper()
	g := store.Group{ID: id.New(id.Group), ProjectID: projectID, Service: "s", Fingerprint: fp, Status: store.GroupUnresolved, FirstSeen: now, LastSeen: now, UpdatedAt: now}
	if err := c.InsertGroup(context.Background(), g); err != nil {
		t.Fatalf("InsertGroup: %v", err)
	}
	return g.ID
}

func TestPruneKeepsPendingDeliveries(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		p := seedProject(t, db.Write())
		ch := seedChannel(t, db.Write(), p.ID)
		pending := queueDelivery(t, db.Write(), ch, now)
		done := queueDelivery(t, db.Write(), ch, now)
		if _, err := db.Write().CancelDeliveries(ctx, ch.ID, now); err != nil {
			t.Fatal(err)
		}
		if err := db.Write().Redeliver(ctx, pending.ID, now); err != nil { // pending again
			t.Fatal(err)
		}
		dg := store.Digest{ID: id.New(id.Digest), ProjectID: p.ID, PeriodStart: now, PeriodEnd: now, Body: []byte(`{}`), CreatedAt: now}
		if err := db.Write().InsertDigest(ctx, dg); err != nil {
			t.Fatal(err)
		}
		later := now.Add(store.DefaultRetention.Records + time.Hour)
		got, err := db.Write().Prune(ctx, store.DefaultRetention, later)
		if err != nil || got.Deliveries != 1 || got.Digests != 1 {
			t.Fatalf("Prune = %+v, %v; want the finished delivery and the digest", got, err)
		}
		if _, err := db.Read().DeliveryByID(ctx, done.ID); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("finished delivery after pruning: %v", err)
		}
		if _, err := db.Read().DeliveryByID(ctx, pending.ID); err != nil {
			t.Fatalf("pending delivery after pruning: %v", err)
		}
	})
}
