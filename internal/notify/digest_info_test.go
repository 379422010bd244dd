package notify_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/mail"
	"github.com/errata-dev/errata/internal/mail/mailtest"
	"github.com/errata-dev/errata/internal/notify"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// addInfo stores an INFO window of n events starting at start.
func addInfo(t *testing.T, db *store.DB, projectID string, start time.Time, n int64) string {
	t.Helper()
	return addInfoDebug(t, db, projectID, start, n, 0)
}

// addInfoDebug adds a window of n info and debug debug events.
func addInfoDebug(t *testing.T, db *store.DB, projectID string, start time.Time, n, debug int64) string {
	t.Helper()
	d := store.InfoDelta{ProjectID: projectID, WindowStart: start, WindowEnd: start.Add(time.Hour), Events: n, Debug: debug, Services: map[string]int64{"api": n + debug},
		Templates: []store.TemplateCount{{Hash: "h", Template: "user <int> signed in", Sample: "user 7 signed in", Count: n}}}
	sid, err := db.Write().AddInfo(context.Background(), d, id.NewAt(id.InfoSummary, start), start)
	if err != nil {
		t.Fatalf("AddInfo: %v", err)
	}
	return sid
}

func TestDigestSumsThePeriodsInfoSummaries(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		r := newRig(t, db, notify.Options{})
		// The busiest window is the one with the most info and debug events:
		// 90 + 30 beats 110 + 0; event_count sums info events only.
		first := addInfo(t, db, r.proj.ID, t0, 110)
		busiest := addInfoDebug(t, db, r.proj.ID, t0.Add(time.Hour), 90, 30)
		latest := addInfo(t, db, r.proj.ID, t0.Add(2*time.Hour), 7)
		r.clock.Set(t0.Add(3 * time.Hour))
		d, err := r.digests.SendDigest(context.Background(), r.proj.ID)
		if err != nil {
			t.Fatalf("SendDigest: %v", err)
		}
		in := d.Info
		if in == nil {
			t.Fatal("info is null though the period has INFO summaries")
		}
		if in.EventCount != 207 || in.WindowCount != 3 || in.BusiestWindow.TotalCount != 120 || time.Time(in.BusiestWindow.Start) != t0.Add(time.Hour) {
			t.Fatalf("info = %+v, want 207 info events in 3 windows, the busiest at 09:00 with 120 info and debug events", in)
		}
		if in.LatestSummary.ID != latest || len(in.LatestSummary.TopMessages) != 1 || in.LatestSummary.Services["api"] != 7 {
			t.Fatalf("latest_summary = %+v, want %s with its services and templates", in.LatestSummary, latest)
		}
		if got := strings.Join(in.SummaryIDs, ","); got != latest+","+busiest+","+first {
			t.Fatalf("summary_ids = %s, want newest first", got)
		}
		want := "https://errata.example/projects/" + r.proj.ID + "/summaries?from=2026-11-22T08:00:00.000Z&to=2026-11-22T11:00:00.000Z"
		if in.URL != want {
			t.Fatalf("url = %s, want %s", in.URL, want)
		}
	})
}

func TestDigestEmailListsFailingChannels(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		smtp := mailtest.Start(t)
		sender, err := mail.New(smtp.URL(), "Errata <errata@example.com>")
		if err != nil {
			t.Fatal(err)
		}
		r := newRig(t, db, notify.Options{Mail: sender})
		rc := r.receiver(t, status(404))
		hook := r.webhookChannel(t, rc.srv.URL)
		for range store.FailingAfter {
			r.openTicket(t, "high")
		}
		r.deliverDue(t)
		if ch, _ := db.Read().ChannelByID(ctx, hook.ID); ch.Health != store.HealthFailing {
			t.Fatalf("webhook channel is %s, want failing", ch.Health)
		}
		if _, err := r.svc.CreateChannel(ctx, r.proj.ID, notify.ChannelInput{MemberID: r.mem.ID, Name: "ops mail", Type: "email"}); err != nil {
			t.Fatal(err)
		}
		if _, err := r.digests.SendDigest(ctx, r.proj.ID); err != nil {
			t.Fatal(err)
		}
		r.deliverDue(t)
		m := smtp.Wait(t, 10*time.Second, func(m mailtest.Message) bool { return strings.Contains(m.Parts["text/plain"], "hook") })
		for part, body := range m.Parts {
			if !strings.Contains(body, "hook") || !strings.Contains(strings.ToLower(body), "fail") {
				t.Errorf("%s part does not name the failing channel:\n%s", part, body)
			}
		}
	})
}
