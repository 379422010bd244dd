package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// ProjectActivity is what the home page says of a project: its open
// tickets by severity and when it last received an event.
type ProjectActivity struct {
	Critical, High, Medium int64
	// LastEvent is the latest of its error groups' last seen (event time)
	// and of its newest INFO window's last update (when its latest info or
	// debug events were processed); nil when it has received nothing.
	LastEvent *time.Time
}

// ProjectActivityOfUser reads the activity of the projects ProjectsOfUser
// lists (the same order and limit), in one statement whatever their
// number: each figure is a correlated subquery on an index of the project
// (tickets_project_status counts without reading tickets; the latest
// last_seen reads the project's groups through error_groups_project; the
// newest INFO window is the last entry of the (project_id, window_start)
// key).
func (c *Conn) ProjectActivityOfUser(ctx context.Context, userID string, limit int) (map[string]ProjectActivity, error) {
	rows, err := c.query(ctx, `SELECT p.id,
		(SELECT COUNT(*) FROM tickets t WHERE t.project_id = p.id AND t.status = ? AND t.severity = ?),
		(SELECT COUNT(*) FROM tickets t WHERE t.project_id = p.id AND t.status = ? AND t.severity = ?),
		(SELECT COUNT(*) FROM tickets t WHERE t.project_id = p.id AND t.status = ? AND t.severity = ?),
		(SELECT MAX(g.last_seen) FROM error_groups g WHERE g.project_id = p.id),
		(SELECT s.updated_at FROM info_summaries s WHERE s.project_id = p.id ORDER BY s.window_start DESC LIMIT 1)
		FROM projects p JOIN members m ON m.organization_id = p.organization_id WHERE m.user_id = ?
		ORDER BY p.organization_id DESC, p.id DESC LIMIT ?`,
		TicketOpen, "critical", TicketOpen, "high", TicketOpen, "medium", userID, limit)
	if err != nil {
		return nil, fmt.Errorf("store: project activity: %w", err)
	}
	defer rows.Close()
	out := map[string]ProjectActivity{}
	for rows.Next() {
		var id string
		var a ProjectActivity
		var seen, info sql.NullInt64
		if err := rows.Scan(&id, &a.Critical, &a.High, &a.Medium, &seen, &info); err != nil {
			return nil, fmt.Errorf("store: project activity: %w", err)
		}
		if info.Valid && (!seen.Valid || info.Int64 > seen.Int64) {
			seen = info
		}
		a.LastEvent = fromNullMS(seen)
		out[id] = a
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: project activity: %w", err)
	}
	return out, nil
}
