package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/errata-dev/errata/internal/search"

	"github.com/errata-dev/errata/internal/id"
)

// The kinds of id event_refs holds.
const (
	RefTrace = "trace" // an event's trace_id
	RefEvent = "event" // the id a Sentry SDK was answered (sentry.event_id)
)

// EventRef says that an error event of a group carried an id.
type EventRef struct {
	Kind, Ref, ProjectID, GroupID string
	LastSeen                      time.Time
}

// AddEventRefs records a batch's ids (duplicates allowed) in multi-row
// upserts, in a fixed order.
func (c *Conn) AddEventRefs(ctx context.Context, refs []EventRef) error {
	type key struct{ kind, ref, project, group string }
	latest := make(map[key]int64, len(refs))
	keys := make([]key, 0, len(refs))
	for _, r := range refs {
		k := key{r.Kind, r.Ref, r.ProjectID, r.GroupID}
		if at, ok := latest[k]; !ok {
			keys = append(keys, k)
		} else if at >= ms(r.LastSeen) {
			continue
		}
		latest[k] = ms(r.LastSeen)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.kind != b.kind {
			return a.kind < b.kind
		}
		if a.ref != b.ref {
			return a.ref < b.ref
		}
		if a.project != b.project {
			return a.project < b.project
		}
		return a.group < b.group
	})
	for start, n := 0, 0; start < len(keys); start += n {
		n = chunkRows(len(keys) - start)
		part := keys[start : start+n]
		args := make([]any, 0, 5*len(part))
		for _, k := range part {
			args = append(args, k.kind, k.ref, k.project, k.group, latest[k])
		}
		if _, err := c.exec(ctx, refsUpsert(len(part)), args...); err != nil {
			return fmt.Errorf("store: event refs: %w", err)
		}
	}
	return nil
}

// refsUpsert is AddEventRefs' statement for n rows.
func refsUpsert(n int) string {
	return `INSERT INTO event_refs (kind, ref, project_id, group_id, last_seen) VALUES ` + tuples(n, "(?, ?, ?, ?, ?)") +
		` ON CONFLICT (kind, ref, project_id, group_id) DO UPDATE SET last_seen = excluded.last_seen`
}

// LookupRefs returns the ids of the groups of the organization's projects
// whose events carried ref (of kind), the latest first, at most limit.
func (c *Conn) LookupRefs(ctx context.Context, orgID, kind, ref string, limit int) ([]string, error) {
	refs := refForms(kind, ref)
	args := append(append([]any{kind}, refs...), orgID, limit)
	rows, err := c.query(ctx, `SELECT r.group_id FROM event_refs r JOIN projects p ON p.id = r.project_id
		WHERE r.kind = ? AND r.ref IN (`+tuples(len(refs), "?")+`) AND p.organization_id = ? ORDER BY r.last_seen DESC, r.group_id DESC LIMIT ?`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: lookup: %w", err)
	}
	ids, err := collect(rows, scanOne[string])
	if err != nil || len(refs) == 1 {
		return ids, err
	}
	seen := map[string]bool{} // a group that carried both forms
	out := ids[:0]
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out, nil
}

// refForms is the forms of ref looked for: a trace id's (search.TraceIDs),
// as query arguments.
func refForms(kind, ref string) []any {
	if kind == RefTrace {
		return anys(search.TraceIDs(ref))
	}
	return []any{ref}
}

// GroupsByIDs returns the groups with these ids that exist, in the order
// of ids.
func (c *Conn) GroupsByIDs(ctx context.Context, ids []string) ([]Group, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	rows, err := c.query(ctx, `SELECT `+groupCols+` FROM error_groups WHERE id IN (`+tuples(len(ids), "?")+`)`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: groups: %w", err)
	}
	gs, err := collect(rows, scanGroup)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]Group, len(gs))
	for _, g := range gs {
		byID[g.ID] = g
	}
	out := make([]Group, 0, len(gs))
	for _, id := range ids {
		if g, ok := byID[id]; ok {
			out = append(out, g)
		}
	}
	return out, nil
}

// SampleGroup returns the group of the stored sample event with this id if
// the group belongs to a project of the organization; ErrNotFound
// otherwise.
func (c *Conn) SampleGroup(ctx context.Context, orgID string, eventID int64) (string, error) {
	var groupID string
	err := c.queryRow(ctx, `SELECT e.group_id FROM group_events e JOIN error_groups g ON g.id = e.group_id JOIN projects p ON p.id = g.project_id
		WHERE e.id = ? AND p.organization_id = ?`, eventID, orgID).Scan(&groupID)
	if err != nil {
		return "", fmt.Errorf("store: sample %d: %w", eventID, translate(err))
	}
	return groupID, nil
}

// SamplesWithRef lists the stored sample events of the groups that carry
// the id: the trace id (RefTrace), the SDK's event id (RefEvent, in the
// attribute sentry.event_id) or, for RefEvent, the sample's own id.
func (c *Conn) SamplesWithRef(ctx context.Context, groupIDs []string, kind, ref string, limit int) ([]GroupEvent, error) {
	if len(groupIDs) == 0 {
		return nil, nil
	}
	args := make([]any, 0, len(groupIDs)+3)
	for _, id := range groupIDs {
		args = append(args, id)
	}
	refs := refForms(kind, ref)
	cond := `e.trace_id IN (` + tuples(len(refs), "?") + `)`
	args = append(args, refs...)
	if kind == RefEvent {
		cond = `(e.attributes LIKE ? OR CAST(e.id AS TEXT) = ?)`
		num := "" // a stored event's own id, evt_<n> or n: its number
		if n, ok := id.ParseEvent(ref); ok {
			num = strconv.FormatInt(n, 10)
		}
		args = append(args[:len(groupIDs)], "%"+likeEscape(`"sentry.event_id":`+mustJSON(ref))+"%", num)
	}
	rows, err := c.query(ctx, likeClause(c.dialect, `SELECT `+eventCols+` FROM group_events e WHERE e.group_id IN (`+tuples(len(groupIDs), "?")+`) AND `+cond+
		` ORDER BY e.id DESC LIMIT ?`), append(args, limit)...)
	if err != nil {
		return nil, fmt.Errorf("store: samples: %w", err)
	}
	return collect(rows, scanGroupEvent)
}

// GroupEventByID returns one stored sample event.
func (c *Conn) GroupEventByID(ctx context.Context, id int64) (GroupEvent, error) {
	e, err := scanGroupEvent(c.queryRow(ctx, `SELECT `+eventCols+` FROM group_events e WHERE e.id = ?`, id))
	if err != nil {
		return GroupEvent{}, fmt.Errorf("store: event %d: %w", id, translate(err))
	}
	return e, nil
}

// AdjacentEvents returns the ids of the stored sample events of the group
// just before and just after id (0 when none).
func (c *Conn) AdjacentEvents(ctx context.Context, groupID string, id int64) (prev, next int64, err error) {
	err = c.queryRow(ctx, `SELECT COALESCE((SELECT MAX(id) FROM group_events WHERE group_id = ? AND id < ?), 0),
		COALESCE((SELECT MIN(id) FROM group_events WHERE group_id = ? AND id > ?), 0)`, groupID, id, groupID, id).Scan(&prev, &next)
	if err != nil {
		return 0, 0, fmt.Errorf("store: events beside %d: %w", id, err)
	}
	return prev, next, nil
}

// Lookup finds the groups of the organization's projects whose error events
// carried ref (of kind), the latest first, and their stored sample events
// that carry it, at most limit of each (CONTRACT 8). For RefEvent, ref may
// also be a stored event's number (SDKEventID).
func (c *Conn) Lookup(ctx context.Context, orgID, kind, ref string, limit int) ([]Group, []GroupEvent, error) {
	ids, err := c.LookupRefs(ctx, orgID, kind, ref, limit)
	if err != nil {
		return nil, nil, err
	}
	if n, ok := id.ParseEvent(ref); kind == RefEvent && ok {
		gid, err := c.SampleGroup(ctx, orgID, n)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return nil, nil, err
		}
		if gid != "" && !slices.Contains(ids, gid) {
			ids = append(ids, gid)
		}
	}
	groups, err := c.GroupsByIDs(ctx, ids)
	if err != nil {
		return nil, nil, err
	}
	events, err := c.SamplesWithRef(ctx, ids, kind, ref, limit)
	if err != nil {
		return nil, nil, err
	}
	return groups, events, nil
}

// SDKEventID normalises an event id as the Sentry mapping stores it: 32
// lower-case hex digits (a UUID's dashes dropped); a stored event's id
// (evt_<n>, or its bare number) is kept; "" when it is neither.
func SDKEventID(ref string) string {
	if _, ok := id.ParseEvent(ref); ok && len(ref) < 32 {
		return ref
	}
	hex := strings.ToLower(ref)
	if len(hex) == 36 {
		hex = strings.ReplaceAll(hex, "-", "")
	}
	if len(hex) != 32 {
		return ""
	}
	for _, c := range hex {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return ""
		}
	}
	return hex
}
