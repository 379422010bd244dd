package store

import (
	"context"
	"fmt"
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
	// Audit counts audit log entries older than AuditKept.
	Audit int64
}

// ChunksKept is how long uploaded chunks wait for the assembly that uses
// them (sentry-cli assembles within minutes).
const ChunksKept = 24 * time.Hour

// releaseExpired is the condition of a release past retention: made, and
// last named by an error event, before the cut-off (twice as an argument).
const releaseExpired = `created_at < ? AND (last_seen IS NULL OR last_seen < ?)`

// Prune deletes what Retention no longer keeps, as of now. Open tickets
// stay whatever their age: someone still has to act on them.
func (c *Conn) Prune(ctx context.Context, r Retention, now time.Time) (Pruned, error) {
	var p Pruned
	steps := []struct {
		n    *int64
		q    string
		args []any
	}{
		{&p.Minutes, `DELETE FROM group_minutes WHERE minute < ?`, []any{ms(now.Add(-r.Minutes))}},
		{&p.Hours, `DELETE FROM group_hours WHERE hour < ?`, []any{ms(now.Add(-r.Hours))}},
		{nil, `DELETE FROM project_hours WHERE hour < ?`, []any{ms(now.Add(-r.Hours))}},
		{nil, `DELETE FROM project_values WHERE last_seen < ?`, []any{ms(now.Add(-ValuesKept))}},
		{nil, `DELETE FROM event_refs WHERE last_seen < ?`, []any{ms(now.Add(-r.Records))}},
		{nil, `UPDATE error_groups SET ticket_id = NULL WHERE ticket_id IN (SELECT id FROM tickets WHERE status = 'resolved' AND resolved_at < ?)`, []any{ms(now.Add(-r.Records))}},
		{&p.Tickets, `DELETE FROM tickets WHERE status = 'resolved' AND resolved_at < ?`, []any{ms(now.Add(-r.Records))}},
		{&p.Summaries, `DELETE FROM info_summaries WHERE window_end < ?`, []any{ms(now.Add(-r.Records))}},
		{&p.Digests, `DELETE FROM digests WHERE created_at < ?`, []any{ms(now.Add(-r.Records))}},
		// Pending deliveries stay whatever their age: they are still owed.
		{&p.Deliveries, `DELETE FROM deliveries WHERE status <> 'pending' AND updated_at < ?`, []any{ms(now.Add(-r.Records))}},
		{&p.Audit, `DELETE FROM audit_log WHERE created_at < ?`, []any{ms(now.Add(-AuditKept))}},
		// Uses older than every quota's window count for nothing.
		{nil, `DELETE FROM quota_uses WHERE at < ?`, []any{ms(now.Add(-QuotaKeep))}},
		// Releases (with their deploys and uploaded files, by cascade) whose
		// creation and latest event are past retention, except that a
		// release a group was resolved in keeps its row (its first_seen
		// orders "resolved in a release") but not its files; files uploaded
		// without a release by their own age; chunks no assembly used.
		{nil, `DELETE FROM artifacts WHERE release_id IN (SELECT id FROM releases WHERE ` + releaseExpired + `)`, []any{ms(now.Add(-r.Records)), ms(now.Add(-r.Records))}},
		{&p.Releases, `DELETE FROM releases WHERE ` + releaseExpired + ` AND NOT EXISTS (SELECT 1 FROM error_groups g
			WHERE g.project_id = releases.project_id AND g.resolved_in = releases.version)`, []any{ms(now.Add(-r.Records)), ms(now.Add(-r.Records))}},
		{nil, `DELETE FROM artifacts WHERE release_id IS NULL AND created_at < ?`, []any{ms(now.Add(-r.Records))}},
		{nil, `DELETE FROM artifact_bundles WHERE created_at < ?`, []any{ms(now.Add(-r.Records))}},
		{nil, `DELETE FROM upload_chunks WHERE created_at < ?`, []any{ms(now.Add(-ChunksKept))}},
	}
	for _, s := range steps {
		res, err := c.exec(ctx, s.q, s.args...)
		if err != nil {
			return p, fmt.Errorf("store: prune: %w", err)
		}
		if s.n != nil {
			*s.n, _ = res.RowsAffected()
		}
	}
	return p, nil
}
