package web

import (
	"bytes"
	"html/template"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/store"
)

var chartT0 = time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)

// chartBuckets makes hourly buckets from chartT0 with the given counts.
func chartBuckets(errs, info []int64) []bucket {
	out := make([]bucket, len(errs))
	for i := range errs {
		s := chartT0.Add(time.Duration(i) * time.Hour)
		out[i] = bucket{Start: s, End: s.Add(time.Hour), Errors: errs[i], Info: info[i]}
	}
	return out
}

// renderChart runs parts/chart.html on c.
func renderChart(t *testing.T, c chart) string {
	t.Helper()
	tp, err := template.New("x").Funcs(funcs).ParseFS(templateFS, "templates/parts/chart.html")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := tp.ExecuteTemplate(&b, "chart", c); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestChartBarsAreProportional(t *testing.T) {
	t.Parallel()
	c := newChart("c", "Test", "hour", chartBuckets([]int64{0, 5, 500, 1000}, []int64{100, 50, 0, 0}))
	errs, info := c.Panels[0], c.Panels[1]
	if errs.Max != 1000 || errs.Total != 1505 || info.Max != 100 || info.Total != 150 {
		t.Fatalf("max/total = %d/%d and %d/%d", errs.Max, errs.Total, info.Max, info.Total)
	}
	if len(errs.Bars) != 3 || len(info.Bars) != 2 {
		t.Fatalf("bars = %d errors, %d info; want 3 and 2 (none for zero counts)", len(errs.Bars), len(info.Bars))
	}
	// 500 of 1000 is half the panel; 5 would be 0.36 units and is drawn at
	// the 1-unit minimum so that it stays visible.
	for _, tc := range []struct {
		bar  chartRect
		h    float64
		base float64
	}{
		{errs.Bars[0], chartMinBar, errs.Base}, {errs.Bars[1], chartPanel / 2, errs.Base}, {errs.Bars[2], chartPanel, errs.Base},
		{info.Bars[0], chartPanel, info.Base}, {info.Bars[1], chartPanel / 2, info.Base},
	} {
		if tc.bar.H != tc.h || tc.bar.Y+tc.bar.H != tc.base {
			t.Errorf("bar %+v: height %v ending at %v, want %v ending at %v", tc.bar, tc.bar.H, tc.bar.Y+tc.bar.H, tc.h, tc.base)
		}
	}
	if want := chartLeftFor("max 1,000"); c.Left != want || want <= chartMinLeft {
		t.Errorf("left margin %v, want %v (the width of max 1,000)", c.Left, want)
	}
	slot := (chartW - c.Left - chartRight) / 4
	if got, want := errs.Bars[2].X, round1(c.Left+3*slot+slot*0.1); got != want {
		t.Errorf("fourth bar at x = %v, want %v", got, want)
	}
	if info.Bars[1].X != round1(c.Left+slot+slot*0.1) || info.Bars[1].W != round1(slot*0.8) {
		t.Errorf("second INFO bar at x = %v width %v", info.Bars[1].X, info.Bars[1].W)
	}
	if errs.Bars[2].Title != "1,000 errors and warnings, 22 Nov 03:00–04:00 UTC" || info.Bars[0].Title != "100 INFO events, 22 Nov 00:00–01:00 UTC" {
		t.Errorf("titles %q, %q", errs.Bars[2].Title, info.Bars[0].Title)
	}
	if !strings.Contains(c.Label, "Errors and warnings: 1,505 in total, at most 1,000 in one hour") || !strings.Contains(c.Label, "INFO: 150 in total") {
		t.Errorf("label = %q", c.Label)
	}
	out := renderChart(t, c)
	for _, want := range []string{`role="img"`, `aria-label="Bar chart, Test: 4 hours.`, `max 1,000`, `max 100<`, `<title>5 errors and warnings, 22 Nov 01:00–02:00 UTC</title>`, `>Errors and warnings</text>`,
		`class="bar-err"`, `class="bar-info"`, `<th scope="row">22 Nov 03:00–04:00 UTC</th><td>1,000</td><td>0</td>`, `>00:00</text>`} {
		if !strings.Contains(out, want) {
			t.Errorf("chart lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "<rect"); n != 5 {
		t.Errorf("%d rects, want 5", n)
	}
	if strings.Contains(out, "style=") {
		t.Errorf("chart has an inline style")
	}
}

// TestChartFitsLargeMaximums: the left margin grows with the widest
// "max N" label, so that the label, drawn right-aligned against the plot,
// starts inside the picture for any N, with thousands separators.
func TestChartFitsLargeMaximums(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		errs, info int64
		label      string
	}{
		{3, 4, "max 4"},
		{1_234_567, 12, "max 1,234,567"},
		{5, 98_765_432_109, "max 98,765,432,109"},
		{9_223_372_036_854_775_807, 0, "max 9,223,372,036,854,775,807"},
	} {
		c := newChart("c", "Big", "hour", chartBuckets([]int64{tc.errs, 1}, []int64{tc.info, 0}))
		out := renderChart(t, c)
		if !strings.Contains(out, ">"+tc.label+"</text>") {
			t.Errorf("%d/%d: chart lacks the label %q:\n%s", tc.errs, tc.info, tc.label, out)
		}
		// The label ends at Label0 (text-anchor="end") and is at most
		// chartCharW a character wide: it must start at x >= 0.
		if start := c.Label0 - float64(len(tc.label))*chartCharW; start < 0 {
			t.Errorf("%q: starts at x = %v, outside the picture (left margin %v)", tc.label, start, c.Left)
		}
		if c.Left >= c.Right-100 {
			t.Errorf("%q: the plot is %v units wide", tc.label, c.Right-c.Left)
		}
		for _, b := range c.Panels[0].Bars {
			if b.X < c.Left {
				t.Errorf("%q: a bar at x = %v starts in the margin (%v)", tc.label, b.X, c.Left)
			}
		}
	}
}

func TestChartWithoutEventsDrawsNoBars(t *testing.T) {
	t.Parallel()
	c := newChart("c", "Empty", "hour", chartBuckets(make([]int64, 24), make([]int64, 24)))
	out := renderChart(t, c)
	if strings.Contains(out, "<rect") {
		t.Errorf("an empty chart draws bars:\n%s", out)
	}
	for _, want := range []string{"No errors or warnings in this period", "No INFO events in this period", "max 0"} {
		if !strings.Contains(out, want) {
			t.Errorf("empty chart lacks %q", want)
		}
	}
	if len(c.Rows) != 24 || len(c.XTicks) != 8 { // a label every 3 hours
		t.Errorf("%d rows and %d ticks, want 24 and 8", len(c.Rows), len(c.XTicks))
	}
	// No buckets at all still renders.
	if out := renderChart(t, newChart("c", "None", "day", nil)); strings.Contains(out, "<rect") || !strings.Contains(out, "No errors") {
		t.Errorf("chart of nothing: %s", out)
	}
}

func TestChartEscapesText(t *testing.T) {
	t.Parallel()
	c := newChart(`x"><script>`, `<script>alert("c")</script>`, "hour", chartBuckets([]int64{1}, []int64{1}))
	c.XTicks[0].Text = "<b>&"
	c.Panels[0].Bars[0].Title = "</title><script>"
	out := renderChart(t, c)
	if strings.Contains(out, "<script>") || strings.Contains(out, "<b>") {
		t.Fatalf("chart text is not escaped:\n%s", out)
	}
	for _, want := range []string{"&lt;script&gt;alert(&#34;c&#34;)&lt;/script&gt;", "&lt;b&gt;&amp;", "&lt;/title&gt;&lt;script&gt;"} {
		if !strings.Contains(out, want) {
			t.Errorf("chart lacks %q:\n%s", want, out)
		}
	}
}

func TestDailyBuckets(t *testing.T) {
	t.Parallel()
	var hours []store.HourCount
	for i := range 50 { // 22 Nov 00:00 to 24 Nov 01:00
		hours = append(hours, store.HourCount{Hour: chartT0.Add(time.Duration(i) * time.Hour), Errors: 1, Info: int64(i)})
	}
	days := dailyBuckets(hours)
	if len(days) != 3 || days[0].Errors != 24 || days[1].Errors != 24 || days[2].Errors != 2 || days[2].Info != 48+49 {
		t.Fatalf("days = %+v", days)
	}
	if !days[1].Start.Equal(chartT0.AddDate(0, 0, 1)) || !days[1].End.Equal(chartT0.AddDate(0, 0, 2)) {
		t.Errorf("second day spans %v to %v", days[1].Start, days[1].End)
	}
	c := newChart("d", "Days", "day", days)
	if c.Rows[0].Span != "Sun 22 Nov 2026 (UTC)" || c.XTicks[0].Text != "22 Nov" {
		t.Errorf("day labels %q, %q", c.Rows[0].Span, c.XTicks[0].Text)
	}
}

func TestSummaryRange(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 8, 30, 0, 0, time.UTC)
	for _, tc := range []struct {
		query            string
		from, to, before string // RFC 3339, or the field refused
		field            string
	}{
		{query: "", from: "2026-11-21T09:00:00Z", to: "2026-11-22T09:00:00Z", before: "2026-11-22T09:00:00Z"},
		// the link a digest carries (digest.SummariesURL)
		{query: "from=2026-11-22T08%3A00%3A00.000Z&to=2026-11-22T11%3A00%3A00.000Z", from: "2026-11-22T08:00:00Z", to: "2026-11-22T11:00:00Z", before: "2026-11-22T11:00:00Z"},
		{query: "from=2026-11-22T09:00:00%2B01:00&to=2026-11-22T11:00:00Z", from: "2026-11-22T08:00:00Z", to: "2026-11-22T11:00:00Z", before: "2026-11-22T11:00:00Z"},
		// the form's datetime-local values, read as UTC
		{query: "from=2026-11-20T10:15&to=2026-11-21T10:15:30&before=2026-11-21T00:00:00Z", from: "2026-11-20T10:15:00Z", to: "2026-11-21T10:15:30Z", before: "2026-11-21T00:00:00Z"},
		{query: "to=2026-11-21T00:00:00Z", from: "2026-11-20T00:00:00Z", to: "2026-11-21T00:00:00Z", before: "2026-11-21T00:00:00Z"},
		{query: "from=garbage", field: "from"},
		{query: "to=2026-13-01T00:00:00Z", field: "to"},
		{query: "from=2026-11-22T08:00:00Z&to=2026-11-22T08:00:00Z", field: "to"},
		// a digest after a quiet spell of more than 90 days: listed whole
		{query: "from=2026-01-01T00:00:00Z&to=2026-11-22T08:00:00Z", from: "2026-01-01T00:00:00Z", to: "2026-11-22T08:00:00Z", before: "2026-11-22T08:00:00Z"},
		{query: "before=yesterday", field: "before"},
	} {
		q, _ := url.ParseQuery(tc.query)
		from, to, before, field, msg := summaryRange(q, now)
		if field != tc.field || (field != "" && !strings.HasPrefix(msg, field+" ")) {
			t.Errorf("%q: field %q (%q), want %q", tc.query, field, msg, tc.field)
			continue
		}
		if field != "" {
			continue
		}
		if got := from.Format(time.RFC3339) + " " + to.Format(time.RFC3339) + " " + before.Format(time.RFC3339); got != tc.from+" "+tc.to+" "+tc.before {
			t.Errorf("%q: range %s, want %s %s %s", tc.query, got, tc.from, tc.to, tc.before)
		}
	}
}
