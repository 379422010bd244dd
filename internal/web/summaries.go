package web

import (
	"net/http"
	"net/url"
	"sort"
	"time"

	"github.com/errata-dev/errata/internal/httpserver"
	"github.com/errata-dev/errata/internal/org"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/summary"
	"github.com/errata-dev/errata/internal/view"
)

// Limits of the INFO summaries page.
const (
	// summaryPage is how many windows a page lists (a day of hour windows).
	summaryPage = 24
	// summaryTop is how many templates each listed window shows; its own
	// page shows all the API returns (summary.TopMessages).
	summaryTop = 5
	// summaryChartRange is the most a chart of the page covers, within
	// store.MaxChartHours: a longer range (a digest after a long quiet
	// spell) lists all its windows and charts its last 90 days.
	summaryChartRange = 90 * 24 * time.Hour
	// formTime is how the from/to inputs (datetime-local, UTC) show a time.
	formTime = "2006-01-02T15:04:05"
)

// serviceCount is one service of a window.
type serviceCount struct {
	Service string
	Count   int64
}

// summaryItem is one window of the list.
type summaryItem struct {
	store.InfoSummary
	Services []serviceCount
}

// summariesData fills the INFO summaries page.
type summariesData struct {
	Project store.Project
	// From and To are the range shown; FromInput and ToInput what the form
	// shows (the query as typed when it was refused).
	From, To           time.Time
	FromInput, ToInput string
	// Error names the field refused and why (422); nothing else is shown.
	Error, ErrorField string
	Events, Windows   int64
	Busiest           store.InfoSummary
	Chart             chart
	// ChartFrom is where the chart starts when the range is longer than
	// it shows (zero otherwise).
	ChartFrom time.Time
	Items     []summaryItem
	// Next is the address of the following page, "" on the last one.
	Next string
}

// summaries lists a project's INFO windows that closed in (from, to], the
// range a digest reports and links here with (CONTRACT 6): their counts,
// services and top templates, with the events chart of the range. The
// default range is the last 24 hours.
func (d *Dashboard) summaries(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	if err := d.authorize(r, p, "project_id", org.Viewer); err != nil {
		return err
	}
	ctx, c := r.Context(), d.db.Read()
	prj, crumbs, err := d.projectCrumbs(ctx, r.PathValue("project_id"))
	if err != nil {
		return err
	}
	crumbs = append(crumbs, crumb{"INFO summaries", "/projects/" + prj.ID + "/summaries"})
	f := frame{Title: "INFO summaries · " + prj.Name, Crumbs: crumbs, Project: &prj, Tab: "summaries"}
	q := r.URL.Query()
	data := summariesData{Project: prj, FromInput: q.Get("from"), ToInput: q.Get("to")}
	from, to, before, field, msg := summaryRange(q, d.now())
	if field != "" {
		data.ErrorField, data.Error = field, msg
		f.Data = data
		d.render(w, r, http.StatusUnprocessableEntity, "summaries", p, f)
		return nil
	}
	data.From, data.To = from, to
	data.FromInput, data.ToInput = from.UTC().Format(formTime), to.UTC().Format(formTime)
	if data.Events, data.Windows, data.Busiest, err = c.InfoTotals(ctx, prj.ID, from, to); err != nil {
		return err
	}
	chartFrom := from
	if to.Sub(from) > summaryChartRange {
		chartFrom = to.Add(-summaryChartRange).Truncate(24 * time.Hour)
		data.ChartFrom = chartFrom
	}
	hours, err := c.EventsPerHour(ctx, prj.ID, chartFrom, to)
	if err != nil {
		return err
	}
	if to.Sub(chartFrom) <= 48*time.Hour {
		data.Chart = newChart("chart-range", "Per hour (UTC)", "hour", hourlyBuckets(hours))
	} else {
		data.Chart = newChart("chart-range", "Per day (UTC)", "day", dailyBuckets(hours))
	}
	rows, err := c.ClosedInfoSummaries(ctx, prj.ID, from, to, before, summaryPage+1)
	if err != nil {
		return err
	}
	if len(rows) > summaryPage {
		rows = rows[:summaryPage]
		next := url.Values{"from": {from.UTC().Format(view.TimeFormat)}, "to": {to.UTC().Format(view.TimeFormat)},
			"before": {rows[summaryPage-1].WindowStart.UTC().Format(view.TimeFormat)}}
		data.Next = "/projects/" + prj.ID + "/summaries?" + next.Encode()
	}
	// Every window's services and top templates in two queries, not two a
	// window.
	if err := c.FillInfoSummaries(ctx, rows, summaryTop); err != nil {
		return err
	}
	for _, v := range rows {
		data.Items = append(data.Items, summaryItem{InfoSummary: v, Services: sortedServices(v.Services)})
	}
	f.Data = data
	d.render(w, r, http.StatusOK, "summaries", p, f)
	return nil
}

// summaryRange reads from, to and before from the query: RFC 3339 (as
// digests write them) or the form's datetime-local value, taken as UTC.
// Without to the range ends at the end of the current hour; without from it
// starts 24 hours before to;
// before (paging) defaults to to. A refusal names its field.
func summaryRange(q url.Values, now time.Time) (from, to, before time.Time, field, msg string) {
	var ok bool
	// The default range ends with the current hour, so the window still
	// open (an hour long by default) shows with its counts so far.
	to = now.UTC().Truncate(time.Hour).Add(time.Hour)
	if s := q.Get("to"); s != "" {
		if to, ok = parseFormTime(s); !ok {
			return from, to, before, "to", "to must be a date and time such as 2026-11-22T08:00:00Z"
		}
	}
	from = to.Add(-24 * time.Hour)
	if s := q.Get("from"); s != "" {
		if from, ok = parseFormTime(s); !ok {
			return from, to, before, "from", "from must be a date and time such as 2026-11-21T08:00:00Z"
		}
	}
	switch {
	case !from.Before(to):
		return from, to, before, "to", "to must be after from"
	}
	before = to
	if s := q.Get("before"); s != "" {
		if before, ok = parseFormTime(s); !ok {
			return from, to, before, "before", "before must be the window start the previous page ended with"
		}
	}
	return from, to, before, "", ""
}

// parseFormTime accepts RFC 3339 (fractional seconds optional) or a
// datetime-local value without a zone, read as UTC.
func parseFormTime(s string) (time.Time, bool) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// sortedServices lists a window's services, busiest first.
func sortedServices(m map[string]int64) []serviceCount {
	out := make([]serviceCount, 0, len(m))
	for s, n := range m {
		out = append(out, serviceCount{s, n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Service < out[j].Service
	})
	return out
}

// summaryData fills one window's page.
type summaryData struct {
	Summary  store.InfoSummary
	Services []serviceCount
	// Back is the summaries page of the day around the window.
	Back string
}

// summary is one INFO window in full: what GET /v1/info-summaries/{id}
// answers, with every template's sample.
func (d *Dashboard) summary(w http.ResponseWriter, r *http.Request, p *httpserver.Principal) error {
	if err := d.authorize(r, p, "summary_id", org.Viewer); err != nil {
		return err
	}
	ctx := r.Context()
	v, err := d.db.Read().InfoSummaryDetail(ctx, r.PathValue("summary_id"), summary.TopMessages)
	if err != nil {
		return err
	}
	prj, crumbs, err := d.projectCrumbs(ctx, v.ProjectID)
	if err != nil {
		return err
	}
	back := url.Values{"from": {v.WindowEnd.Add(-24 * time.Hour).UTC().Format(view.TimeFormat)}, "to": {v.WindowEnd.UTC().Format(view.TimeFormat)}}
	data := summaryData{Summary: v, Services: sortedServices(v.Services), Back: "/projects/" + prj.ID + "/summaries?" + back.Encode()}
	crumbs = append(crumbs, crumb{"INFO summaries", "/projects/" + prj.ID + "/summaries"})
	title := "INFO " + v.WindowStart.UTC().Format("2006-01-02 15:04") + " UTC"
	d.render(w, r, http.StatusOK, "summary", p, frame{Title: title + " · " + prj.Name, Crumbs: crumbs, Project: &prj, Tab: "summaries", Data: data})
	return nil
}
