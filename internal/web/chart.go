package web

import (
	"fmt"
	"math"
	"time"

	"github.com/errata-dev/errata/internal/store"
)

// The events charts are server-rendered SVG (templates/parts/chart.html):
// no script, no inline style, colours from CSS classes. Errors and INFO
// events are drawn in two panels over one time axis, each scaled to its own
// maximum: INFO events usually outnumber errors a hundred to one, and on a
// shared scale the error bars would vanish.

// Chart geometry in viewBox units; the SVG scales to its container's width.
// Each panel has its name on a line above it; the y labels ("max N", "0")
// sit in a left margin made as wide as the widest of them (chartLeftFor),
// so no maximum is cut off however large.
const (
	chartW       = 720.0
	chartMinLeft = 40.0 // the narrowest left margin
	chartRight   = 8.0
	chartTitle   = 18.0 // a panel's name, above it
	chartPanel   = 72.0 // height of each panel
	chartGap     = 12.0 // between the panels
	chartAxis    = 24.0 // x labels below the panels
	chartMinBar  = 1.0  // a non-zero count never draws thinner than this
	chartLabelW  = 64.0 // least room between two x labels
	// chartCharW is a generous width of one character of the 12-unit chart
	// text (style.css): digits of system fonts are 0.5–0.6 em, so a label
	// sized with it fits.
	chartCharW = 7.5
)

// chartH is the viewBox height.
const chartH = 2*(chartTitle+chartPanel) + chartGap + chartAxis

// chartLeftFor is the left margin that fits every y label: the text, a
// 4-unit pad on its left and the 4 units between it and the plot.
func chartLeftFor(labels ...string) float64 {
	left := chartMinLeft
	for _, l := range labels {
		left = max(left, math.Ceil(float64(len([]rune(l)))*chartCharW)+8)
	}
	return left
}

// bucket is the events of one bar's span.
type bucket struct {
	Start, End   time.Time
	Errors, Info int64
}

// chartRect is one bar.
type chartRect struct {
	X, Y, W, H float64
	// Title is the bar's hover text: its count and span, UTC.
	Title string
}

// chartText is one label at (X, Y).
type chartText struct {
	X, Y float64
	Text string
}

// chartPanelData is one series: its bars, its maximum and the text shown
// when it has no events.
type chartPanelData struct {
	Name  string // "Errors and warnings", "INFO"
	Class string // CSS class of its bars
	// TitleY is the baseline of the panel's name, above it.
	TitleY float64
	// MaxLabel is the label of its maximum, "max 1,234".
	MaxLabel string
	Top      float64
	Base     float64 // y of the zero line
	Mid      float64 // y of the panel's middle
	Max      int64
	Total    int64
	// Sum is Total with its noun: "3 errors and warnings", "1 INFO event".
	Sum  string
	Bars []chartRect
	// Empty is shown instead of bars when the series has no events.
	Empty string
}

// chart is everything parts/chart.html draws.
type chart struct {
	// ID prefixes the element ids of the chart (unique on the page).
	ID string
	// Caption names the chart: "Last 24 hours, per hour (UTC)".
	Caption string
	// Label summarises the chart for screen readers (aria-label).
	Label string
	W, H  float64
	// Left and Right bound the plot; Label0 is where the y labels end; Mid
	// is the plot's horizontal middle.
	Left, Right, Label0, Mid float64
	Panels                   []chartPanelData
	XTicks                   []chartText
	// Rows are the accessible data table, one per bucket.
	Rows []chartRow
	// Unit is "hour" or "day".
	Unit string
}

// chartRow is one line of the data table.
type chartRow struct {
	Span         string
	Errors, Info int64
}

// chartSeries are the two panels: what they count, and their nouns. The
// first counts the events of error groups, warn and above, hence its name.
var chartSeries = []struct {
	name, class, one, many, none string
	get                          func(bucket) int64
}{
	{"Errors and warnings", "bar-err", "error or warning", "errors and warnings", "errors or warnings", func(b bucket) int64 { return b.Errors }},
	{"INFO", "bar-info", "INFO event", "INFO events", "INFO events", func(b bucket) int64 { return b.Info }},
}

// newChart lays out buckets (oldest first) as bars of unit "hour" or "day".
func newChart(id, caption, unit string, buckets []bucket) chart {
	c := chart{ID: id, Caption: caption, W: chartW, H: chartH, Unit: unit}
	for i, s := range chartSeries {
		top := chartTitle + float64(i)*(chartTitle+chartPanel+chartGap)
		p := chartPanelData{Name: s.name, Class: s.class, TitleY: top - 5, Top: top, Base: top + chartPanel, Mid: top + chartPanel/2}
		for _, b := range buckets {
			v := s.get(b)
			p.Total += v
			p.Max = max(p.Max, v)
		}
		p.Sum, p.MaxLabel = countNoun(p.Total, s.one, s.many), "max "+count(p.Max)
		if p.Max == 0 {
			p.Empty = "No " + s.none + " in this period"
		}
		c.Panels = append(c.Panels, p)
	}
	c.Left = chartLeftFor(c.Panels[0].MaxLabel, c.Panels[1].MaxLabel)
	c.Right, c.Label0 = chartW-chartRight, c.Left-4
	c.Mid = round1((c.Left + c.Right) / 2)
	n := len(buckets)
	slot := 0.0
	if n > 0 {
		slot = (c.Right - c.Left) / float64(n)
	}
	for i, s := range chartSeries {
		p := &c.Panels[i]
		for j, b := range buckets {
			v := s.get(b)
			if v == 0 {
				continue
			}
			h := max(chartMinBar, float64(v)/float64(p.Max)*chartPanel)
			p.Bars = append(p.Bars, chartRect{
				X: round1(c.Left + float64(j)*slot + slot*0.1), W: round1(slot * 0.8),
				Y: round1(p.Base - h), H: round1(h),
				Title: countNoun(v, s.one, s.many) + ", " + spanText(b, unit),
			})
		}
	}
	step := max(1, int(math.Ceil(chartLabelW/max(slot, 1))))
	for j := 0; j < n; j += step {
		c.XTicks = append(c.XTicks, chartText{X: round1(c.Left + float64(j)*slot), Y: chartH - 6, Text: tickText(buckets[j].Start, unit)})
	}
	for _, b := range buckets {
		c.Rows = append(c.Rows, chartRow{Span: spanText(b, unit), Errors: b.Errors, Info: b.Info})
	}
	c.Label = chartLabel(c, n)
	return c
}

// chartLabel is the screen-reader summary: the totals and each series'
// busiest bar.
func chartLabel(c chart, n int) string {
	s := fmt.Sprintf("Bar chart, %s: %d %ss.", c.Caption, n, c.Unit)
	for _, p := range c.Panels {
		if p.Max == 0 {
			s += " " + p.Empty + "."
			continue
		}
		s += fmt.Sprintf(" %s: %s in total, at most %s in one %s.", p.Name, count(p.Total), count(p.Max), c.Unit)
	}
	return s
}

// hourlyBuckets makes one bucket per hour.
func hourlyBuckets(hours []store.HourCount) []bucket {
	out := make([]bucket, len(hours))
	for i, h := range hours {
		out[i] = bucket{Start: h.Hour, End: h.Hour.Add(time.Hour), Errors: h.Errors, Info: h.Info}
	}
	return out
}

// dailyBuckets sums hours into UTC days, oldest first.
func dailyBuckets(hours []store.HourCount) []bucket {
	var out []bucket
	for _, h := range hours {
		day := h.Hour.UTC().Truncate(24 * time.Hour)
		if len(out) == 0 || !out[len(out)-1].Start.Equal(day) {
			out = append(out, bucket{Start: day, End: day.Add(24 * time.Hour)})
		}
		out[len(out)-1].Errors += h.Errors
		out[len(out)-1].Info += h.Info
	}
	return out
}

// spanText names a bucket's span in UTC.
func spanText(b bucket, unit string) string {
	if unit == "day" {
		return b.Start.UTC().Format("Mon 2 Jan 2006") + " (UTC)"
	}
	return b.Start.UTC().Format("2 Jan 15:04") + "–" + b.End.UTC().Format("15:04") + " UTC"
}

// tickText is an x-axis label.
func tickText(t time.Time, unit string) string {
	if unit == "day" {
		return t.UTC().Format("2 Jan")
	}
	return t.UTC().Format("15:04")
}

func round1(v float64) float64 { return math.Round(v*10) / 10 }
