package store

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// InfoSummary counts a project's info and debug events in one window.
type InfoSummary struct {
	ID          string
	ProjectID   string
	WindowStart time.Time
	WindowEnd   time.Time
	EventCount  int64
	DebugCount  int64
	UpdatedAt   time.Time
	// Services and Top are filled by InfoSummaryDetail.
	Services map[string]int64
	Top      []TemplateCount
}

// TemplateCount is one message template of a window with its count and a
// sample message.
type TemplateCount struct {
	Hash, Template, Sample string
	Count                  int64
}

// InfoDelta is what one batch adds to a window.
type InfoDelta struct {
	ProjectID   string
	WindowStart time.Time
	WindowEnd   time.Time
	Events      int64 // info and debug
	Debug       int64
	Services    map[string]int64
	Templates   []TemplateCount // hash, template, a sample and the count
}

// AddInfo adds a batch's INFO figures to its window's summary, creating the
// summary with id newID when the window has none yet.
func (c *Conn) AddInfo(ctx context.Context, d InfoDelta, newID string, now time.Time) (string, error) {
	var id string
	err := c.queryRow(ctx, `INSERT INTO info_summaries (id, project_id, window_start, window_end, event_count, debug_count, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (project_id, window_start) DO UPDATE SET event_count = info_summaries.event_count + excluded.event_count,
			debug_count = info_summaries.debug_count + excluded.debug_count, updated_at = excluded.updated_at
		RETURNING id`,
		newID, d.ProjectID, ms(d.WindowStart), ms(d.WindowEnd), d.Events, d.Debug, ms(now)).Scan(&id)
	if err != nil {
		return "", fmt.Errorf("store: add info summary: %w", translate(c.dialect, err))
	}
	// One multi-row upsert each for services and templates: a batch can
	// bring hundreds of templates, and a statement per row would cost a round
	// trip each on PostgreSQL.
	if len(d.Services) > 0 {
		q := `INSERT INTO info_services (summary_id, service, count) VALUES `
		args := make([]any, 0, 3*len(d.Services))
		i := 0
		for svc, n := range d.Services {
			if i > 0 {
				q += ", "
			}
			q += "(?, ?, ?)"
			args = append(args, id, svc, n)
			i++
		}
		q += ` ON CONFLICT (summary_id, service) DO UPDATE SET count = info_services.count + excluded.count`
		if _, err := c.exec(ctx, q, args...); err != nil {
			return "", fmt.Errorf("store: add info services: %w", err)
		}
	}
	for start := 0; start < len(d.Templates); start += 200 { // 5 parameters a row, well under both databases' limits
		part := d.Templates[start:min(start+200, len(d.Templates))]
		var q strings.Builder
		q.WriteString(`INSERT INTO info_templates (summary_id, hash, template, sample, count) VALUES `)
		args := make([]any, 0, 5*len(part))
		for i, t := range part {
			if i > 0 {
				q.WriteString(", ")
			}
			q.WriteString("(?, ?, ?, ?, ?)")
			args = append(args, id, t.Hash, t.Template, t.Sample, t.Count)
		}
		q.WriteString(` ON CONFLICT (summary_id, hash) DO UPDATE SET count = info_templates.count + excluded.count`)
		if _, err := c.exec(ctx, q.String(), args...); err != nil {
			return "", fmt.Errorf("store: add info templates: %w", err)
		}
	}
	return id, nil
}

const summaryCols = `id, project_id, window_start, window_end, event_count, debug_count, updated_at`

func scanSummary(s interface{ Scan(...any) error }) (InfoSummary, error) {
	var v InfoSummary
	var ws, we, up int64
	if err := s.Scan(&v.ID, &v.ProjectID, &ws, &we, &v.EventCount, &v.DebugCount, &up); err != nil {
		return InfoSummary{}, err
	}
	v.WindowStart, v.WindowEnd, v.UpdatedAt = fromMS(ws), fromMS(we), fromMS(up)
	return v, nil
}

// ListInfoSummaries lists a project's summaries, newest window first,
// optionally only windows starting in [from, to).
func (c *Conn) ListInfoSummaries(ctx context.Context, projectID string, from, to *time.Time, before string, limit int) ([]InfoSummary, error) {
	q := `SELECT ` + summaryCols + ` FROM info_summaries WHERE project_id = ? AND (? = '' OR id < ?)`
	args := []any{projectID, before, before}
	if from != nil {
		q += ` AND window_start >= ?`
		args = append(args, ms(*from))
	}
	if to != nil {
		q += ` AND window_start < ?`
		args = append(args, ms(*to))
	}
	rows, err := c.query(ctx, q+` ORDER BY id DESC LIMIT ?`, append(args, limit)...)
	if err != nil {
		return nil, fmt.Errorf("store: list info summaries: %w", err)
	}
	return collect(rows, scanSummary)
}

// InfoSummaryByID returns one summary without its services and templates.
func (c *Conn) InfoSummaryByID(ctx context.Context, id string) (InfoSummary, error) {
	v, err := scanSummary(c.queryRow(ctx, `SELECT `+summaryCols+` FROM info_summaries WHERE id = ?`, id))
	if err != nil {
		return InfoSummary{}, fmt.Errorf("store: info summary %s: %w", id, translate(c.dialect, err))
	}
	return v, nil
}

// InfoSummaryDetail returns one summary with its services and its top
// templates (at most top).
func (c *Conn) InfoSummaryDetail(ctx context.Context, id string, top int) (InfoSummary, error) {
	v, err := c.InfoSummaryByID(ctx, id)
	if err != nil {
		return InfoSummary{}, err
	}
	if err := c.fillSummary(ctx, &v, top); err != nil {
		return InfoSummary{}, err
	}
	return v, nil
}

func (c *Conn) fillSummary(ctx context.Context, v *InfoSummary, top int) error {
	rows, err := c.query(ctx, `SELECT service, count FROM info_services WHERE summary_id = ? ORDER BY service`, v.ID)
	if err != nil {
		return fmt.Errorf("store: info services: %w", err)
	}
	type svc struct {
		name string
		n    int64
	}
	list, err := collect(rows, func(s interface{ Scan(...any) error }) (svc, error) {
		var x svc
		return x, s.Scan(&x.name, &x.n)
	})
	if err != nil {
		return err
	}
	v.Services = make(map[string]int64, len(list))
	for _, x := range list {
		v.Services[x.name] = x.n
	}
	rows, err = c.query(ctx, `SELECT hash, template, sample, count FROM info_templates WHERE summary_id = ? ORDER BY count DESC, hash LIMIT ?`, v.ID, top)
	if err != nil {
		return fmt.Errorf("store: info templates: %w", err)
	}
	v.Top, err = collect(rows, func(s interface{ Scan(...any) error }) (TemplateCount, error) {
		var t TemplateCount
		return t, s.Scan(&t.Hash, &t.Template, &t.Sample, &t.Count)
	})
	return err
}
