package tickets

import (
	"context"
	"errors"
	"time"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/store"
)

// Event is what happened to a ticket while a batch was applied: opened for
// a new group, opened again for a regression, or raised by a spike.
// Notification consumes it, in the batch's transaction.
type Event struct {
	Ticket store.Ticket
	Group  store.Group
	// Kind is store.ReasonNew, store.ReasonRegression, store.ReasonSpike or
	// ReasonUnignored.
	Kind string
	// Environments are those of the events that caused it (the batch's
	// events of the group, in order of appearance; events without an
	// environment add none). Channel filters match them.
	Environments []string
	// Delay is how long after now its notifications are due: a spike raised
	// in the transaction that opened its ticket waits RaisedAfterOpening,
	// so that channels receive the "new" first (deliveries are attempted
	// concurrently, oldest due first).
	Delay time.Duration
}

// RaisedAfterOpening is the Delay of a spike raised in the transaction that
// opened its ticket.
const RaisedAfterOpening = 3 * time.Second

// Severity is the ticket's severity as an ordered value.
func (e Event) Severity() Severity {
	s, _ := ParseSeverity(e.Ticket.Severity)
	return s
}

// Open applies the ticket rules to a group that has just taken a batch's
// events (merged into g, new when isNew): a new group opens a ticket
// (reason new) and a resolved group regresses, becoming unresolved with a
// new ticket (reason regression). It returns the ticket for the caller to
// insert, with g pointing at it, or nil when no ticket opens. firstSeen is
// the earliest of the events.
func Open(g *store.Group, isNew bool, firstSeen, now time.Time) *store.Ticket {
	reason := store.ReasonNew
	switch {
	case isNew:
	case g.Status == store.GroupResolved:
		g.Status, g.ResolvedAt, g.ResolvedIn = store.GroupUnresolved, nil, ""
		reason = store.ReasonRegression
	default:
		return nil
	}
	return openTicket(g, reason, firstSeen, now)
}

// Batch is what a batch brought a group, for the rules that look past its
// status: the releases of its events (resolved in a release) and what an
// ignore condition counts.
type Batch struct {
	IgnoreBatch
	Releases []string
}

// OpenAfter is Open with CONTRACT 8's conditions: a group resolved in a
// release regresses only on an event of a newer release, and an ignored
// group whose condition the batch meets becomes unresolved with a new
// ticket (reason unignored; its figures are kept in g otherwise).
func OpenAfter(ctx context.Context, c *store.Conn, g *store.Group, isNew bool, b Batch, firstSeen, now time.Time) (*store.Ticket, error) {
	switch {
	case isNew:
	case g.Status == store.GroupResolved && g.ResolvedIn != "":
		if reg, err := Regresses(ctx, c, *g, b.Releases); err != nil || !reg {
			return nil, err
		}
	case g.Status == store.GroupIgnored && g.IgnoreRule != "":
		met, err := Met(ctx, c, g, b.IgnoreBatch)
		if err != nil || !met {
			return nil, err
		}
		if err := c.ClearIgnoreUsers(ctx, g.ID); err != nil {
			return nil, err
		}
		g.Status = store.GroupUnresolved
		setRule(g, nil)
		return openTicket(g, ReasonUnignored, firstSeen, now), nil
	}
	return Open(g, isNew, firstSeen, now), nil
}

func openTicket(g *store.Group, reason string, firstSeen, now time.Time) *store.Ticket {
	t := &store.Ticket{
		ID: id.New(id.Ticket), ProjectID: g.ProjectID, GroupID: g.ID, Severity: SeverityOf(ingest.Level(g.Level)).String(),
		Status: store.TicketOpen, Reason: reason, Title: g.Title, FirstSeen: firstSeen, CreatedAt: now, UpdatedAt: now,
	}
	g.TicketID = t.ID
	return t
}

// Raise applies the spike rule to a group whose open ticket is g.TicketID:
// when the group's events in the rule's window up to at (pending of them
// not counted in the store yet) are a spike against its baseline, the
// ticket is raised to SpikeSeverity with the reason spike, once per
// ticket. It returns the event, or nil when nothing is raised; spiked
// reports that the ticket's reason is spike (raised now or before), which
// no later event changes: a ticket's reason is set when it opens and only
// ever changed to spike, so its caller may stop checking that ticket.
func (r SpikeRule) Raise(ctx context.Context, c *store.Conn, g store.Group, at, now time.Time, pending int, envs []string) (ev *Event, spiked bool, err error) {
	recent, err := r.Recent(ctx, c, g.ID, at)
	if err != nil {
		return nil, false, err
	}
	return r.RaiseCounted(ctx, c, g, at, now, recent+int64(pending), envs)
}

// RaiseCounted is Raise with the group's events in the window known:
// recent is the stored count of RecentWindow and the pending events.
func (r SpikeRule) RaiseCounted(ctx context.Context, c *store.Conn, g store.Group, at, now time.Time, recent int64, envs []string) (ev *Event, spiked bool, err error) {
	if recent < r.Min {
		return nil, false, nil
	}
	winStart := r.windowStart(at)
	t, err := c.TicketByID(ctx, g.TicketID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil || t.Status != store.TicketOpen || t.Reason == store.ReasonSpike {
		return nil, err == nil && t.Reason == store.ReasonSpike, err
	}
	// Only events that came while the ticket was open count (CONTRACT 6:
	// "spikes while its ticket is open"): those since the batch that opened
	// it (g holds this batch's events), so a regression's ticket is not
	// raised by the burst its resolved predecessor was raised for. A ticket
	// opened before events_before was kept counts its whole window.
	if since := g.EventCount - t.EventsBefore; since < recent {
		recent = since
	}
	if recent < r.Min {
		return nil, false, nil
	}
	base, err := c.GroupCountBetween(ctx, g.ID, winStart.Add(-r.Baseline), winStart)
	if err != nil || !r.Spiking(recent, base) {
		return nil, false, err
	}
	t.Severity, t.Reason, t.UpdatedAt = SpikeSeverity.String(), store.ReasonSpike, now
	if err := c.UpdateTicket(ctx, t); err != nil {
		return nil, false, err
	}
	if err := Record(ctx, c, g.ID, store.ActivitySpike, Actor{}, map[string]any{"ticket_id": t.ID, "events": recent, "window": FormatWindow(r.Window)}, now); err != nil {
		return nil, false, err
	}
	return &Event{Ticket: t, Group: g, Kind: store.ReasonSpike, Environments: envs}, true, nil
}

// windowStart is the first minute of the spike window that ends with the
// minute of at.
func (r SpikeRule) windowStart(at time.Time) time.Time {
	return at.Truncate(time.Minute).Add(-r.Window + time.Minute)
}

// Recent is the group's stored count in the spike window that ends with
// the minute of at: what Raise compares with Min (with the batch's own
// events), readable outside a transaction to tell cheaply that a group
// cannot spike.
func (r SpikeRule) Recent(ctx context.Context, c *store.Conn, groupID string, at time.Time) (int64, error) {
	w := r.RecentWindow(groupID, at)
	return c.GroupCountBetween(ctx, groupID, w.From, w.To)
}

// RecentWindow is the minutes Recent counts.
func (r SpikeRule) RecentWindow(groupID string, at time.Time) store.CountWindow {
	return store.CountWindow{GroupID: groupID, From: r.windowStart(at), To: at.Add(time.Minute)}
}

// ExpireIgnore ends, in c's transaction, the ignore of a group whose
// "until" has come by now although no event arrived since (processing's
// sweep of store.DueIgnores): the group becomes unresolved with a new
// ticket (reason unignored), recorded in its activity. It returns the
// event notification consumes, or nil when the group no longer waits (it
// changed meanwhile; a stale time is cleared).
func ExpireIgnore(ctx context.Context, c *store.Conn, groupID string, now time.Time) (*Event, error) {
	g, err := c.LockGroup(ctx, groupID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	r := ParseIgnoreRule(g.IgnoreRule)
	if g.Status != store.GroupIgnored || r == nil || r.Until == nil {
		setRule(&g, nil)
		return nil, c.UpdateGroup(ctx, g)
	}
	if r.Until.After(now) {
		return nil, nil
	}
	g.Status, g.UpdatedAt = store.GroupUnresolved, now
	setRule(&g, nil)
	// No event came with it: the ticket's first sighting is the group's
	// last, so that its facts never put first_seen after last_seen.
	firstSeen := now
	if !g.LastSeen.IsZero() && g.LastSeen.Before(now) {
		firstSeen = g.LastSeen
	}
	t := openTicket(&g, ReasonUnignored, firstSeen, now)
	if err := c.UpdateGroup(ctx, g); err != nil {
		return nil, err
	}
	if err := c.InsertTicket(ctx, *t); err != nil {
		return nil, err
	}
	if err := RecordOpened(ctx, c, g, *t, now); err != nil {
		return nil, err
	}
	var envs []string
	if g.LastEnvironment != "" {
		envs = []string{g.LastEnvironment}
	}
	return &Event{Ticket: *t, Group: g, Kind: ReasonUnignored, Environments: envs}, nil
}
