package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	mrand "math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/grouping"
	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/loadgen"
	"github.com/errata-dev/errata/internal/notify"
	"github.com/errata-dev/errata/internal/notify/digest"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/view"
)

// benchInfoTemplates draws INFO messages and their templates, hashed as
// the processor hashes them.
func benchInfoTemplates(tb testing.TB, n int) (services []string, tpls []store.TemplateCount) {
	tb.Helper()
	g, err := loadgen.NewGenerator(loadgen.Options{Seed: 9, BatchSize: 100, Services: 6, Templates: max(2*n, 10), Start: time.Unix(1_700_000_000, 0)})
	if err != nil {
		tb.Fatal(err)
	}
	seen := map[string]bool{}
	for i := 0; i < 500 && len(tpls) < n; i++ {
		b := g.Batch(i)
		if !slices.Contains(services, b.Service) {
			services = append(services, b.Service)
		}
		for _, e := range b.Events {
			if e.Level != "info" && e.Level != "debug" || len(tpls) == n {
				continue
			}
			t := grouping.Parameterize(e.Message)
			if seen[t] {
				continue
			}
			seen[t] = true
			h := fnv.New64a()
			_, _ = h.Write([]byte(t))
			tpls = append(tpls, store.TemplateCount{Hash: strconv.FormatUint(h.Sum64(), 16), Template: t, Sample: e.Message})
		}
	}
	if len(tpls) < n {
		tb.Fatalf("the load generator made %d INFO templates, want %d", len(tpls), n)
	}
	return services, tpls
}

// benchSummaries adds an INFO summary for every window of the last sz.Days
// days, each with its services and sz.Templates templates, and a digest a
// day.
func benchSummaries(tb testing.TB, ctx context.Context, c *store.Conn, p *benchProject, sz benchSize, window time.Duration, now time.Time, r *mrand.Rand) error {
	services, tpls := benchInfoTemplates(tb, 3*sz.Templates)
	end := now.Truncate(window).Add(window)
	for ws := end.Add(-time.Duration(sz.Days) * 24 * time.Hour); ws.Before(end); ws = ws.Add(window) {
		d := store.InfoDelta{ProjectID: p.ProjectID, WindowStart: ws, WindowEnd: ws.Add(window), Services: map[string]int64{}}
		off := r.IntN(len(tpls) - sz.Templates + 1)
		for i, t := range tpls[off : off+sz.Templates] {
			t.Count = int64(1 + r.IntN(20000/(i+1)))
			d.Templates = append(d.Templates, t)
			d.Events += t.Count
			d.Services[services[i%len(services)]] += t.Count
		}
		d.Debug = d.Events / 3
		sid, err := c.AddInfo(ctx, d, id.NewAt(id.InfoSummary, ws), benchEarlier(ws.Add(window), now))
		if err != nil {
			return err
		}
		p.Summaries = append(p.Summaries, sid)
	}
	slices.Sort(p.Summaries)
	slices.Reverse(p.Summaries)
	for day := sz.Days; day > 0; day-- {
		pe := now.Truncate(24 * time.Hour).Add(-time.Duration(day-1) * 24 * time.Hour)
		dg := digest.Digest{ID: id.NewAt(id.Digest, pe), Period: digest.Period{Start: view.TS(pe.Add(-24 * time.Hour)), End: view.TS(pe), Timezone: "UTC"},
			TicketCount: 0, Tickets: []view.TicketListItem{}, CreatedAt: view.TS(pe)}
		body, _ := json.Marshal(dg)
		if err := c.InsertDigest(ctx, store.Digest{ID: dg.ID, ProjectID: p.ProjectID, PeriodStart: pe.Add(-24 * time.Hour), PeriodEnd: pe,
			Body: body, CreatedAt: pe}); err != nil {
			return err
		}
	}
	return nil
}

// benchChannels adds sz.Channels channels, a third of them email, a few
// disabled and a few failing, each with sz.Deliveries deliveries of recent
// tickets recorded through the store's attempt path (retries, give-ups and
// tests), so channel health follows from the attempts.
func benchChannels(ctx context.Context, c *store.Conn, p *benchProject, sz benchSize, now time.Time, r *mrand.Rand) error {
	for i := range sz.Channels {
		created := now.Add(-time.Duration(sz.Channels-i) * 3 * time.Hour).Add(-30 * 24 * time.Hour)
		ch := store.Channel{ID: id.NewAt(id.Channel, created), ProjectID: p.ProjectID, MemberID: p.Owner.MemberID, Enabled: i%17 != 5,
			Health: store.HealthOK, CreatedAt: created, UpdatedAt: created}
		if i%3 == 0 {
			ch.Type, ch.Name, ch.Email = store.ChannelEmail, fmt.Sprintf("On-call mail %02d", i), fmt.Sprintf("oncall+%02d@example.com", i)
		} else {
			ch.Type, ch.Name, ch.URL, ch.Secret = store.ChannelWebhook, fmt.Sprintf("Ops webhook %02d", i),
				fmt.Sprintf("https://hooks.example.com/errata/%02d", i), notify.NewSecret()
		}
		failing := ch.Type == store.ChannelWebhook && i%20 == 1
		if err := c.CreateChannel(ctx, ch); err != nil {
			return err
		}
		p.Channels = append(p.Channels, ch.ID)
		if failing && p.FailingChannel == "" {
			p.FailingChannel = ch.ID
		}
		for k := range sz.Deliveries {
			at := now.Add(-time.Duration(sz.Deliveries-k) * 5 * time.Hour).Add(-time.Duration(r.IntN(3600)) * time.Second)
			if k%10 == 9 { // a test
				d := store.Delivery{ID: id.NewAt(id.TestDelivery, at), ChannelID: ch.ID, ProjectID: p.ProjectID, Event: store.EventTest, SubjectID: ch.ID,
					Body: []byte(`{"type":"test"}`), Status: store.DeliveryDelivered, Series: 1, Attempts: 1, CreatedAt: at, UpdatedAt: at}
				a := store.Attempt{DeliveryID: d.ID, Series: 1, At: at, Outcome: store.OutcomeDelivered, HTTPStatus: 200, Duration: 120 * time.Millisecond}
				if failing {
					d.Status, a.Outcome, a.HTTPStatus, a.ErrorClass, a.Error = store.DeliveryFailed, store.OutcomeFailed, 503, "http-status", "HTTP 503"
				}
				if err := c.InsertFinishedDelivery(ctx, d, a); err != nil {
					return err
				}
				continue
			}
			tid := p.Tickets[r.IntN(min(len(p.Tickets), 200))]
			d := store.Delivery{ID: id.NewAt(id.Delivery, at), ChannelID: ch.ID, ProjectID: p.ProjectID, Event: store.EventTicket, SubjectID: tid,
				Status: store.DeliveryPending, Series: 1, LeaseUntil: time.UnixMilli(0), CreatedAt: at, UpdatedAt: at}
			d.Body, _ = json.Marshal(notify.TicketBody{Type: "ticket", DeliveryID: d.ID, OrganizationID: p.OrgID,
				Project: notify.ProjectRef{ID: p.ProjectID, Name: "web"}, TicketURL: view.TicketURL("http://errata.example.com", tid)})
			if err := c.InsertDelivery(ctx, d); err != nil {
				return err
			}
			tries := 1
			if failing && k >= sz.Deliveries/2 {
				tries = 8
			} else if r.IntN(8) == 0 {
				tries = 2
			}
			for n := 1; n <= tries; n++ {
				a := store.Attempt{DeliveryID: d.ID, Series: 1, At: at, Outcome: store.OutcomeRetry, HTTPStatus: 502, ErrorClass: "http-status",
					Error: "HTTP 502", Duration: time.Duration(200+r.IntN(800)) * time.Millisecond}
				if ch.Type == store.ChannelEmail {
					a.HTTPStatus, a.ErrorClass, a.Error = 0, "smtp", "421 4.7.0 Try again later"
				}
				switch {
				case n < tries:
					next := at.Add(time.Duration(n*n) * time.Minute)
					a.NextRetryAt = &next
				case failing && tries == 8:
					a.Outcome = store.OutcomeFailed
				default:
					a.Outcome, a.ErrorClass, a.Error = store.OutcomeDelivered, "", ""
					if ch.Type == store.ChannelWebhook {
						a.HTTPStatus = 200
					}
				}
				if err := c.RecordAttempt(ctx, d, a); err != nil {
					return err
				}
				at = at.Add(time.Duration(n*n) * time.Minute)
			}
		}
	}
	slices.Reverse(p.Channels)
	return nil
}
