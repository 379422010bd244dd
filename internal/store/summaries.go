package store

import (
	"context"
	"fmt"
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
	// Services and Top are filled by InfoSummaryDetail, or for many
	// summaries at once by FillInfoSummaries.
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
		return "", fmt.Errorf("store: add info summary: %w", translate(err))
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
	// Statements of chunkRows' lengths (5 parameters a row), which SQLite
	// prepares once rather than parsing a statement of a new length in
	// every transaction.
	for start, n := 0, 0; start < len(d.Templates); start += n {
		n = chunkRows(len(d.Templates) - start)
		part := d.Templates[start : start+n]
		args := make([]any, 0, 5*len(part))
		for _, t := range part {
			args = append(args, id, t.Hash, t.Template, t.Sample, t.Count)
		}
		if _, err := c.exec(ctx, infoTemplatesUpsert(len(part)), args...); err != nil {
			return "", fmt.Errorf("store: add info templates: %w", err)
		}
	}
	return id, nil
}

// infoTemplatesUpsert is AddInfo's statement for n templates.
func infoTemplatesUpsert(n int) string {
	return `INSERT INTO info_templates (summary_id, hash, template, sample, count) VALUES ` + tuples(n, "(?, ?, ?, ?, ?)") +
		` ON CONFLICT (summary_id, hash) DO UPDATE SET count = info_templates.count + excluded.count`
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
		return InfoSummary{}, fmt.Errorf("store: info summary %s: %w", id, translate(err))
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
	v.Top, err = c.topTemplates(ctx, v.ID, top)
	return err
}

// topTemplates returns a summary's top templates, count descending, then
// by hash.
func (c *Conn) topTemplates(ctx context.Context, id string, top int) ([]TemplateCount, error) {
	rows, err := c.query(ctx, `SELECT hash, template, sample, count FROM info_templates WHERE summary_id = ? ORDER BY count DESC, hash LIMIT ?`, id, top)
	if err != nil {
		return nil, fmt.Errorf("store: info templates: %w", err)
	}
	return collect(rows, func(s interface{ Scan(...any) error }) (TemplateCount, error) {
		var t TemplateCount
		return t, s.Scan(&t.Hash, &t.Template, &t.Sample, &t.Count)
	})
}

// fillBatch bounds how many summaries one FillInfoSummaries query reads, so
// the IN list stays well under both databases' parameter limits.
const fillBatch = 500

// FillInfoSummaries fills the Services and Top (at most top templates) of
// every summary of list in place, exactly as InfoSummaryDetail fills one:
// Top in count descending order, ties by hash; Services empty, not nil, for
// a summary without services, and Top nil for one without templates.
//
// On PostgreSQL it takes two queries for the whole list (per fillBatch
// summaries) instead of two a summary: the services, and the templates
// numbered per summary by ROW_NUMBER with the first top kept. On SQLite,
// where a query is an in-process call on a cached prepared statement, the
// services are one query too but the templates stay one top-N query a
// summary: the window function sorts every template of every summary, and
// on the dashboard's page (24 windows of 100 templates) that made it slower
// than the 24 small queries.
func (c *Conn) FillInfoSummaries(ctx context.Context, list []InfoSummary, top int) error {
	return c.fillInfoSummaries(ctx, list, top, c.drv.roundTrips())
}

func (c *Conn) fillInfoSummaries(ctx context.Context, list []InfoSummary, top int, windowed bool) error {
	for start := 0; start < len(list); start += fillBatch {
		if err := c.fillSummaries(ctx, list[start:min(start+fillBatch, len(list))], top, windowed); err != nil {
			return err
		}
	}
	return nil
}

func (c *Conn) fillSummaries(ctx context.Context, list []InfoSummary, top int, windowed bool) error {
	if len(list) == 0 {
		return nil
	}
	// A summary listed twice is read once and filled at each place.
	at := make(map[string][]int, len(list))
	args := make([]any, 0, len(list)+1)
	for i := range list {
		list[i].Services, list[i].Top = map[string]int64{}, nil
		id := list[i].ID
		if _, ok := at[id]; !ok {
			args = append(args, id)
		}
		at[id] = append(at[id], i)
	}
	in := `summary_id IN (` + tuples(len(args), "?") + `)`

	rows, err := c.query(ctx, `SELECT summary_id, service, count FROM info_services WHERE `+in+` ORDER BY summary_id, service`, args...)
	if err != nil {
		return fmt.Errorf("store: info services: %w", err)
	}
	type svc struct {
		summary, name string
		n             int64
	}
	svcs, err := collect(rows, func(s interface{ Scan(...any) error }) (svc, error) {
		var x svc
		return x, s.Scan(&x.summary, &x.name, &x.n)
	})
	if err != nil {
		return err
	}
	for _, x := range svcs {
		for _, i := range at[x.summary] {
			list[i].Services[x.name] = x.n
		}
	}

	if !windowed {
		for _, id := range args {
			tops, err := c.topTemplates(ctx, id.(string), top)
			if err != nil {
				return err
			}
			for _, i := range at[id.(string)] {
				list[i].Top = tops
			}
		}
		return nil
	}
	// The top templates of each summary: numbered within the summary in
	// topTemplates' order (count descending, then hash), the first top kept.
	rows, err = c.query(ctx, `SELECT summary_id, hash, template, sample, count FROM (
			SELECT summary_id, hash, template, sample, count,
				ROW_NUMBER() OVER (PARTITION BY summary_id ORDER BY count DESC, hash) AS rn
			FROM info_templates WHERE `+in+`
		) ranked WHERE rn <= ? ORDER BY summary_id, rn`, append(args, top)...)
	if err != nil {
		return fmt.Errorf("store: info templates: %w", err)
	}
	type tpl struct {
		summary string
		t       TemplateCount
	}
	tpls, err := collect(rows, func(s interface{ Scan(...any) error }) (tpl, error) {
		var x tpl
		return x, s.Scan(&x.summary, &x.t.Hash, &x.t.Template, &x.t.Sample, &x.t.Count)
	})
	if err != nil {
		return err
	}
	for _, x := range tpls {
		for _, i := range at[x.summary] {
			list[i].Top = append(list[i].Top, x.t)
		}
	}
	return nil
}
