package store

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Retention says how long derived data is kept.
type Retention struct {
	// Minutes and Hours keep a group's per-minute and per-hour counts.
	Minutes, Hours time.Duration
	// Records keeps resolved tickets, INFO summaries, digests and finished
	// deliveries with their attempts (ERRATA_RETENTION_DAYS).
	Records time.Duration
}

// DefaultRetention keeps minute counts 14 days, hour counts a year, and
// tickets and summaries 90 days.
var DefaultRetention = Retention{Minutes: 14 * 24 * time.Hour, Hours: 365 * 24 * time.Hour, Records: 90 * 24 * time.Hour}

// Pruned counts what Prune deleted.
type Pruned struct {
	Minutes, Hours, Tickets, Summaries, Digests, Deliveries, Releases int64
	// Artifacts counts uploaded files (of releases and without one), Refs
	// the trace and event ids of the look-up.
	Artifacts, Refs int64
	// Audit counts audit log entries older than AuditKept.
	Audit int64
}

// ChunksKept is how long uploaded chunks wait for the assembly that uses
// them (sentry-cli assembles within minutes).
const ChunksKept = 24 * time.Hour

// pruneChunk is the most rows one statement of Prune deletes: on the
// writer outside a transaction each chunk commits on its own, so that a
// first prune after an upgrade, or after retention was shortened, holds
// SQLite's writer (or PostgreSQL's row locks) a moment at a time, not for
// the whole backlog while ingestion's commits wait (issue 30).
const pruneChunk = 1000

// pruneStep is one statement of Prune: rows of table matching where, each
// named by key (SQLite's rowid or PostgreSQL's ctid when empty); set, when
// given, updates them instead of deleting them.
type pruneStep struct {
	n          *int64
	table, key string
	set, where string
	args       []any
}

// releaseExpired is the condition of a release past retention: made, last
// named by an error event, last given a file and last deployed before the
// cut-off (four times as an argument): a map uploaded today for an old
// release, or a rollback deployed to it, is its last change.
const releaseExpired = `created_at < ? AND (last_seen IS NULL OR last_seen < ?)
	AND NOT EXISTS (SELECT 1 FROM artifacts a WHERE a.release_id = releases.id AND a.created_at >= ?)
	AND NOT EXISTS (SELECT 1 FROM deploys d WHERE d.release_id = releases.id AND d.finished_at >= ?)`

// Prune deletes what Retention no longer keeps, as of now, in chunks of
// pruneChunk rows. Open tickets stay whatever their age: someone still has
// to act on them.
func (c *Conn) Prune(ctx context.Context, r Retention, now time.Time) (Pruned, error) {
	var p Pruned
	records := ms(now.Add(-r.Records))
	steps := []pruneStep{
		{n: &p.Minutes, table: "group_minutes", where: `minute < ?`, args: []any{ms(now.Add(-r.Minutes))}},
		{n: &p.Hours, table: "group_hours", where: `hour < ?`, args: []any{ms(now.Add(-r.Hours))}},
		{table: "project_hours", where: `hour < ?`, args: []any{ms(now.Add(-r.Hours))}},
		{table: "project_values", where: `last_seen < ?`, args: []any{ms(now.Add(-ValuesKept))}},
		// WITHOUT ROWID on SQLite: named by its primary key.
		{n: &p.Refs, table: "event_refs", key: "(kind, ref, project_id, group_id)", where: `last_seen < ?`, args: []any{records}},
		{table: "error_groups", key: "id", set: `ticket_id = NULL`,
			where: `ticket_id IN (SELECT id FROM tickets WHERE status = 'resolved' AND resolved_at < ?)`, args: []any{records}},
		{n: &p.Tickets, table: "tickets", where: `status = 'resolved' AND resolved_at < ?`, args: []any{records}},
		{n: &p.Summaries, table: "info_summaries", where: `window_end < ?`, args: []any{records}},
		{n: &p.Digests, table: "digests", where: `created_at < ?`, args: []any{records}},
		// Pending deliveries stay whatever their age: they are still owed.
		{n: &p.Deliveries, table: "deliveries", where: `status <> 'pending' AND updated_at < ?`, args: []any{records}},
		{n: &p.Audit, table: "audit_log", where: `created_at < ?`, args: []any{ms(now.Add(-AuditKept))}},
		// Uses older than every quota's window count for nothing.
		{table: "quota_uses", where: `at < ?`, args: []any{ms(now.Add(-QuotaKeep))}},
		// Releases (with their deploys and uploaded files, by cascade) whose
		// creation and latest event are past retention, except that a
		// release a group was resolved in keeps its row (its first_seen
		// orders "resolved in a release") but not its files; files uploaded
		// without a release by their own age; chunks no assembly used.
		{n: &p.Artifacts, table: "artifacts", where: `release_id IN (SELECT id FROM releases WHERE ` + releaseExpired + `)
			OR release_id IS NULL AND created_at < ?`, args: []any{records, records, records, records, records}},
		{n: &p.Releases, table: "releases", where: releaseExpired + ` AND NOT EXISTS (SELECT 1 FROM error_groups g
			WHERE g.project_id = releases.project_id AND g.resolved_in = releases.version)`, args: []any{records, records, records, records}},
		{table: "artifact_bundles", where: `created_at < ?`, args: []any{records}},
		{table: "upload_chunks", where: `created_at < ?`, args: []any{ms(now.Add(-ChunksKept))}},
	}
	for _, s := range steps {
		n, err := c.pruneRows(ctx, s)
		if err != nil {
			return p, fmt.Errorf("store: prune %s: %w", s.table, err)
		}
		if s.n != nil {
			*s.n = n
		}
	}
	return p, nil
}

// pruneRows runs s chunk by chunk until a chunk finds fewer than
// pruneChunk rows, and returns how many rows it changed.
func (c *Conn) pruneRows(ctx context.Context, s pruneStep) (int64, error) {
	key := s.key
	if key == "" {
		key = c.drv.rowAddress()
	}
	q := `DELETE FROM ` + s.table
	if s.set != "" {
		q = `UPDATE ` + s.table + ` SET ` + s.set
	}
	q += ` WHERE ` + key + ` IN (SELECT ` + strings.Trim(key, "()") + ` FROM ` + s.table + ` WHERE ` + s.where + ` LIMIT ` + strconv.Itoa(pruneChunk) + `)`
	var total int64
	for {
		res, err := c.exec(ctx, q, s.args...)
		if err != nil {
			return total, err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return total, err
		}
		total += n
		if n < pruneChunk {
			return total, nil
		}
	}
}
