package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// NotificationSettings is a project's digest schedule (CONTRACT 5).
type NotificationSettings struct {
	ProjectID     string
	DigestEnabled bool
	Frequency     string
	Hour          int
	Weekday       string
	Timezone      string
	// PeriodStart is where the next digest's period starts: the end of the
	// last one, or the project's creation.
	PeriodStart time.Time
	// NextDigestAt is the next scheduled send; zero when not scheduled yet.
	NextDigestAt time.Time
	UpdatedAt    time.Time
}

const settingsCols = `project_id, digest_enabled, frequency, hour, weekday, timezone, period_start, next_digest_at, updated_at`

func scanSettings(s interface{ Scan(...any) error }) (NotificationSettings, error) {
	var n NotificationSettings
	var ps, nd, up int64
	if err := s.Scan(&n.ProjectID, &n.DigestEnabled, &n.Frequency, &n.Hour, &n.Weekday, &n.Timezone, &ps, &nd, &up); err != nil {
		return NotificationSettings{}, err
	}
	n.PeriodStart, n.UpdatedAt = fromMS(ps), fromMS(up)
	if nd != 0 {
		n.NextDigestAt = fromMS(nd)
	}
	return n, nil
}

// EnsureNotificationSettings gives every project without settings the
// defaults (daily at 09:00 UTC, period from the project's creation), not
// yet scheduled. It returns how many it added.
func (c *Conn) EnsureNotificationSettings(ctx context.Context, now time.Time) (int64, error) {
	res, err := c.exec(ctx, `INSERT INTO notification_settings (`+settingsCols+`)
		SELECT p.id, ?, 'daily', 9, 'monday', 'UTC', p.created_at, 0, ? FROM projects p
		WHERE NOT EXISTS (SELECT 1 FROM notification_settings s WHERE s.project_id = p.id)`, true, ms(now))
	if err != nil {
		return 0, fmt.Errorf("store: ensure notification settings: %w", err)
	}
	return res.RowsAffected()
}

// NotificationSettingsOf returns a project's settings, the defaults when it
// has none yet.
func (c *Conn) NotificationSettingsOf(ctx context.Context, projectID string) (NotificationSettings, error) {
	n, err := scanSettings(c.queryRow(ctx, `SELECT `+settingsCols+` FROM notification_settings WHERE project_id = ?`, projectID))
	if errors.Is(err, ErrNotFound) {
		p, perr := c.ProjectByID(ctx, projectID)
		if perr != nil {
			return NotificationSettings{}, perr
		}
		return NotificationSettings{ProjectID: projectID, DigestEnabled: true, Frequency: "daily", Hour: 9, Weekday: "monday",
			Timezone: "UTC", PeriodStart: p.CreatedAt, UpdatedAt: p.CreatedAt}, nil
	}
	if err != nil {
		return NotificationSettings{}, fmt.Errorf("store: notification settings of %s: %w", projectID, err)
	}
	return n, nil
}

// LockNotificationSettings returns a project's settings, locked until the
// end of c's transaction (on PostgreSQL; SQLite has one writer): an
// on-demand digest and the scheduler, or two on-demand digests at once,
// then cover consecutive periods instead of the same one twice. A project
// without settings gets the defaults written first, so there is a row to
// lock.
func (c *Conn) LockNotificationSettings(ctx context.Context, projectID string, now time.Time) (NotificationSettings, error) {
	if _, err := c.exec(ctx, `INSERT INTO notification_settings (`+settingsCols+`)
		SELECT p.id, ?, 'daily', 9, 'monday', 'UTC', p.created_at, 0, ? FROM projects p WHERE p.id = ?
		ON CONFLICT (project_id) DO NOTHING`, true, ms(now), projectID); err != nil {
		return NotificationSettings{}, fmt.Errorf("store: notification settings of %s: %w", projectID, err)
	}
	n, err := scanSettings(c.queryRow(ctx, `SELECT `+settingsCols+` FROM notification_settings WHERE project_id = ?`+c.drv.rowLock(), projectID))
	if err != nil {
		return NotificationSettings{}, fmt.Errorf("store: notification settings of %s: %w", projectID, err)
	}
	return n, nil
}

// PutNotificationSettings writes a project's settings.
func (c *Conn) PutNotificationSettings(ctx context.Context, n NotificationSettings) error {
	var next int64
	if !n.NextDigestAt.IsZero() {
		next = ms(n.NextDigestAt)
	}
	q := `INSERT INTO notification_settings (` + settingsCols + `) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (project_id) DO UPDATE SET digest_enabled = excluded.digest_enabled, frequency = excluded.frequency, hour = excluded.hour,
		weekday = excluded.weekday, timezone = excluded.timezone, period_start = excluded.period_start, next_digest_at = excluded.next_digest_at,
		updated_at = excluded.updated_at`
	if _, err := c.exec(ctx, q, n.ProjectID, n.DigestEnabled, n.Frequency, n.Hour, n.Weekday, n.Timezone, ms(n.PeriodStart), next, ms(n.UpdatedAt)); err != nil {
		return fmt.Errorf("store: put notification settings of %s: %w", n.ProjectID, translate(err))
	}
	return nil
}

// DueDigests returns up to limit projects' settings whose next digest is
// due at now, or that are not scheduled yet, locked on PostgreSQL so that
// two schedulers do not send the same digest.
func (c *Conn) DueDigests(ctx context.Context, now time.Time, limit int) ([]NotificationSettings, error) {
	rows, err := c.query(ctx, `SELECT `+settingsCols+` FROM notification_settings WHERE next_digest_at <= ? ORDER BY next_digest_at LIMIT ?`+c.drv.skipLocked(), ms(now), limit)
	if err != nil {
		return nil, fmt.Errorf("store: due digests: %w", err)
	}
	return collect(rows, scanSettings)
}

// NextDigestDue is the earliest scheduled digest (false: none).
func (c *Conn) NextDigestDue(ctx context.Context) (time.Time, bool, error) {
	var v sql.NullInt64
	if err := c.queryRow(ctx, `SELECT MIN(next_digest_at) FROM notification_settings`).Scan(&v); err != nil {
		return time.Time{}, false, fmt.Errorf("store: next digest due: %w", err)
	}
	if !v.Valid {
		return time.Time{}, false, nil
	}
	return fromMS(v.Int64), true, nil
}

// Digest is a digest sent: its period and the digest object its bodies
// carried (JSON).
type Digest struct {
	ID          string
	ProjectID   string
	PeriodStart time.Time
	PeriodEnd   time.Time
	Body        []byte
	CreatedAt   time.Time
}

// InsertDigest stores a digest.
func (c *Conn) InsertDigest(ctx context.Context, d Digest) error {
	_, err := c.exec(ctx, `INSERT INTO digests (id, project_id, period_start, period_end, body, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		d.ID, d.ProjectID, ms(d.PeriodStart), ms(d.PeriodEnd), string(d.Body), ms(d.CreatedAt))
	if err != nil {
		return fmt.Errorf("store: insert digest: %w", err)
	}
	return nil
}

// ListDigests lists a project's digests, newest first.
func (c *Conn) ListDigests(ctx context.Context, projectID, before string, limit int) ([]Digest, error) {
	rows, err := c.query(ctx, `SELECT id, project_id, period_start, period_end, body, created_at FROM digests
		WHERE project_id = ? AND (? = '' OR id < ?) ORDER BY id DESC LIMIT ?`, projectID, before, before, limit)
	if err != nil {
		return nil, fmt.Errorf("store: list digests: %w", err)
	}
	return collect(rows, func(s interface{ Scan(...any) error }) (Digest, error) {
		var d Digest
		var body string
		var ps, pe, cr int64
		err := s.Scan(&d.ID, &d.ProjectID, &ps, &pe, &body, &cr)
		d.Body, d.PeriodStart, d.PeriodEnd, d.CreatedAt = []byte(body), fromMS(ps), fromMS(pe), fromMS(cr)
		return d, err
	})
}

// PeriodTickets returns how many of a project's tickets were created in
// [from, to) and are still kept, and the first limit of them by severity
// (critical first), then newest first.
func (c *Conn) PeriodTickets(ctx context.Context, projectID string, from, to time.Time, limit int) (int, []Ticket, error) {
	var n int
	if err := c.queryRow(ctx, `SELECT COUNT(*) FROM tickets WHERE project_id = ? AND created_at >= ? AND created_at < ?`,
		projectID, ms(from), ms(to)).Scan(&n); err != nil {
		return 0, nil, fmt.Errorf("store: period tickets: %w", err)
	}
	rows, err := c.query(ctx, `SELECT `+ticketCols+` FROM tickets WHERE project_id = ? AND created_at >= ? AND created_at < ?
		ORDER BY CASE severity WHEN 'critical' THEN 0 WHEN 'high' THEN 1 ELSE 2 END, id DESC LIMIT ?`, projectID, ms(from), ms(to), limit)
	if err != nil {
		return 0, nil, fmt.Errorf("store: period tickets: %w", err)
	}
	list, err := collect(rows, scanTicket)
	return n, list, err
}

// A digest reports the INFO windows that closed in its period: window_end in
// (from, to]. Each window is then reported once, complete (a closed window
// never changes), including the project's first one, which opened before
// the project did.
const closedIn = `project_id = ? AND window_end > ? AND window_end <= ?`

// InfoTotals sums a project's INFO summaries whose windows closed in
// (from, to]: info events (event_count), windows, and the busiest window,
// the one with the most info and debug events (zero when none).
func (c *Conn) InfoTotals(ctx context.Context, projectID string, from, to time.Time) (events, windows int64, busiest InfoSummary, err error) {
	var ev sql.NullInt64
	if err = c.queryRow(ctx, `SELECT COALESCE(SUM(event_count), 0), COUNT(*) FROM info_summaries WHERE `+closedIn,
		projectID, ms(from), ms(to)).Scan(&ev, &windows); err != nil {
		return 0, 0, InfoSummary{}, fmt.Errorf("store: info totals: %w", err)
	}
	if windows == 0 {
		return 0, 0, InfoSummary{}, nil
	}
	busiest, err = scanSummary(c.queryRow(ctx, `SELECT `+summaryCols+` FROM info_summaries WHERE `+closedIn+`
		ORDER BY event_count + debug_count DESC, window_start DESC LIMIT 1`, projectID, ms(from), ms(to)))
	if err != nil {
		return 0, 0, InfoSummary{}, fmt.Errorf("store: busiest window: %w", err)
	}
	return ev.Int64, windows, busiest, nil
}

// PeriodSummaries lists up to limit of the INFO summaries whose windows
// closed in (from, to], newest window first.
func (c *Conn) PeriodSummaries(ctx context.Context, projectID string, from, to time.Time, limit int) ([]InfoSummary, error) {
	rows, err := c.query(ctx, `SELECT `+summaryCols+` FROM info_summaries WHERE `+closedIn+` ORDER BY window_start DESC LIMIT ?`,
		projectID, ms(from), ms(to), limit)
	if err != nil {
		return nil, fmt.Errorf("store: period summaries: %w", err)
	}
	return collect(rows, scanSummary)
}
