package store

import (
	"github.com/errata-dev/errata/internal/search"

	"context"
	"database/sql"
	"fmt"
	"time"
)

// Ticket statuses and reasons.
const (
	TicketOpen     = "open"
	TicketResolved = "resolved"

	ReasonNew        = "new"
	ReasonRegression = "regression"
	ReasonSpike      = "spike"
	// ReasonMerged is the reason of a ticket resolved because its group was
	// merged by hand into another.
	ReasonMerged = "merged"
)

// Ticket is something a person can act on: opened when a group appears or
// regresses. Its facts and summary are built from the group when read
// (from the group as it was when the ticket was resolved, once resolved).
type Ticket struct {
	ID         string
	ProjectID  string
	GroupID    string
	Severity   string
	Status     string
	Reason     string
	Title      string
	FirstSeen  time.Time // the first event of this ticket's episode
	CreatedAt  time.Time
	UpdatedAt  time.Time
	ResolvedAt *time.Time
	// EventsBefore is the group's event count before the batch that opened
	// the ticket (0 for tickets opened before it was kept): its spike
	// counts only the events since.
	EventsBefore int64
	// Closed is what the group looked like when the ticket was resolved
	// (tickets_closed.go); nil while it is open.
	Closed *ClosedFacts
}

const ticketCols = ticketWriteCols + `, ` + closedCols

// ticketWriteCols are the columns InsertTicket writes.
const ticketWriteCols = `id, project_id, group_id, severity, status, reason, title, first_seen, created_at, updated_at, resolved_at, events_before`

// ticketRow holds the scan destinations of a ticket row.
type ticketRow struct {
	t          Ticket
	fs, cr, up int64
	res        sql.NullInt64
	closed     closedRow
}

func (r *ticketRow) dest() []any {
	t := &r.t
	return append([]any{&t.ID, &t.ProjectID, &t.GroupID, &t.Severity, &t.Status, &t.Reason, &t.Title, &r.fs, &r.cr, &r.up, &r.res, &t.EventsBefore}, r.closed.dest()...)
}

func (r *ticketRow) ticket() Ticket {
	t := r.t
	t.FirstSeen, t.CreatedAt, t.UpdatedAt, t.ResolvedAt = fromMS(r.fs), fromMS(r.cr), fromMS(r.up), fromNullMS(r.res)
	if t.Status == TicketResolved {
		// Open, a ticket reads its group; a copy left by a release that
		// did not know it (reopened there) is stale (migration 00060).
		t.Closed = r.closed.facts()
	}
	return t
}

func scanTicket(s interface{ Scan(...any) error }) (Ticket, error) {
	var r ticketRow
	if err := s.Scan(r.dest()...); err != nil {
		return Ticket{}, err
	}
	return r.ticket(), nil
}

// InsertTicket adds a ticket; a second open ticket of a group is ErrConflict.
func (c *Conn) InsertTicket(ctx context.Context, t Ticket) error {
	_, err := c.exec(ctx, `INSERT INTO tickets (`+ticketWriteCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		t.ID, t.ProjectID, t.GroupID, t.Severity, t.Status, t.Reason, t.Title, ms(t.FirstSeen), ms(t.CreatedAt), ms(t.UpdatedAt), nullMS(t.ResolvedAt), t.EventsBefore)
	if err != nil {
		return fmt.Errorf("store: insert ticket: %w", err)
	}
	return nil
}

// UpdateTicket writes a ticket's severity, status, reason and times. A
// ticket resolved keeps what its group looks like now (Ticket.Closed), one
// opened again forgets it.
func (c *Conn) UpdateTicket(ctx context.Context, t Ticket) error {
	if err := c.execOne(ctx, `UPDATE tickets SET severity = ?, status = ?, reason = ?, updated_at = ?, resolved_at = ? WHERE id = ?`,
		t.Severity, t.Status, t.Reason, ms(t.UpdatedAt), nullMS(t.ResolvedAt), t.ID); err != nil {
		return fmt.Errorf("store: update ticket %s: %w", t.ID, err)
	}
	resolved := t.Status == TicketResolved
	if resolved == (t.Closed != nil) {
		// Open with nothing kept to forget (a spike's raise), or resolved
		// again with its copy kept.
		return nil
	}
	if err := c.keepClosedFacts(ctx, t.ID, resolved); err != nil {
		return fmt.Errorf("store: update ticket %s: %w", t.ID, err)
	}
	return nil
}

// TicketByID returns one ticket.
func (c *Conn) TicketByID(ctx context.Context, id string) (Ticket, error) {
	t, err := scanTicket(c.queryRow(ctx, `SELECT `+ticketCols+` FROM tickets WHERE id = ?`, id))
	if err != nil {
		return Ticket{}, fmt.Errorf("store: ticket %s: %w", id, translate(err))
	}
	return t, nil
}

// DeleteTicket deletes a ticket and clears it from its group.
func (c *Conn) DeleteTicket(ctx context.Context, id string) error {
	if _, err := c.exec(ctx, `UPDATE error_groups SET ticket_id = NULL WHERE ticket_id = ?`, id); err != nil {
		return fmt.Errorf("store: delete ticket %s: %w", id, err)
	}
	if err := c.execOne(ctx, `DELETE FROM tickets WHERE id = ?`, id); err != nil {
		return fmt.Errorf("store: delete ticket %s: %w", id, err)
	}
	return nil
}

// TicketFilter narrows a ticket list; Service and Environment match the
// ticket's group.
type TicketFilter struct {
	Status, Severity, Service, Environment string
	// Query holds the terms of the list's query parameter (package search).
	Query search.Query
}

// TicketWithGroup is a ticket read with its group.
type TicketWithGroup struct {
	Ticket
	Group Group
}

// TicketWithGroupByID returns one ticket with its group.
func (c *Conn) TicketWithGroupByID(ctx context.Context, id string) (TicketWithGroup, error) {
	t, err := scanTicketWithGroup(c.queryRow(ctx, `SELECT `+prefixCols("t.", ticketCols)+`, `+prefixCols("g.", groupCols)+` FROM tickets t JOIN error_groups g ON g.id = t.group_id WHERE t.id = ?`, id))
	if err != nil {
		return TicketWithGroup{}, fmt.Errorf("store: ticket %s: %w", id, translate(err))
	}
	return t, nil
}

func scanTicketWithGroup(s interface{ Scan(...any) error }) (TicketWithGroup, error) {
	var tr ticketRow
	var gr groupRow
	if err := s.Scan(append(tr.dest(), gr.dest()...)...); err != nil {
		return TicketWithGroup{}, err
	}
	return TicketWithGroup{Ticket: tr.ticket(), Group: gr.group()}, nil
}

// OpenTicketCounts counts a project's open tickets by severity.
func (c *Conn) OpenTicketCounts(ctx context.Context, projectID string) (map[string]int64, error) {
	rows, err := c.query(ctx, `SELECT severity, COUNT(*) FROM tickets WHERE project_id = ? AND status = ? GROUP BY severity`, projectID, TicketOpen)
	if err != nil {
		return nil, fmt.Errorf("store: count open tickets: %w", err)
	}
	defer rows.Close()
	out := map[string]int64{}
	for rows.Next() {
		var sev string
		var n int64
		if err := rows.Scan(&sev, &n); err != nil {
			return nil, fmt.Errorf("store: count open tickets: %w", err)
		}
		out[sev] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: count open tickets: %w", err)
	}
	return out, nil
}
