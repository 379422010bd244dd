// Package summary holds the rules of INFO summaries (CONTRACT 4 and 7):
// which events a summary counts instead of grouping, the windows they are
// counted in, how an event adds to its window (info and debug counts,
// services, message templates) and how many templates a summary shows.
// Processing (internal/process) applies them, the store keeps the counts,
// and the API, the dashboard and digests read summaries with them.
package summary

import (
	"fmt"
	"hash/fnv"
	"strconv"
	"time"

	"github.com/errata-dev/errata/internal/grouping"
	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/store"
)

// DefaultWindow is the length of a window without ERRATA_INFO_WINDOW.
const DefaultWindow = time.Hour

// TopMessages is how many message templates a summary shows, most
// frequent first: the API's summaries and a digest's latest summary.
const TopMessages = 20

// CheckWindow says whether d may be a window's length: at least a minute,
// and dividing a day evenly, so that windows start at the same times every
// day.
func CheckWindow(d time.Duration) error {
	if d < time.Minute || (24*time.Hour)%d != 0 {
		return fmt.Errorf("%s must be at least 1m and divide a day evenly", d)
	}
	return nil
}

// Window is the window of length d that received holds: windows follow one
// another from the Unix epoch, so a batch's window depends only on when it
// was received.
func Window(received time.Time, d time.Duration) (start, end time.Time) {
	start = received.Truncate(d)
	return start, start.Add(d)
}

// Counts reports whether an event of level l is counted in a summary
// rather than grouped: debug and info are; warn and above make groups.
func Counts(l ingest.Level) bool { return l <= ingest.Info }

// Templates are a window's message templates being counted, by template.
type Templates map[string]*store.TemplateCount

// NewDelta starts the counts of a project's window from received.
func NewDelta(projectID string, received time.Time, d time.Duration) *store.InfoDelta {
	start, end := Window(received, d)
	return &store.InfoDelta{ProjectID: projectID, WindowStart: start, WindowEnd: end, Services: map[string]int64{}}
}

// Template is a message's template (grouping.Parameterize) and its
// TemplateHash.
type Template struct{ Text, Hash string }

// TemplateOf is the Template of msg.
func TemplateOf(msg string) Template {
	tpl := grouping.Parameterize(msg)
	return Template{Text: tpl, Hash: TemplateHash(tpl)}
}

// Add counts e (an event Counts) in its window's delta d and templates:
// event_count counts info events and debug_count debug ones, each event
// once (CONTRACT 7); every event counts for its service and for tpl, its
// message's template (TemplateOf, or a memo of it), whose first message is
// kept as its sample.
func Add(d *store.InfoDelta, e *ingest.Event, templates Templates, tpl Template) {
	if e.Level == ingest.Debug {
		d.Debug++
	} else {
		d.Events++
	}
	d.Services[e.Service]++
	t := templates[tpl.Text]
	if t == nil {
		t = &store.TemplateCount{Hash: tpl.Hash, Template: tpl.Text, Sample: e.Message}
		templates[tpl.Text] = t
	}
	t.Count++
}

// TemplateHash names a template in its window: the summaries of a window
// written by several batches add to the same template row.
func TemplateHash(tpl string) string {
	h := fnv.New64a()
	_, _ = h.Write([]byte(tpl))
	return strconv.FormatUint(h.Sum64(), 16)
}
