// Package tickets holds the rules of error groups and tickets: severity
// (a typed, ordered value) from level, when a ticket is opened (new group,
// regression) or raised (spike), the event that notification consumes,
// the summary and facts a person reads, and the changes people make
// (resolve, ignore, merge).
package tickets

import (
	"fmt"
	"strings"
	"time"

	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/store"
)

// SpikeRule decides when a group's rate spikes: its count in the last Window
// is at least max(Min, Factor × its mean count per Window over the Baseline
// before that). CONTRACT 6: 5 minutes, 50, 10×, 24 hours.
type SpikeRule struct {
	Window   time.Duration
	Baseline time.Duration
	Min      int64
	Factor   float64
}

// DefaultSpikeRule is CONTRACT 6's rule.
var DefaultSpikeRule = SpikeRule{Window: 5 * time.Minute, Baseline: 24 * time.Hour, Min: 50, Factor: 10}

// Spiking reports whether recent events against a baseline sum are a spike.
func (r SpikeRule) Spiking(recent, baseline int64) bool {
	if recent < r.Min {
		return false
	}
	mean := float64(baseline) / (float64(r.Baseline) / float64(r.Window))
	return float64(recent) >= r.Factor*mean
}

// Summary is one or two sentences a person can act on: what, where, how
// often, since when and in which release. A resolved ticket's are those of
// its group when it was resolved (store.Ticket.AsClosed).
func Summary(t store.Ticket, g store.Group) string {
	g = t.AsClosed(g)
	var b strings.Builder
	what := g.Title
	if g.ExceptionType != "" && !strings.HasPrefix(what, g.ExceptionType) {
		what = g.ExceptionType + ": " + what
	}
	fmt.Fprintf(&b, "%s in %s", what, g.Service)
	if g.LastEnvironment != "" {
		fmt.Fprintf(&b, " (%s)", g.LastEnvironment)
	}
	if g.Culprit != "" {
		fmt.Fprintf(&b, " at %s", g.Culprit)
	}
	switch t.Reason {
	case store.ReasonRegression:
		b.WriteString(" is back after being resolved")
	case store.ReasonSpike:
		b.WriteString(" is spiking")
	case store.ReasonMerged:
		if g.MergedInto != "" {
			fmt.Fprintf(&b, " was merged into the group %s, whose ticket follows it.", g.MergedInto)
			return b.String()
		}
	}
	// The count is the group's, so is the date it counts from (the
	// ticket's episode may have begun later, and events may come back-dated).
	// Times, not "3 min ago": the summary is delivered (a webhook retried
	// hours later) and read long after it is made, and is the same object
	// as GET's (interface 6.1) until the group changes.
	fmt.Fprintf(&b, ": %s since %s, last %s.", times(g.EventCount), g.FirstSeen.UTC().Format(summaryTime), g.LastSeen.UTC().Format(summaryTime))
	switch {
	case g.LastRelease != "" && g.FirstRelease != "" && g.FirstRelease != g.LastRelease:
		fmt.Fprintf(&b, " First seen in release %s, still in %s.", g.FirstRelease, g.LastRelease)
	case g.LastRelease != "":
		fmt.Fprintf(&b, " Seen in release %s.", g.LastRelease)
	}
	return b.String()
}

func times(n int64) string {
	if n == 1 {
		return "1 event"
	}
	return fmt.Sprintf("%s events", thousands(n))
}

func thousands(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// summaryTime is how a summary writes a time.
const summaryTime = "2006-01-02 15:04 UTC"

// Facts are the ticket's structured facts (CONTRACT 4): its group's, as
// they were when the ticket was resolved for a resolved ticket
// (store.Ticket.AsClosed).
func Facts(t store.Ticket, g store.Group, timeFormat string) map[string]any {
	g = t.AsClosed(g)
	f := map[string]any{
		"service":        g.Service,
		"environment":    g.LastEnvironment,
		"release":        g.LastRelease,
		"level":          ingest.Level(g.Level).String(),
		"first_seen":     t.FirstSeen.UTC().Format(timeFormat),
		"last_seen":      g.LastSeen.UTC().Format(timeFormat),
		"event_count":    g.EventCount,
		"group_id":       g.ID,
		"reason":         t.Reason,
		"sample_message": g.SampleMessage,
		"fingerprint":    g.Fingerprint,
	}
	if g.LastTraceID != "" {
		f["trace_id"] = g.LastTraceID
	}
	if g.ExceptionType != "" {
		f["exception_type"] = g.ExceptionType
	}
	if g.Culprit != "" {
		f["culprit"] = g.Culprit
	}
	if g.FirstRelease != "" {
		f["first_release"] = g.FirstRelease
	}
	if g.MergedInto != "" {
		f["merged_into"] = g.MergedInto
	}
	return f
}
