package store

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// groupUpdateCols are the columns UpdateGroup and UpdateGroups write, with
// the type each takes in UpdateGroups' VALUES list on PostgreSQL (which
// types a parameter there by its column in the first row).
var groupUpdateCols = [...]struct{ name, pgType string }{
	{"id", "text"}, {"title", "text"}, {"exception_type", "text"}, {"culprit", "text"}, {"level", "bigint"},
	{"status", "text"}, {"first_seen", "bigint"}, {"last_seen", "bigint"}, {"event_count", "bigint"},
	{"environments", "text"}, {"releases", "text"}, {"first_release", "text"}, {"last_release", "text"},
	{"last_environment", "text"}, {"sample_message", "text"}, {"last_trace_id", "text"}, {"ticket_id", "text"},
	{"resolved_at", "bigint"}, {"updated_at", "bigint"}, {"merged_into", "text"}, {"assignee_id", "text"},
	{"ignore_rule", "text"}, {"resolved_in", "text"}, {"ignore_until", "bigint"}, {"search_message", "text"},
}

// updateGroupQuery is UpdateGroup's statement: groupUpdateCols but the id
// set, then the id.
var updateGroupQuery = func() string {
	set := make([]string, 0, len(groupUpdateCols)-1)
	for _, col := range groupUpdateCols[1:] {
		set = append(set, col.name+" = ?")
	}
	return `UPDATE error_groups SET ` + strings.Join(set, ", ") + ` WHERE id = ?`
}()

// groupUpdateArgs appends g's values in groupUpdateCols' order.
func groupUpdateArgs(args []any, g Group) []any {
	return append(args, g.ID, g.Title, g.ExceptionType, g.Culprit, g.Level, g.Status, ms(g.FirstSeen), ms(g.LastSeen),
		g.EventCount, jsonList(g.Environments), jsonList(g.Releases), g.FirstRelease, g.LastRelease, g.LastEnvironment,
		g.SampleMessage, g.LastTraceID, nullString(g.TicketID), nullMS(g.ResolvedAt), ms(g.UpdatedAt),
		nullString(g.MergedInto), nullString(g.AssigneeID), g.IgnoreRule, g.ResolvedIn, nullMS(g.IgnoreUntil), g.searchMessage())
}

// UpdateGroups writes many groups as UpdateGroup writes one, each by its
// id, each id once; every one must exist (ErrNotFound otherwise).
// Processing writes a part's groups with it once it has applied them all.
// On PostgreSQL that is one statement for up to facetRows groups instead
// of a round trip a group, which were about a third of processing's time
// there (docs/decisions.md, "A part's groups written together"); SQLite,
// with no round trips, runs its cached one-row statement for each.
func (c *Conn) UpdateGroups(ctx context.Context, gs []Group) error {
	if !c.drv.roundTrips() || len(gs) < 2 {
		for _, g := range gs {
			if err := c.UpdateGroup(ctx, g); err != nil {
				return err
			}
		}
		return nil
	}
	args := make([]any, 0, len(groupUpdateCols)*min(len(gs), facetRows))
	for start, n := 0, 0; start < len(gs); start += n {
		n = chunkRows(len(gs) - start)
		part := gs[start : start+n]
		args = args[:0]
		for _, g := range part {
			args = groupUpdateArgs(args, g)
		}
		res, err := c.exec(ctx, updateGroupsQuery(len(part)), args...)
		if err != nil {
			return fmt.Errorf("store: update %d groups: %w", len(part), err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return fmt.Errorf("store: update %d groups: %w", len(part), err)
		} else if n != int64(len(part)) {
			return fmt.Errorf("store: update %d groups: %d found: %w", len(part), n, ErrNotFound)
		}
	}
	return nil
}

// updateGroupsQuery is PostgreSQL's UPDATE of rows groups from a VALUES
// list, its first row's parameters cast to their columns' types.
func updateGroupsQuery(rows int) string {
	var set, names, first, rest strings.Builder
	for i, col := range groupUpdateCols {
		if i > 0 {
			names.WriteString(", ")
			first.WriteString(", ")
			rest.WriteString(", ")
		}
		if i > 1 {
			set.WriteString(", ")
		}
		if i > 0 {
			fmt.Fprintf(&set, "%s = v.%s", col.name, col.name)
		}
		names.WriteString(col.name)
		fmt.Fprintf(&first, "?::%s", col.pgType)
		rest.WriteString("?")
	}
	values := "(" + first.String() + ")"
	if rows > 1 {
		values += ", " + tuples(rows-1, "("+rest.String()+")")
	}
	return `UPDATE error_groups AS g SET ` + set.String() + ` FROM (VALUES ` + values + `) AS v (` + names.String() + `) WHERE g.id = v.id`
}

// insertGroupEvents begins an INSERT of group events, rows of
// groupEventRow in groupEventArgs' order.
const insertGroupEvents = `INSERT INTO group_events (group_id, first, received_at, timestamp, level, message, stack_trace, environment,
	release, trace_id, span_id, attributes, symbolication, detail) VALUES `

const groupEventRow = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"

// groupEventArgs appends e's values for a row of insertGroupEvents.
func groupEventArgs(args []any, e GroupEvent) []any {
	first := 0
	if e.First {
		first = 1
	}
	return append(args, e.GroupID, first, ms(e.ReceivedAt), ms(e.Timestamp), e.Level, e.Message, e.StackTrace, e.Environment,
		e.Release, e.TraceID, e.SpanID, e.Attributes, e.Symbolication, e.Detail)
}

// InsertGroupEvents stores many sample events as InsertGroupEvent stores
// one, in their order (their ids, and so each group's order of samples,
// follow it). On PostgreSQL that is a statement for up to facetRows of
// them instead of a round trip each; SQLite runs its cached one-row
// statement for each.
func (c *Conn) InsertGroupEvents(ctx context.Context, es []GroupEvent) error {
	if !c.drv.roundTrips() || len(es) < 2 {
		for _, e := range es {
			if err := c.InsertGroupEvent(ctx, e); err != nil {
				return err
			}
		}
		return nil
	}
	var args []any
	for start, n := 0, 0; start < len(es); start += n {
		n = chunkRows(len(es) - start)
		part := es[start : start+n]
		args = args[:0]
		for _, e := range part {
			args = groupEventArgs(args, e)
		}
		if _, err := c.exec(ctx, insertGroupEvents+tuples(len(part), groupEventRow), args...); err != nil {
			return fmt.Errorf("store: insert %d group events: %w", len(part), err)
		}
	}
	return nil
}

// CountWindow is a group and a span of minutes, [From, To).
type CountWindow struct {
	GroupID  string
	From, To time.Time
}

// GroupCountsBetween is GroupCountBetween for many windows at once, in
// their order. On PostgreSQL that is a statement for up to facetRows of
// them instead of a round trip each (a part's spike checks); SQLite runs
// its cached one-window statement for each.
func (c *Conn) GroupCountsBetween(ctx context.Context, ws []CountWindow) ([]int64, error) {
	out := make([]int64, len(ws))
	if !c.drv.roundTrips() || len(ws) < 2 {
		for i, w := range ws {
			n, err := c.GroupCountBetween(ctx, w.GroupID, w.From, w.To)
			if err != nil {
				return nil, err
			}
			out[i] = n
		}
		return out, nil
	}
	var args []any
	for start, n := 0, 0; start < len(ws); start += n {
		n = chunkRows(len(ws) - start)
		part := ws[start : start+n]
		args = args[:0]
		for i, w := range part {
			args = append(args, i, w.GroupID, w.From.UnixMilli(), w.To.UnixMilli())
		}
		rows, err := c.query(ctx, `SELECT v.i, COALESCE(SUM(m.count), 0) FROM (VALUES (?::bigint, ?::text, ?::bigint, ?::bigint)`+
			strings.Repeat(", (?, ?, ?, ?)", len(part)-1)+`) AS v (i, group_id, from_ms, to_ms)
			LEFT JOIN group_minutes m ON m.group_id = v.group_id AND m.minute >= v.from_ms AND m.minute < v.to_ms GROUP BY v.i`, args...)
		if err != nil {
			return nil, fmt.Errorf("store: group counts: %w", err)
		}
		sums, err := collect(rows, func(s interface{ Scan(...any) error }) ([2]int64, error) {
			var r [2]int64
			return r, s.Scan(&r[0], &r[1])
		})
		if err != nil {
			return nil, fmt.Errorf("store: group counts: %w", err)
		}
		for _, r := range sums {
			out[start+int(r[0])] = r[1]
		}
	}
	return out, nil
}

// GroupsSampleMessages is GroupSampleMessages for many groups at once, by
// group id. On PostgreSQL that is a statement for up to facetRows groups
// instead of a round trip each (a part's quiet groups refreshing their
// search messages); SQLite runs its cached one-group statement for each.
func (c *Conn) GroupsSampleMessages(ctx context.Context, groupIDs []string) (map[string][]string, error) {
	out := make(map[string][]string, len(groupIDs))
	if !c.drv.roundTrips() || len(groupIDs) < 2 {
		for _, id := range groupIDs {
			ms, err := c.GroupSampleMessages(ctx, id)
			if err != nil {
				return nil, err
			}
			out[id] = ms
		}
		return out, nil
	}
	for start, n := 0, 0; start < len(groupIDs); start += n {
		n = chunkRows(len(groupIDs) - start)
		part := groupIDs[start : start+n]
		args := make([]any, len(part))
		for i, id := range part {
			args[i] = id
		}
		rows, err := c.query(ctx, `SELECT group_id, message FROM group_events WHERE group_id IN (`+tuples(len(part), "?")+
			`) AND first = 0 ORDER BY group_id, id DESC`, args...)
		if err != nil {
			return nil, fmt.Errorf("store: sample messages: %w", err)
		}
		msgs, err := collect(rows, func(s interface{ Scan(...any) error }) ([2]string, error) {
			var r [2]string
			return r, s.Scan(&r[0], &r[1])
		})
		if err != nil {
			return nil, fmt.Errorf("store: sample messages: %w", err)
		}
		for _, m := range msgs {
			out[m[0]] = append(out[m[0]], m[1])
		}
	}
	return out, nil
}
