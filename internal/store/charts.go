package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// HourCount is a project's events in the hour starting at Hour (UTC).
type HourCount struct {
	Hour time.Time
	// Errors counts the events of the project's error groups received in the
	// hour (warn and above): the sum of their group_hours.
	Errors int64
	// Info counts the info and debug events of the INFO windows starting in
	// the hour; a window longer than an hour counts wholly in its first hour.
	Info int64
}

// hourMS is an hour in the stored Unix milliseconds.
const hourMS = int64(time.Hour / time.Millisecond)

// MaxChartHours bounds EventsPerHour: 92 days of hours.
const MaxChartHours = 92 * 24

// EventsPerHour returns a project's events per hour from the hour holding
// from up to the hour before the one holding to (to is exclusive): one entry
// per hour, oldest first, hours without events zero. Ranges longer than
// MaxChartHours are refused.
//
// Errors come from project_hours, INFO from info_summaries, each through
// its (project_id, hour or window_start) key: at most one row an hour each
// for hour-long windows, however many groups the project has.
func (c *Conn) EventsPerHour(ctx context.Context, projectID string, from, to time.Time) ([]HourCount, error) {
	start, end := from.UTC().Truncate(time.Hour), to.UTC().Truncate(time.Hour)
	if to.After(end) {
		end = end.Add(time.Hour)
	}
	n := int(end.Sub(start) / time.Hour)
	if n < 0 {
		n = 0
	}
	if n > MaxChartHours {
		return nil, fmt.Errorf("store: events per hour: %d hours, at most %d", n, MaxChartHours)
	}
	out := make([]HourCount, n)
	for i := range out {
		out[i].Hour = start.Add(time.Duration(i) * time.Hour)
	}
	if n == 0 {
		return out, nil
	}
	lo, hi := ms(start), ms(end)
	slot := func(hour int64) int { return int((hour - lo) / hourMS) }

	rows, err := c.query(ctx, `SELECT hour, count FROM project_hours WHERE project_id = ? AND hour >= ? AND hour < ?`, projectID, lo, hi)
	if err != nil {
		return nil, fmt.Errorf("store: error events per hour: %w", err)
	}
	if err := scanHours(rows, func(hour, count int64) { out[slot(hour)].Errors = count }); err != nil {
		return nil, fmt.Errorf("store: error events per hour: %w", err)
	}

	// 3600000 is hourMS: a constant, so both databases see the same
	// grouping expression.
	rows, err = c.query(ctx, `SELECT window_start - window_start % 3600000, SUM(event_count) FROM info_summaries
		WHERE project_id = ? AND window_start >= ? AND window_start < ? GROUP BY 1`, projectID, lo, hi)
	if err != nil {
		return nil, fmt.Errorf("store: info events per hour: %w", err)
	}
	if err := scanHours(rows, func(hour, count int64) { out[slot(hour)].Info = count }); err != nil {
		return nil, fmt.Errorf("store: info events per hour: %w", err)
	}
	return out, nil
}

// scanHours reads (hour, count) rows into set.
func scanHours(rows *boundRows, set func(hour, count int64)) error {
	defer rows.Close()
	for rows.Next() {
		var hour, count int64
		if err := rows.Scan(&hour, &count); err != nil {
			return err
		}
		set(hour, count)
	}
	return rows.Err()
}

// addProjectHour adds n error events of groupID's project at hour (Unix
// ms) to project_hours, the per-project sum of group_hours that
// EventsPerHour reads. It runs with the group_hours upsert, in the same
// transaction.
func (c *Conn) addProjectHour(ctx context.Context, groupID string, hour int64, n int) error {
	// The WHERE lets SQLite tell the upsert's ON CONFLICT from a join's ON.
	if _, err := c.exec(ctx, `INSERT INTO project_hours (project_id, hour, count) SELECT project_id, ?, ? FROM error_groups WHERE id = ?
		ON CONFLICT (project_id, hour) DO UPDATE SET count = project_hours.count + excluded.count`, hour, n, groupID); err != nil {
		return fmt.Errorf("store: project hours: %w", err)
	}
	return nil
}

// addProjectHours adds counts to their projects' hours: those that name
// their project summed per project and hour into one statement, upserting
// in project and hour order so concurrent transactions lock rows alike;
// the others through their group (addProjectHour).
func (c *Conn) addProjectHours(ctx context.Context, counts []GroupCount) error {
	type key struct {
		project string
		hour    int64
	}
	sums := map[key]int{}
	for _, gc := range counts {
		hour := gc.Minute.Truncate(time.Hour).UnixMilli()
		if gc.ProjectID == "" {
			if err := c.addProjectHour(ctx, gc.GroupID, hour, gc.N); err != nil {
				return err
			}
			continue
		}
		sums[key{gc.ProjectID, hour}] += gc.N
	}
	if len(sums) == 0 {
		return nil
	}
	keys := make([]key, 0, len(sums))
	for k := range sums {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b key) int { return cmp.Or(strings.Compare(a.project, b.project), cmp.Compare(a.hour, b.hour)) })
	args := make([]any, 0, 3*len(keys))
	for _, k := range keys {
		args = append(args, k.project, k.hour, sums[k])
	}
	if _, err := c.exec(ctx, `INSERT INTO project_hours (project_id, hour, count) VALUES `+tuples(len(keys), "(?, ?, ?)")+`
		ON CONFLICT (project_id, hour) DO UPDATE SET count = project_hours.count + excluded.count`, args...); err != nil {
		return fmt.Errorf("store: project hours: %w", err)
	}
	return nil
}

// ClosedInfoSummaries lists up to limit of a project's INFO summaries whose
// windows closed in (from, to], as the digest of that period reports them,
// newest window first, only windows starting before before (pass to for the
// first page; a later page passes the last window start shown).
func (c *Conn) ClosedInfoSummaries(ctx context.Context, projectID string, from, to, before time.Time, limit int) ([]InfoSummary, error) {
	rows, err := c.query(ctx, `SELECT `+summaryCols+` FROM info_summaries WHERE `+closedIn+` AND window_start < ?
		ORDER BY window_start DESC LIMIT ?`, projectID, ms(from), ms(to), ms(before), limit)
	if err != nil {
		return nil, fmt.Errorf("store: closed info summaries: %w", err)
	}
	return collect(rows, scanSummary)
}
