package store

import (
	"context"
	"fmt"
	"time"
)

// TicketsByIDs returns the tickets of ids that exist, by id: a page of
// groups' current tickets in one statement.
func (c *Conn) TicketsByIDs(ctx context.Context, ids []string) (map[string]Ticket, error) {
	out := map[string]Ticket{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := c.query(ctx, `SELECT `+ticketCols+` FROM tickets WHERE id IN (`+tuples(len(ids), "?")+`)`, anys(ids)...)
	if err != nil {
		return nil, fmt.Errorf("store: tickets: %w", err)
	}
	ts, err := collect(rows, scanTicket)
	if err != nil {
		return nil, err
	}
	for _, t := range ts {
		out[t.ID] = t
	}
	return out, nil
}

// GroupHourCounts returns the hourly event counts of groups from the hour
// of from on, by group and hour (Unix ms): a page's sparklines in one
// statement on the group_hours key.
func (c *Conn) GroupHourCounts(ctx context.Context, groupIDs []string, from time.Time) (map[string]map[int64]int64, error) {
	out := map[string]map[int64]int64{}
	if len(groupIDs) == 0 {
		return out, nil
	}
	args := append(anys(groupIDs), from.Truncate(time.Hour).UnixMilli())
	rows, err := c.query(ctx, `SELECT group_id, hour, count FROM group_hours WHERE group_id IN (`+tuples(len(groupIDs), "?")+`) AND hour >= ?`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: group hours: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var hour, n int64
		if err := rows.Scan(&id, &hour, &n); err != nil {
			return nil, fmt.Errorf("store: group hours: %w", err)
		}
		if out[id] == nil {
			out[id] = map[int64]int64{}
		}
		out[id][hour] = n
	}
	return out, rows.Err()
}

func anys(vs []string) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = v
	}
	return out
}
