package store

import (
	"github.com/errata-dev/errata/internal/search"

	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Group statuses.
const (
	GroupUnresolved = "unresolved"
	GroupResolved   = "resolved"
	GroupIgnored    = "ignored"
)

// Group is an error group: the events of one project and service that share
// a fingerprint.
type Group struct {
	ID                 string
	ProjectID          string
	Service            string
	Fingerprint        string
	FingerprintVersion int
	FingerprintRule    string
	Title              string
	ExceptionType      string
	// Culprit is where the error happens: the top in-app frame, or "".
	Culprit         string
	Level           int // highest ingest.Level seen
	Status          string
	FirstSeen       time.Time
	LastSeen        time.Time
	EventCount      int64
	Environments    []string // most recent last, at most 20
	Releases        []string // most recent last, at most 20
	FirstRelease    string
	LastRelease     string
	LastEnvironment string
	SampleMessage   string
	LastTraceID     string
	TicketID        string // "" when none
	ResolvedAt      *time.Time
	UpdatedAt       time.Time
	// MergedInto is the group this one was merged into by hand ("" when
	// none): its events go there, and lists leave it out.
	MergedInto string
	// AssigneeID is the member the group is assigned to ("" when none).
	AssigneeID string
	// IgnoreRule is the JSON condition of an ignored group, with the
	// figures processing keeps to test it ("" when none: tickets.IgnoreRule).
	IgnoreRule string
	// ResolvedIn is the release a resolved group was resolved in ("" when
	// it was resolved outright).
	ResolvedIn string
	// SearchMessage is the sample message free words find (with the title
	// and culprit): processing refreshes it at most once a minute a group,
	// so that the search index is not rewritten with nearly every event as
	// SampleMessage changes. Empty writes SampleMessage.
	SearchMessage string
	// IgnoreUntil is the time of an ignore-until condition (nil when none):
	// DueIgnores finds the groups whose time has come.
	IgnoreUntil *time.Time
	// UserCount is the number of distinct user.id values of the group's
	// events: exact up to 1,000, then an estimate within 2 %. Processing
	// keeps it (SetUserCounts); InsertGroup and UpdateGroup leave it alone.
	UserCount int64
}

// groupCols are the columns a group is read from; groupWriteCols those
// InsertGroup writes.
const groupCols = groupWriteCols + `, user_count`

const groupWriteCols = `id, project_id, service, fingerprint, fingerprint_version, fingerprint_rule, title, exception_type, culprit, level, status,
	first_seen, last_seen, event_count, environments, releases, first_release, last_release, last_environment, sample_message, last_trace_id,
	ticket_id, resolved_at, updated_at, merged_into, assignee_id, ignore_rule, resolved_in, ignore_until, search_message`

// groupRow holds the scan destinations of a group row.
type groupRow struct {
	g          Group
	fs, ls, up int64
	envs, rels string
	ticket     sql.NullString
	resolved   sql.NullInt64
	merged     sql.NullString
	assignee   sql.NullString
	until      sql.NullInt64
}

func (r *groupRow) dest() []any {
	g := &r.g
	return []any{&g.ID, &g.ProjectID, &g.Service, &g.Fingerprint, &g.FingerprintVersion, &g.FingerprintRule, &g.Title, &g.ExceptionType,
		&g.Culprit, &g.Level, &g.Status, &r.fs, &r.ls, &g.EventCount, &r.envs, &r.rels, &g.FirstRelease, &g.LastRelease, &g.LastEnvironment,
		&g.SampleMessage, &g.LastTraceID, &r.ticket, &r.resolved, &r.up, &r.merged, &r.assignee, &g.IgnoreRule, &g.ResolvedIn, &r.until, &g.SearchMessage, &g.UserCount}
}

func (r *groupRow) group() Group {
	g := r.g
	g.FirstSeen, g.LastSeen, g.UpdatedAt = fromMS(r.fs), fromMS(r.ls), fromMS(r.up)
	g.TicketID, g.ResolvedAt, g.MergedInto, g.AssigneeID = r.ticket.String, fromNullMS(r.resolved), r.merged.String, r.assignee.String
	g.IgnoreUntil = fromNullMS(r.until)
	_ = json.Unmarshal([]byte(r.envs), &g.Environments)
	_ = json.Unmarshal([]byte(r.rels), &g.Releases)
	return g
}

func scanGroup(s interface{ Scan(...any) error }) (Group, error) {
	var r groupRow
	if err := s.Scan(r.dest()...); err != nil {
		return Group{}, err
	}
	return r.group(), nil
}

func jsonList(v []string) string {
	if v == nil {
		v = []string{}
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func nullString(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }

// GroupByKey returns the group of a project, service and fingerprint, locked
// until the end of the transaction.
func (c *Conn) GroupByKey(ctx context.Context, projectID, service, fingerprint string) (Group, error) {
	g, err := scanGroup(c.queryRow(ctx, `SELECT `+groupCols+` FROM error_groups WHERE project_id = ? AND service = ? AND fingerprint = ?`+c.drv.rowLock(),
		projectID, service, fingerprint))
	if err != nil {
		return Group{}, fmt.Errorf("store: group by key: %w", translate(err))
	}
	return g, nil
}

// GroupKey names a group by project, service and fingerprint.
type GroupKey struct {
	ProjectID, Service, Fingerprint string
}

// GroupsByKeys returns the existing groups of keys, locked on PostgreSQL
// like GroupByKey, in a few statements instead of one per key.
func (c *Conn) GroupsByKeys(ctx context.Context, keys []GroupKey) (map[GroupKey]Group, error) {
	out := make(map[GroupKey]Group, len(keys))
	// Statements of chunkRows' lengths: SQLite prepares each once, where
	// one statement for a part's few hundred groups, never the same
	// length twice and over maxCachedQuery, was parsed every transaction
	// (1.6 % of the whole server's CPU, inside the writer's transaction).
	for start, n := 0, 0; start < len(keys); start += n {
		n = chunkRows(len(keys) - start)
		part := keys[start : start+n]
		args := make([]any, 0, 3*len(part))
		for _, k := range part {
			args = append(args, k.ProjectID, k.Service, k.Fingerprint)
		}
		rows, err := c.query(ctx, groupsByKeysRead(len(part))+c.drv.rowLock(), args...)
		if err != nil {
			return nil, fmt.Errorf("store: groups by key: %w", err)
		}
		gs, err := collect(rows, scanGroup)
		if err != nil {
			return nil, err
		}
		for _, g := range gs {
			out[GroupKey{g.ProjectID, g.Service, g.Fingerprint}] = g
		}
	}
	return out, nil
}

// groupsByKeysRead is GroupsByKeys' statement for n keys.
func groupsByKeysRead(n int) string {
	return `SELECT ` + groupCols + ` FROM error_groups WHERE (project_id, service, fingerprint) IN (` + tuples(n, "(?, ?, ?)") +
		`) ORDER BY project_id, service, fingerprint`
}

// GroupByID returns one group.
func (c *Conn) GroupByID(ctx context.Context, id string) (Group, error) {
	g, err := scanGroup(c.queryRow(ctx, `SELECT `+groupCols+` FROM error_groups WHERE id = ?`, id))
	if err != nil {
		return Group{}, fmt.Errorf("store: group %s: %w", id, translate(err))
	}
	return g, nil
}

// LockGroup returns one group, locked until the end of the transaction (see
// forUpdate): for changes made on behalf of people.
func (c *Conn) LockGroup(ctx context.Context, id string) (Group, error) {
	g, err := scanGroup(c.queryRow(ctx, `SELECT `+groupCols+` FROM error_groups WHERE id = ?`+c.drv.rowLock(), id))
	if err != nil {
		return Group{}, fmt.Errorf("store: group %s: %w", id, translate(err))
	}
	return g, nil
}

// InsertGroup adds a group; an existing key is ErrConflict.
func (c *Conn) InsertGroup(ctx context.Context, g Group) error {
	_, err := c.exec(ctx, `INSERT INTO error_groups (`+groupWriteCols+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		g.ID, g.ProjectID, g.Service, g.Fingerprint, g.FingerprintVersion, g.FingerprintRule, g.Title, g.ExceptionType, g.Culprit, g.Level, g.Status,
		ms(g.FirstSeen), ms(g.LastSeen), g.EventCount, jsonList(g.Environments), jsonList(g.Releases), g.FirstRelease, g.LastRelease,
		g.LastEnvironment, g.SampleMessage, g.LastTraceID, nullString(g.TicketID), nullMS(g.ResolvedAt), ms(g.UpdatedAt), nullString(g.MergedInto),
		nullString(g.AssigneeID), g.IgnoreRule, g.ResolvedIn, nullMS(g.IgnoreUntil), g.searchMessage())
	if err != nil {
		return fmt.Errorf("store: insert group: %w", err)
	}
	return nil
}

// UpdateGroup writes every mutable field of g.
func (c *Conn) UpdateGroup(ctx context.Context, g Group) error {
	args := groupUpdateArgs(make([]any, 0, len(groupUpdateCols)+1), g)
	if err := c.execOne(ctx, updateGroupQuery, append(args[1:], g.ID)...); err != nil {
		return fmt.Errorf("store: update group %s: %w", g.ID, err)
	}
	return nil
}

// searchMessage is the search_message g is written with.
func (g Group) searchMessage() string {
	if g.SearchMessage == "" {
		return g.SampleMessage
	}
	return g.SearchMessage
}

// GroupFilter narrows a group list.
type GroupFilter struct {
	Status, Service, Environment string
	// Query holds the terms of the list's query parameter (package search).
	Query search.Query
	// IDs, when set, keeps only these groups.
	IDs []string
}

func mustJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// likeEscape escapes LIKE wildcards; likeClause adds the ESCAPE clause.
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

func likeClause(_ Dialect, q string) string {
	return strings.ReplaceAll(q, "LIKE ?", `LIKE ? ESCAPE '\'`)
}

// GroupEvent is a stored sample event of a group.
type GroupEvent struct {
	ID          int64
	GroupID     string
	First       bool
	ReceivedAt  time.Time
	Timestamp   time.Time
	Level       int
	Message     string
	StackTrace  string
	Environment string
	Release     string
	TraceID     string
	SpanID      string
	Attributes  string // a JSON object, or "{}"
	// Symbolication is what source map symbolication recorded (JSON,
	// symbolicate.Result), "" when it did nothing.
	Symbolication string
	// Detail is the event's breadcrumbs and source context (JSON,
	// ingest.Detail), "" when it has none.
	Detail string
}

// InsertGroupEvent stores a sample event.
func (c *Conn) InsertGroupEvent(ctx context.Context, e GroupEvent) error {
	if _, err := c.exec(ctx, insertGroupEvents+groupEventRow, groupEventArgs(nil, e)...); err != nil {
		return fmt.Errorf("store: insert group event: %w", err)
	}
	return nil
}

// PruneGroupEvents keeps a group's first event and its latest keep others.
func (c *Conn) PruneGroupEvents(ctx context.Context, groupID string, keep int) error {
	_, err := c.exec(ctx, `DELETE FROM group_events WHERE group_id = ? AND first = 0 AND id NOT IN
		(SELECT id FROM group_events WHERE group_id = ? AND first = 0 ORDER BY id DESC LIMIT ?)`, groupID, groupID, keep)
	if err != nil {
		return fmt.Errorf("store: prune group events: %w", err)
	}
	return nil
}

// SetGroupSearchMessage writes a group's search message alone (the
// free-word index follows it).
func (c *Conn) SetGroupSearchMessage(ctx context.Context, groupID, msg string) error {
	if _, err := c.exec(ctx, `UPDATE error_groups SET search_message = ? WHERE id = ?`, msg, groupID); err != nil {
		return fmt.Errorf("store: search message: %w", err)
	}
	return nil
}

// GroupSampleMessages lists the messages of a group's stored samples other
// than its first, newest first (for its search message).
func (c *Conn) GroupSampleMessages(ctx context.Context, groupID string) ([]string, error) {
	rows, err := c.query(ctx, `SELECT message FROM group_events WHERE group_id = ? AND first = 0 ORDER BY id DESC`, groupID)
	if err != nil {
		return nil, fmt.Errorf("store: sample messages: %w", err)
	}
	return collect(rows, func(s interface{ Scan(...any) error }) (string, error) {
		var m string
		return m, s.Scan(&m)
	})
}

// ListGroupEvents lists a group's sample events, newest first; before is an
// event id (0 for the first page).
func (c *Conn) ListGroupEvents(ctx context.Context, groupID string, before int64, limit int) ([]GroupEvent, error) {
	return c.SearchGroupEvents(ctx, groupID, search.Query{}, before, limit)
}

// SearchGroupEvents lists a group's sample events that match q, newest
// first; before is an event id (0 for the first page).
func (c *Conn) SearchGroupEvents(ctx context.Context, groupID string, q search.Query, before int64, limit int) ([]GroupEvent, error) {
	where, args := (&searchSQL{dialect: c.dialect, e: "e."}).where(q)
	args = append([]any{groupID, before, before}, append(args, limit)...)
	rows, err := c.query(ctx, likeClause(c.dialect, `SELECT `+eventCols+` FROM group_events e WHERE e.group_id = ? AND (? = 0 OR e.id < ?)`+where+
		` ORDER BY e.id DESC LIMIT ?`), args...)
	if err != nil {
		return nil, fmt.Errorf("store: list group events: %w", err)
	}
	return collect(rows, scanGroupEvent)
}

// eventCols are the columns of a sample event, of group_events aliased e.
const eventCols = `e.id, e.group_id, e.first, e.received_at, e.timestamp, e.level, e.message, e.stack_trace, e.environment, e.release, e.trace_id, e.span_id, e.attributes, e.symbolication, e.detail`

func scanGroupEvent(s interface{ Scan(...any) error }) (GroupEvent, error) {
	var e GroupEvent
	var first int
	var r, ts int64
	err := s.Scan(&e.ID, &e.GroupID, &first, &r, &ts, &e.Level, &e.Message, &e.StackTrace, &e.Environment, &e.Release, &e.TraceID, &e.SpanID, &e.Attributes, &e.Symbolication, &e.Detail)
	e.First, e.ReceivedAt, e.Timestamp = first == 1, fromMS(r), fromMS(ts)
	return e, err
}

// AddGroupCount adds n events at receipt time at to a group's minute and
// hour counts, and to its project's hour count.
func (c *Conn) AddGroupCount(ctx context.Context, groupID string, at time.Time, n int) error {
	hour, err := c.addGroupCount(ctx, groupID, at, n)
	if err != nil {
		return err
	}
	return c.addProjectHour(ctx, groupID, hour, n)
}

// addGroupCount adds n events at at to a group's minute and hour counts and
// returns the hour (Unix ms).
func (c *Conn) addGroupCount(ctx context.Context, groupID string, at time.Time, n int) (int64, error) {
	minute := at.Truncate(time.Minute).UnixMilli()
	hour := at.Truncate(time.Hour).UnixMilli()
	if _, err := c.exec(ctx, `INSERT INTO group_minutes (group_id, minute, count) VALUES (?, ?, ?)
		ON CONFLICT (group_id, minute) DO UPDATE SET count = group_minutes.count + excluded.count`, groupID, minute, n); err != nil {
		return 0, fmt.Errorf("store: group minutes: %w", err)
	}
	if _, err := c.exec(ctx, `INSERT INTO group_hours (group_id, hour, count) VALUES (?, ?, ?)
		ON CONFLICT (group_id, hour) DO UPDATE SET count = group_hours.count + excluded.count`, groupID, hour, n); err != nil {
		return 0, fmt.Errorf("store: group hours: %w", err)
	}
	return hour, nil
}

// GroupCountBetween sums a group's minute counts in [from, to).
func (c *Conn) GroupCountBetween(ctx context.Context, groupID string, from, to time.Time) (int64, error) {
	var n int64
	err := c.queryRow(ctx, `SELECT COALESCE(SUM(count), 0) FROM group_minutes WHERE group_id = ? AND minute >= ? AND minute < ?`,
		groupID, from.UnixMilli(), to.UnixMilli()).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: group count: %w", translate(err))
	}
	return n, nil
}

// GroupCount is n events of a group in the minute starting at Minute.
type GroupCount struct {
	GroupID string
	// ProjectID is the group's project; when set, the batch's project
	// hours are summed per project and hour without looking the group up.
	ProjectID string
	Minute    time.Time
	N         int
}

// AddGroupCounts adds many minute counts (and their group and project
// hours) at once. On PostgreSQL the group counts are two multi-row
// statements instead of two round trips a count; SQLite, with no round
// trips, runs its cached one-row statements. Project hours are summed per
// project and hour first (addProjectHours).
func (c *Conn) AddGroupCounts(ctx context.Context, counts []GroupCount) error {
	if !c.drv.roundTrips() || len(counts) < 2 {
		return c.addGroupCountsEach(ctx, counts)
	}
	type key struct {
		id string
		at int64
	}
	minutes, hours := map[key]int{}, map[key]int{}
	var mkeys, hkeys []key
	for _, gc := range counts {
		mk := key{gc.GroupID, gc.Minute.Truncate(time.Minute).UnixMilli()}
		hk := key{gc.GroupID, gc.Minute.Truncate(time.Hour).UnixMilli()}
		if _, ok := minutes[mk]; !ok {
			mkeys = append(mkeys, mk)
		}
		if _, ok := hours[hk]; !ok {
			hkeys = append(hkeys, hk)
		}
		minutes[mk] += gc.N
		hours[hk] += gc.N
	}
	for _, t := range []struct {
		table, col string
		keys       []key
		n          map[key]int
	}{{"group_minutes", "minute", mkeys, minutes}, {"group_hours", "hour", hkeys, hours}} {
		args := make([]any, 0, 3*len(t.keys))
		for _, k := range t.keys {
			args = append(args, k.id, k.at, t.n[k])
		}
		q := `INSERT INTO ` + t.table + ` (group_id, ` + t.col + `, count) VALUES ` + tuples(len(t.keys), "(?, ?, ?)") +
			` ON CONFLICT (group_id, ` + t.col + `) DO UPDATE SET count = ` + t.table + `.count + excluded.count`
		if _, err := c.exec(ctx, q, args...); err != nil {
			return fmt.Errorf("store: %s: %w", t.table, err)
		}
	}
	return c.addProjectHours(ctx, counts)
}

// addGroupCountsEach is AddGroupCounts with one-row statements for the
// group counts (SQLite, or a single count).
func (c *Conn) addGroupCountsEach(ctx context.Context, counts []GroupCount) error {
	for _, gc := range counts {
		if _, err := c.addGroupCount(ctx, gc.GroupID, gc.Minute, gc.N); err != nil {
			return err
		}
	}
	return c.addProjectHours(ctx, counts)
}
