package store

import (
	"context"
	"fmt"
)

// Order is the order of a ticket or group list. Every order is descending
// and breaks ties by id, newest first, so a page boundary is one exact
// position (Keyset).
type Order string

// The list orders. For tickets, last seen and event count are those of the
// ticket's error group.
const (
	// OrderNewest is by id: creation order, newest first (the default and
	// the API's order).
	OrderNewest Order = ""
	// OrderLastSeen is by last seen, most recent first.
	OrderLastSeen Order = "last_seen"
	// OrderEventCount is by event count, most first.
	OrderEventCount Order = "event_count"
	// OrderUsers is by users affected (user_count), most first.
	OrderUsers Order = "users"
)

// Orders are the list orders a caller may ask for, OrderNewest first.
var Orders = []Order{OrderNewest, OrderLastSeen, OrderEventCount, OrderUsers}

// Keyset is where a page of a list starts: after the row with this sort
// value (Unix ms for OrderLastSeen, a count for OrderEventCount; unused for
// OrderNewest) and id. The zero Keyset is the first page.
type Keyset struct {
	Value int64
	ID    string
}

// orderColumn is the error_groups column an order sorts by; "" for
// OrderNewest. The names are constants: no caller's text reaches the SQL.
func orderColumn(o Order) (string, error) {
	switch o {
	case OrderNewest:
		return "", nil
	case OrderLastSeen:
		return "last_seen", nil
	case OrderEventCount:
		return "event_count", nil
	case OrderUsers:
		return "user_count", nil
	}
	return "", fmt.Errorf("store: unknown list order %q", o)
}

// keysetClause is the WHERE condition and ORDER BY of a page in order o
// after k, for rows whose id column is idCol and whose group columns are
// prefixed with g ("g." or ""), with its arguments.
func keysetClause(o Order, k Keyset, idCol, g string) (where, order string, args []any, err error) {
	col, err := orderColumn(o)
	if err != nil {
		return "", "", nil, err
	}
	if col == "" {
		return ` AND (? = '' OR ` + idCol + ` < ?)`, ` ORDER BY ` + idCol + ` DESC`, []any{k.ID, k.ID}, nil
	}
	col = g + col
	order = ` ORDER BY ` + col + ` DESC, ` + idCol + ` DESC`
	if k.ID == "" {
		return "", order, nil, nil
	}
	return ` AND (` + col + ` < ? OR (` + col + ` = ? AND ` + idCol + ` < ?))`, order, []any{k.Value, k.Value, k.ID}, nil
}

// ListTickets lists a project's tickets with their groups, newest first;
// before is the last ticket id of the previous page ("" for the first).
func (c *Conn) ListTickets(ctx context.Context, projectID string, f TicketFilter, before string, limit int) ([]TicketWithGroup, error) {
	return c.ListTicketsBy(ctx, projectID, f, OrderNewest, Keyset{ID: before}, limit)
}

// ListTicketsBy lists a project's tickets with their groups in order o,
// starting after k.
func (c *Conn) ListTicketsBy(ctx context.Context, projectID string, f TicketFilter, o Order, k Keyset, limit int) ([]TicketWithGroup, error) {
	where, order, kargs, err := keysetClause(o, k, "t.id", "g.")
	if err != nil {
		return nil, err
	}
	q := `FROM tickets t JOIN error_groups g ON g.id = t.group_id WHERE t.project_id = ? AND g.project_id = ?` + where
	args := append([]any{projectID, projectID}, kargs...)
	for _, w := range []struct{ col, v string }{{"t.status", f.Status}, {"t.severity", f.Severity}, {"g.service", f.Service}} {
		if w.v != "" {
			q += ` AND ` + w.col + ` = ?`
			args = append(args, w.v)
		}
	}
	if f.Environment != "" {
		q += ` AND ` + c.drv.contains("g.environments") // exactly, as channel filters match
		args = append(args, mustJSON(f.Environment))
	}
	sq, sargs := (&searchSQL{dialect: c.dialect, g: "g.", t: "t."}).where(f.Query)
	q += sq
	args = append(args, sargs...)
	cols := `SELECT ` + prefixCols("t.", ticketCols) + `, ` + prefixCols("g.", groupCols) + ` `
	if o == OrderNewest {
		q = cols + q + order + ` LIMIT ?`
	} else {
		// Sorted by a column of the group, every ticket of the project is
		// joined and sorted (no index can follow values that change with
		// every batch): the page's ids are chosen first on narrow rows,
		// which SQLite takes from the groups and the tickets_project_group
		// index (migration 00016), then only those rows are read whole.
		// Figures in docs/performance.md.
		q = cols + `FROM tickets t JOIN error_groups g ON g.id = t.group_id WHERE t.id IN (SELECT t.id ` + q + order + ` LIMIT ?)` + order
	}
	rows, err := c.query(ctx, likeClause(c.dialect, q), append(args, limit)...)
	if err != nil {
		return nil, fmt.Errorf("store: list tickets: %w", err)
	}
	return collect(rows, scanTicketWithGroup)
}

// ListGroups lists a project's groups, newest first, without those merged
// into another; before is the last group id of the previous page.
func (c *Conn) ListGroups(ctx context.Context, projectID string, f GroupFilter, before string, limit int) ([]Group, error) {
	return c.ListGroupsBy(ctx, projectID, f, OrderNewest, Keyset{ID: before}, limit)
}

// ListGroupsBy lists a project's groups in order o, starting after k,
// without those merged into another.
func (c *Conn) ListGroupsBy(ctx context.Context, projectID string, f GroupFilter, o Order, k Keyset, limit int) ([]Group, error) {
	where, order, kargs, err := keysetClause(o, k, "id", "")
	if err != nil {
		return nil, err
	}
	ss := &searchSQL{dialect: c.dialect, g: "error_groups."}
	sq, sargs := ss.where(f.Query)
	project := `project_id = ?`
	if ss.fts && o != OrderNewest {
		// Sorted by a column no index follows, the full-text look-up
		// drives: the groups it finds are read by rowid, rather than every
		// group of the project through the project's index (which SQLite,
		// without statistics, prefers). Newest first, the project's index
		// is walked in id order and stops at the page's end.
		project = `+project_id = ?`
	}
	q := ` FROM error_groups WHERE ` + project + ` AND merged_into IS NULL` + where
	args := append([]any{projectID}, kargs...)
	for _, w := range []struct{ col, v string }{{"status", f.Status}, {"service", f.Service}} {
		if w.v != "" {
			q += ` AND ` + w.col + ` = ?`
			args = append(args, w.v)
		}
	}
	if f.Environment != "" {
		q += ` AND ` + c.drv.contains("environments") // exactly, as channel filters match
		args = append(args, mustJSON(f.Environment))
	}
	if len(f.IDs) > 0 {
		q += ` AND error_groups.id IN (` + tuples(len(f.IDs), "?") + `)`
		for _, id := range f.IDs {
			args = append(args, id)
		}
	}
	q += sq
	args = append(args, sargs...)
	if o == OrderNewest {
		q = `SELECT ` + groupCols + q + order + ` LIMIT ?`
	} else {
		// Sorted by a column no index follows, every matching group is
		// sorted: the page's ids are chosen on narrow rows, then only those
		// rows are read whole (a sort of whole rows cost most of a search
		// sorted by events; docs/performance.md).
		q = `SELECT ` + groupCols + ` FROM error_groups WHERE id IN (SELECT id` + q + order + ` LIMIT ?)` + order
	}
	rows, err := c.query(ctx, likeClause(c.dialect, q), append(args, limit)...)
	if err != nil {
		return nil, fmt.Errorf("store: list groups: %w", err)
	}
	return collect(rows, scanGroup)
}

// SortValue is a ticket's or group's value under order o, as a Keyset
// carries it.
func SortValue(o Order, g Group) int64 {
	switch o {
	case OrderLastSeen:
		return g.LastSeen.UnixMilli()
	case OrderEventCount:
		return g.EventCount
	case OrderUsers:
		return g.UserCount
	}
	return 0
}
