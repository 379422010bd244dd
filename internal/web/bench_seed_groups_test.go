package web_test

import (
	"context"
	"encoding/json"
	mrand "math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/grouping"
	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/loadgen"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/tickets"
)

// benchErr is one error of the pool groups are made from: a loadgen event
// with its fingerprint.
type benchErr struct {
	service, env, release string
	fp                    grouping.Result
	events                []loadgen.Event
}

// benchErrors draws n distinct (service, fingerprint) errors with up to
// samples events each from the load generator's realistic templates and
// stack traces.
func benchErrors(tb testing.TB, n, samples int) []*benchErr {
	tb.Helper()
	g, err := loadgen.NewGenerator(loadgen.Options{Seed: 7, BatchSize: 100, Services: 8, Templates: max(n, 10), ErrorRatio: 1, StackRatio: 1,
		Start: time.Unix(1_700_000_000, 0)})
	if err != nil {
		tb.Fatal(err)
	}
	byKey := map[string]*benchErr{}
	var out []*benchErr
	for i := 0; i < 2000 && len(out) < n; i++ { // small batches: stop soon after the n-th
		b := g.Batch(i)
		for _, e := range b.Events {
			fp := grouping.Fingerprint(grouping.Input{Message: e.Message, StackTrace: e.StackTrace})
			k := b.Service + "\x00" + fp.Fingerprint
			be := byKey[k]
			if be == nil {
				if len(out) == n {
					continue
				}
				be = &benchErr{service: b.Service, env: b.Environment, release: b.Release, fp: fp}
				byKey[k] = be
				out = append(out, be)
			}
			if len(be.events) < samples {
				be.events = append(be.events, e)
			}
		}
	}
	if len(out) < n {
		tb.Fatalf("the load generator made %d distinct errors, want %d", len(out), n)
	}
	return out
}

// benchGroup is one group being seeded with its tickets and hour counts.
type benchGroup struct {
	g       store.Group
	tickets []store.Ticket
	counts  []store.GroupCount
	samples []store.GroupEvent
}

// benchGroups adds sz.Groups error groups with sz.Tickets tickets between
// them (each group's episodes: all resolved but maybe the last), hour counts
// over the last sz.Days days and sample events with stack traces.
func benchGroups(tb testing.TB, ctx context.Context, db *store.DB, p *benchProject, sz benchSize, now time.Time, r *mrand.Rand) {
	tb.Helper()
	errs := benchErrors(tb, sz.Groups, sz.Samples)
	// Tickets per group: one each, the rest to popular groups more often.
	perGroup := make([]int, sz.Groups)
	for i := range perGroup {
		perGroup[i] = 1
	}
	for range sz.Tickets - sz.Groups {
		u := r.Float64()
		perGroup[int(u*u*float64(sz.Groups))]++
	}
	horizon := 60 * 24 * time.Hour // tickets of the last 60 days
	recent := time.Duration(sz.Days) * 24 * time.Hour
	groups := make([]benchGroup, sz.Groups)
	var busiest int64
	for gi, be := range errs {
		times := make([]time.Time, perGroup[gi])
		for j := range times {
			times[j] = now.Add(-time.Minute - time.Duration(r.Int64N(int64(horizon))))
		}
		slices.SortFunc(times, func(a, b time.Time) int { return a.Compare(b) })
		level := ingest.Error
		switch gi % 10 {
		case 0:
			level = ingest.Fatal
		case 1, 2, 3:
			level = ingest.Warn
		}
		first := times[0].Add(-time.Minute - time.Duration(r.IntN(600))*time.Second)
		g := store.Group{ID: id.NewAt(id.Group, first), ProjectID: p.ProjectID, Service: be.service, Fingerprint: be.fp.Fingerprint,
			FingerprintVersion: be.fp.Version, FingerprintRule: string(be.fp.Rule), Title: be.fp.Title, ExceptionType: be.fp.ExceptionType,
			Culprit: benchCulprit(be.fp.Frames), Level: int(level), Status: store.GroupUnresolved, FirstSeen: first,
			Environments: []string{"staging", be.env}, Releases: []string{"1.4.0", be.release}, FirstRelease: "1.4.0", LastRelease: be.release,
			LastEnvironment: be.env, SampleMessage: be.events[len(be.events)-1].Message}
		bg := benchGroup{}
		open := gi%4 != 3
		for j, at := range times {
			t := store.Ticket{ID: id.NewAt(id.Ticket, at), ProjectID: p.ProjectID, Severity: tickets.SeverityOf(level).String(), Status: store.TicketResolved,
				Reason: store.ReasonRegression, Title: g.Title, FirstSeen: at.Add(-time.Duration(r.IntN(60)) * time.Second), CreatedAt: at, UpdatedAt: at}
			if j == 0 {
				t.Reason = store.ReasonNew
			}
			end := now
			if j+1 < len(times) {
				end = times[j+1]
			}
			if j+1 < len(times) || !open {
				res := at.Add(time.Duration(r.Int64N(int64(end.Sub(at)))))
				t.ResolvedAt, t.UpdatedAt = &res, res
			} else {
				t.Status = store.TicketOpen
				p.OpenTickets++
			}
			if r.IntN(20) == 0 {
				t.Reason, t.Severity = store.ReasonSpike, "critical"
			}
			bg.tickets = append(bg.tickets, t)
		}
		last := bg.tickets[len(bg.tickets)-1]
		g.TicketID, g.LastSeen = last.ID, last.CreatedAt
		if open {
			g.LastSeen = benchLater(last.CreatedAt, now.Add(-time.Duration(r.IntN(3600))*time.Second))
		} else {
			g.Status, g.ResolvedAt, g.LastSeen = store.GroupResolved, last.ResolvedAt, last.CreatedAt.Add(last.ResolvedAt.Sub(last.CreatedAt)/2)
			if gi%12 == 3 {
				g.Status = store.GroupIgnored
			}
		}
		// Hour counts from the later of first seen and the horizon of the
		// chart to last seen: every hour for the popular few, some for the
		// rest.
		from := benchLater(first, now.Add(-recent)).Truncate(time.Hour)
		hours := int(g.LastSeen.Truncate(time.Hour).Sub(from)/time.Hour) + 1
		every := 1
		if gi >= sz.Groups/20 {
			every = 1 + r.IntN(12)
		}
		scale := 1 + int(2000/float64(gi+1))
		for h := 0; h < hours; h += every {
			n := 1 + r.IntN(scale)
			bg.counts = append(bg.counts, store.GroupCount{GroupID: g.ID, ProjectID: g.ProjectID, Minute: from.Add(time.Duration(h) * time.Hour), N: n})
			g.EventCount += int64(n)
		}
		g.EventCount += int64(len(times)) * int64(1+r.IntN(50))
		g.UpdatedAt = g.LastSeen
		for k, e := range be.events {
			at := benchLater(first, g.LastSeen.Add(-time.Duration(len(be.events)-1-k)*time.Hour))
			if k == 0 {
				at = first
			}
			bg.samples = append(bg.samples, store.GroupEvent{GroupID: g.ID, First: k == 0, ReceivedAt: at, Timestamp: at, Level: int(level),
				Message: e.Message, StackTrace: e.StackTrace, Environment: be.env, Release: be.release, TraceID: e.TraceID, SpanID: e.SpanID,
				Attributes: benchAttrs(e.Attributes)})
		}
		bg.g = g
		for i := range bg.tickets {
			bg.tickets[i].GroupID = g.ID
			p.Tickets = append(p.Tickets, bg.tickets[i].ID)
		}
		p.Groups = append(p.Groups, g.ID)
		if g.EventCount > busiest {
			busiest, p.BusyGroup, p.BusyTicket = g.EventCount, g.ID, last.ID
		}
		groups[gi] = bg
	}
	slices.Sort(p.Tickets)
	slices.Reverse(p.Tickets)
	slices.Sort(p.Groups)
	slices.Reverse(p.Groups)
	// Transactions of 100 groups: on SQLite the first one's statements are
	// prepared after its commit, so the others run prepared.
	for start, size := 0, 1; start < len(groups); start, size = start+size, 100 {
		part := groups[start:min(start+size, len(groups))]
		err := db.Tx(ctx, func(c *store.Conn) error {
			var counts []store.GroupCount
			for _, bg := range part {
				if err := c.InsertGroup(ctx, bg.g); err != nil {
					return err
				}
				for _, t := range bg.tickets {
					if err := c.InsertTicket(ctx, t); err != nil {
						return err
					}
				}
				for _, e := range bg.samples {
					if err := c.InsertGroupEvent(ctx, e); err != nil {
						return err
					}
				}
				counts = append(counts, bg.counts...)
			}
			for i := 0; i < len(counts); i += 20000 { // 3 parameters a row, under PostgreSQL's 65,535
				if err := c.AddGroupCounts(ctx, counts[i:min(i+20000, len(counts))]); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			tb.Fatalf("seed groups: %v", err)
		}
	}
}

func benchLater(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func benchEarlier(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// benchCulprit names the top in-app frame as the processor does.
func benchCulprit(frames []grouping.Frame) string {
	for _, f := range frames {
		switch {
		case !f.InApp:
		case f.Module != "" && f.Function != "":
			return f.Module + "." + f.Function
		case f.File != "":
			return f.File
		}
	}
	return ""
}

// benchAttrs encodes loadgen attributes as the JSON object stored.
func benchAttrs(attrs []loadgen.Attr) string {
	m := make(map[string]any, len(attrs))
	for _, a := range attrs {
		m[a.Key] = a.Value
		if a.Num {
			m[a.Key] = json.Number(a.Value)
		}
	}
	b, _ := json.Marshal(m)
	return string(b)
}
