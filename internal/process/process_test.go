package process_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"sync"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/grouping"
	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/process"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
	"github.com/errata-dev/errata/internal/tickets"
)

func TestMain(m *testing.M) { storetest.Main(m) }

// clock is a settable time source.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

type env struct {
	t     testing.TB
	db    *store.DB
	prj   string
	clock *clock
	proc  *process.Processor
	seen  []tickets.Event
}

func newEnv(t *testing.T, db *store.DB) *env { return newEnvTB(t, db) }

func newEnvTB(t testing.TB, db *store.DB) *env {
	t.Helper()
	ctx := context.Background()
	now := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	o := store.Org{ID: id.New(id.Org), Name: "o", Plan: "team", CreatedAt: now, UpdatedAt: now}
	p := store.Project{ID: id.New(id.Project), OrgID: o.ID, Name: "p", CreatedAt: now, UpdatedAt: now}
	if err := db.Write().CreateOrg(ctx, o); err != nil {
		t.Fatal(err)
	}
	if err := db.Write().CreateProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, db: db, prj: p.ID, clock: &clock{t: now}}
	e.proc = process.New(db, process.Options{Now: e.clock.Now, InfoWindow: time.Hour,
		OnTickets: func(_ context.Context, _ *store.Conn, evs []tickets.Event) error {
			e.seen = append(e.seen, evs...)
			return nil
		}})
	return e
}

// send queues one batch received now and processes the queue.
func (e *env) send(events ...ingest.Event) {
	e.t.Helper()
	e.queue(events...)
	if err := e.proc.Drain(context.Background()); err != nil {
		e.t.Fatalf("Drain: %v", err)
	}
}

func (e *env) queue(events ...ingest.Event) {
	e.t.Helper()
	now := e.clock.Now()
	for i := range events {
		if events[i].Timestamp == 0 {
			events[i].Timestamp = now.UnixMilli()
		}
		if events[i].Service == "" {
			events[i].Service = "api"
		}
	}
	payload, _ := ingest.EncodePayload(events)
	err := e.db.Tx(context.Background(), func(c *store.Conn) error {
		return c.InsertBatches(context.Background(), []store.Batch{{ProjectID: e.prj, ReceivedAt: now, EventCount: len(events), Payload: payload}})
	})
	if err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) groups() []store.Group {
	e.t.Helper()
	gs, err := e.db.Read().ListGroups(context.Background(), e.prj, store.GroupFilter{}, "", 100)
	if err != nil {
		e.t.Fatal(err)
	}
	return gs
}

func errEvent(msg string, lvl ingest.Level) ingest.Event {
	return ingest.Event{Level: lvl, Message: msg, Environment: "prod", Release: "1.0.0"}
}

func TestNewRepeatedAndRegressingErrors(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := newEnv(t, db)
		e.send(errEvent("connection to 10.0.0.1 refused after 30s", ingest.Error), errEvent("user 42 not found", ingest.Warn),
			ingest.Event{Level: ingest.Info, Message: "request 1 served in 3ms"}, ingest.Event{Level: ingest.Debug, Message: "cache hit for key 9"})
		gs := e.groups()
		if len(gs) != 2 || len(e.seen) != 2 {
			t.Fatalf("groups = %d, ticket events = %d; want 2 and 2", len(gs), len(e.seen))
		}
		sev := map[string]string{}
		for _, ev := range e.seen {
			if ev.Kind != store.ReasonNew || ev.Ticket.Status != store.TicketOpen {
				t.Fatalf("ticket event = %+v, want a new open ticket", ev)
			}
			sev[ev.Group.SampleMessage] = ev.Ticket.Severity
		}
		if sev["connection to 10.0.0.1 refused after 30s"] != "high" || sev["user 42 not found"] != "medium" {
			t.Fatalf("severities = %v, want high for error, medium for warn", sev)
		}

		// The same error with other variable parts joins the group; no ticket.
		e.seen = nil
		e.clock.Add(time.Minute)
		e.send(errEvent("connection to 10.9.8.7 refused after 12s", ingest.Error), errEvent("connection to 10.9.8.6 refused after 1s", ingest.Fatal))
		if len(e.groups()) != 2 || len(e.seen) != 0 {
			t.Fatalf("after repeats: groups = %d, ticket events = %v; want 2 and none", len(e.groups()), e.seen)
		}
		var conn store.Group
		for _, g := range e.groups() {
			if g.EventCount == 3 {
				conn = g
			}
		}
		if conn.ID == "" || conn.Level != int(ingest.Fatal) || conn.SampleMessage != "connection to 10.9.8.6 refused after 1s" {
			t.Fatalf("connection group = %+v, want 3 events, level fatal, latest sample", conn)
		}
		evs, _ := db.Read().ListGroupEvents(ctx, conn.ID, 0, 100)
		if len(evs) != 2 || !evs[len(evs)-1].First {
			t.Fatalf("samples = %d (oldest first=%v), want the first and the latest", len(evs), len(evs) > 0 && evs[len(evs)-1].First)
		}

		// Resolved, then seen again: a regression ticket.
		conn.Status = store.GroupResolved
		if err := db.Write().UpdateGroup(ctx, conn); err != nil {
			t.Fatal(err)
		}
		tk, _ := db.Read().TicketByID(ctx, conn.TicketID)
		tk.Status = store.TicketResolved
		if err := db.Write().UpdateTicket(ctx, tk); err != nil {
			t.Fatal(err)
		}
		e.clock.Add(time.Hour)
		e.send(errEvent("connection to 10.1.1.1 refused after 2s", ingest.Error))
		if len(e.seen) != 1 || e.seen[0].Kind != store.ReasonRegression || e.seen[0].Ticket.ID == conn.TicketID {
			t.Fatalf("ticket events = %+v, want one regression ticket", e.seen)
		}
		g, _ := db.Read().GroupByID(ctx, conn.ID)
		if g.Status != store.GroupUnresolved || g.TicketID != e.seen[0].Ticket.ID {
			t.Fatalf("regressed group = %+v, want unresolved with the new ticket", g)
		}
	})
}

func TestIgnoredGroupOpensNoTicket(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		e.send(errEvent("disk full", ingest.Error))
		g := e.groups()[0]
		g.Status = store.GroupIgnored
		if err := db.Write().UpdateGroup(context.Background(), g); err != nil {
			t.Fatal(err)
		}
		e.seen = nil
		e.send(errEvent("disk full", ingest.Error))
		if len(e.seen) != 0 || e.groups()[0].EventCount != 2 {
			t.Fatalf("ignored group: ticket events %v, count %d; want none and 2", e.seen, e.groups()[0].EventCount)
		}
	})
}

func TestSpikeRaisesTheTicketOnce(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		for i := 0; i < 20; i++ { // a quiet baseline: one an hour
			e.send(errEvent("timeout", ingest.Error))
			e.clock.Add(time.Hour)
		}
		e.seen = nil
		burst := make([]ingest.Event, 49)
		for i := range burst {
			burst[i] = errEvent("timeout", ingest.Error)
		}
		e.send(burst...)
		if len(e.seen) != 0 {
			t.Fatalf("49 events spiked: %+v (the minimum is 50)", e.seen)
		}
		// Spike checks of a busy group run at most every 15 seconds.
		e.clock.Add(20 * time.Second)
		e.send(errEvent("timeout", ingest.Error))
		if len(e.seen) != 1 || e.seen[0].Kind != store.ReasonSpike || e.seen[0].Ticket.Severity != "critical" {
			t.Fatalf("ticket events = %+v, want one spike to critical", e.seen)
		}
		e.send(burst...)
		if len(e.seen) != 1 {
			t.Fatalf("spiked twice: %+v", e.seen)
		}
	})
}

// TestSpikeFoundAfterTheBurstStops: a burst that crosses the spike
// threshold within the 15 seconds between two checks of its group, and
// then stops, raises the ticket once the group has been quiet for a few
// seconds, not at the group's next event, whenever that comes.
func TestSpikeFoundAfterTheBurstStops(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		e.send(errEvent("ledger stuck", ingest.Error))
		e.clock.Add(1500 * time.Millisecond)
		burst := make([]ingest.Event, 48)
		for i := range burst {
			burst[i] = errEvent("ledger stuck", ingest.Error)
		}
		e.send(burst...) // 49 events: checked at once, below the minimum of 50
		for range 3 {
			e.clock.Add(time.Second)
			e.send(errEvent("ledger stuck", ingest.Error)) // 52 within seconds, no check due
		}
		if len(e.seen) != 1 || e.seen[0].Kind != store.ReasonNew {
			t.Fatalf("ticket events during the burst = %+v, want only the new ticket", e.seen)
		}
		e.clock.Add(6 * time.Second)
		if err := e.proc.Drain(context.Background()); err != nil {
			t.Fatal(err)
		}
		if len(e.seen) != 2 || e.seen[1].Kind != store.ReasonSpike || e.seen[1].Ticket.Severity != "critical" {
			t.Fatalf("ticket events after the burst stopped = %+v, want the new ticket, then a spike to critical", e.seen)
		}
		if err := e.proc.Drain(context.Background()); err != nil {
			t.Fatal(err)
		}
		if len(e.seen) != 2 {
			t.Fatalf("spiked again: %+v", e.seen)
		}
	})
}

// TestSpikeWhateverTheBatching: a new error's burst spikes alike whether
// its events came in one batch (the one that opens its ticket) or in two:
// the events after the first came while its ticket was open.
func TestSpikeWhateverTheBatching(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		burst := func(msg string, n int) []ingest.Event {
			out := make([]ingest.Event, n)
			for i := range out {
				out[i] = errEvent(msg, ingest.Error)
			}
			return out
		}
		e.send(burst("one batch", 60)...)
		if len(e.seen) != 2 || e.seen[0].Kind != store.ReasonNew || e.seen[1].Kind != store.ReasonSpike || e.seen[1].Ticket.Severity != "critical" {
			t.Fatalf("60 events of a new error in one batch: ticket events %+v, want new then spike", e.seen)
		}
		// Told after the "new", not at the same time.
		if e.seen[0].Delay != 0 || e.seen[1].Delay != tickets.RaisedAfterOpening {
			t.Errorf("delays %v and %v, want 0 and %v", e.seen[0].Delay, e.seen[1].Delay, tickets.RaisedAfterOpening)
		}
		e.seen = nil
		e.send(burst("two batches", 10)...)
		e.send(burst("two batches", 50)...)
		if len(e.seen) != 2 || e.seen[0].Kind != store.ReasonNew || e.seen[1].Kind != store.ReasonSpike || e.seen[1].Delay != 0 {
			t.Fatalf("60 events of a new error in two batches: ticket events %+v, want new then spike", e.seen)
		}
		// Resolved after its spike and seen once more: a regression, not
		// raised by the burst its resolved ticket was raised for.
		ctx := context.Background()
		g, _ := db.Read().GroupByID(ctx, e.seen[0].Ticket.GroupID)
		g.Status = store.GroupResolved
		tk, _ := db.Read().TicketByID(ctx, g.TicketID)
		tk.Status = store.TicketResolved
		if err := db.Write().UpdateGroup(ctx, g); err != nil {
			t.Fatal(err)
		}
		if err := db.Write().UpdateTicket(ctx, tk); err != nil {
			t.Fatal(err)
		}
		e.seen = nil
		e.clock.Add(5 * time.Second) // the burst's minute still
		e.send(burst("two batches", 1)...)
		if len(e.seen) != 1 || e.seen[0].Kind != store.ReasonRegression || e.seen[0].Ticket.Severity != "high" {
			t.Fatalf("one event after the spike's ticket was resolved: ticket events %+v, want one high regression", e.seen)
		}
		e.seen = nil
		e.clock.Add(20 * time.Second) // past the 15 s between spike checks
		e.send(burst("two batches", 1)...)
		if len(e.seen) != 0 {
			t.Fatalf("a second event of the regression: ticket events %+v, want none (2 events since it opened)", e.seen)
		}
		e.seen = nil
		e.send(burst("quiet", 49)...)
		if len(e.seen) != 1 || e.seen[0].Kind != store.ReasonNew {
			t.Fatalf("49 events of a new error: ticket events %+v, want new only", e.seen)
		}
	})
}

func TestInfoSummaries(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		var batch []ingest.Event
		for i := 0; i < 30; i++ {
			batch = append(batch, ingest.Event{Level: ingest.Info, Service: "web", Message: fmt.Sprintf("GET /orders/%d answered in %dms", i, i+3)})
		}
		batch = append(batch, ingest.Event{Level: ingest.Debug, Service: "worker", Message: "tick"})
		e.send(batch...)
		e.send(ingest.Event{Level: ingest.Info, Service: "worker", Message: "job 7 done"})
		e.clock.Add(time.Hour)
		e.send(ingest.Event{Level: ingest.Info, Service: "web", Message: "next window"})
		list, err := db.Read().ListInfoSummaries(context.Background(), e.prj, nil, nil, "", 10)
		if err != nil || len(list) != 2 {
			t.Fatalf("summaries = %d, %v; want 2 windows", len(list), err)
		}
		s, err := db.Read().InfoSummaryDetail(context.Background(), list[1].ID, 20)
		if err != nil {
			t.Fatal(err)
		}
		// event_count is info events only; services count info and debug.
		if s.EventCount != 31 || s.DebugCount != 1 || s.Services["web"] != 30 || s.Services["worker"] != 2 {
			t.Fatalf("summary = %+v, want 31 info events, 1 debug, web 30, worker 2", s)
		}
		if len(s.Top) != 3 || s.Top[0].Count != 30 || s.Top[0].Template == s.Top[0].Sample {
			t.Fatalf("top templates = %+v, want the parameterised GET template first with 30", s.Top)
		}
		if !s.WindowStart.Equal(time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)) || !s.WindowEnd.Equal(s.WindowStart.Add(time.Hour)) {
			t.Fatalf("window = %v–%v", s.WindowStart, s.WindowEnd)
		}
	})
}

// TestInfoSummaryTemplates: an INFO event that carries its template (the
// attribute message_template, or sentry.message.template of a Sentry log or
// logentry) counts under that template whatever its arguments; without
// one its text is parameterised.
func TestInfoSummaryTemplates(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		e.send(
			ingest.Event{Level: ingest.Info, Message: "order o-77 shipped by DHL", Attributes: []byte(`{"sentry.message.template":"order %s shipped by %s"}`)},
			ingest.Event{Level: ingest.Info, Message: "order o-78 shipped by UPS", Attributes: []byte(`{"sentry.message.template":"order %s shipped by %s"}`)},
			ingest.Event{Level: ingest.Debug, Message: "parcel 9 left hub Oslo", Attributes: []byte(`{"message_template":"parcel {id} left hub {hub}","user":"x"}`)},
			ingest.Event{Level: ingest.Info, Message: "parcel 10 left hub Rome", Attributes: []byte(`{"message_template":"parcel {id} left hub {hub}"}`)},
			ingest.Event{Level: ingest.Info, Message: "cache warm after 12ms", Attributes: []byte(`{"message_template":""}`)},
		)
		list, err := db.Read().ListInfoSummaries(context.Background(), e.prj, nil, nil, "", 10)
		if err != nil || len(list) != 1 {
			t.Fatalf("summaries = %d, %v; want 1 window", len(list), err)
		}
		s, err := db.Read().InfoSummaryDetail(context.Background(), list[0].ID, 20)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]int64{}
		for _, m := range s.Top {
			got[m.Template] = m.Count
		}
		want := map[string]int64{"order %s shipped by %s": 2, "parcel {id} left hub {hub}": 2, grouping.Parameterize("cache warm after 12ms"): 1}
		if !maps.Equal(got, want) {
			t.Fatalf("templates = %v, want %v", got, want)
		}
	})
}

func TestLostLeaseIsNotCountedTwice(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := newEnv(t, db)
		e.queue(errEvent("boom", ingest.Error))
		now := e.clock.Now()
		first, err := db.Write().ClaimBatch(ctx, now, now.Add(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		// The first worker stalls past its lease; another takes the batch.
		e.clock.Add(2 * time.Minute)
		if err := e.proc.Drain(ctx); err != nil {
			t.Fatal(err)
		}
		err = db.Tx(ctx, func(c *store.Conn) error { return c.FinishBatch(ctx, first) })
		if !errors.Is(err, store.ErrLeaseLost) {
			t.Fatalf("stale FinishBatch = %v, want ErrLeaseLost", err)
		}
		if g := e.groups(); len(g) != 1 || g[0].EventCount != 1 {
			t.Fatalf("groups = %+v, want one group counted once", g)
		}
	})
}

func TestWorkersShareTheQueueWithoutDoubleWork(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		const batches = 40
		for i := 0; i < batches; i++ {
			ev := errEvent("shared", ingest.Error)
			ev.Attributes = []byte(fmt.Sprintf(`{"fingerprint":"batch-%d"}`, i))
			e.queue(ev, ev)
		}
		var wg sync.WaitGroup
		for w := 0; w < 4; w++ {
			p := process.New(db, process.Options{Now: e.clock.Now})
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := p.Drain(context.Background()); err != nil {
					t.Errorf("Drain: %v", err)
				}
			}()
		}
		wg.Wait()
		gs := e.groups()
		if len(gs) != batches {
			t.Fatalf("groups = %d, want %d", len(gs), batches)
		}
		for _, g := range gs {
			if g.EventCount != 2 {
				t.Fatalf("group %s counted %d events, want 2 (each batch exactly once)", g.Fingerprint, g.EventCount)
			}
		}
	})
}
