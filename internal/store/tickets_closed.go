package store

import (
	"context"
	"database/sql"
	"time"
)

// ClosedFacts is what a ticket's group looked like when the ticket was
// resolved: the facts of the ticket's episode. The group goes on counting
// (its events after that belong to its next ticket), so a resolved
// ticket's facts and summary read these instead of the group's.
type ClosedFacts struct {
	EventCount    int64
	LastSeen      time.Time
	Level         int
	Environment   string
	Release       string
	SampleMessage string
	TraceID       string
}

// closedCols are the tickets' columns of ClosedFacts (migration 00060).
const closedCols = `closed_event_count, closed_last_seen, closed_level, closed_environment, closed_release, closed_sample, closed_trace_id`

// closedRow holds the scan destinations of closedCols.
type closedRow struct {
	count, lastSeen, level        sql.NullInt64
	env, release, sample, traceID sql.NullString
}

func (r *closedRow) dest() []any {
	return []any{&r.count, &r.lastSeen, &r.level, &r.env, &r.release, &r.sample, &r.traceID}
}

func (r *closedRow) facts() *ClosedFacts {
	if !r.count.Valid {
		return nil
	}
	return &ClosedFacts{EventCount: r.count.Int64, LastSeen: fromMS(r.lastSeen.Int64), Level: int(r.level.Int64),
		Environment: r.env.String, Release: r.release.String, SampleMessage: r.sample.String, TraceID: r.traceID.String}
}

// keepClosedFacts copies the ticket's group's facts into the ticket when
// it is resolved (UpdateTicket calls it only for a ticket that was open,
// so a copy left by a release that reopened the ticket without forgetting
// it is replaced), and forgets them when it is open.
func (c *Conn) keepClosedFacts(ctx context.Context, ticketID string, resolved bool) error {
	if !resolved {
		_, err := c.exec(ctx, `UPDATE tickets SET closed_event_count = NULL, closed_last_seen = NULL, closed_level = NULL,
			closed_environment = NULL, closed_release = NULL, closed_sample = NULL, closed_trace_id = NULL
			WHERE id = ? AND closed_event_count IS NOT NULL`, ticketID)
		return err
	}
	_, err := c.exec(ctx, `UPDATE tickets SET (`+closedCols+`) =
		(SELECT event_count, last_seen, level, last_environment, last_release, sample_message, last_trace_id
		 FROM error_groups g WHERE g.id = tickets.group_id)
		WHERE id = ?`, ticketID)
	return err
}

// AsClosed returns g as it was when t was resolved: its event count, last
// sighting, level, environment, release, sample and trace those of t's
// episode. g unchanged while t is open or when t was resolved before the
// copy was kept.
func (t Ticket) AsClosed(g Group) Group {
	if f := t.Closed; f != nil {
		g.EventCount, g.LastSeen, g.Level = f.EventCount, f.LastSeen, f.Level
		g.LastEnvironment, g.LastRelease, g.SampleMessage, g.LastTraceID = f.Environment, f.Release, f.SampleMessage, f.TraceID
	}
	return g
}
