package web

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/errata-dev/errata/internal/view"
)

// The ticket page shows the facts the API's ticket object carries
// (tickets.Facts, unchanged there), with readable labels, in an order that
// reads top-down, times as local <time> elements and counts with thousands
// separators.

// fact is one row of the ticket's facts table.
type fact struct {
	Label string
	// Text is the value as text; "" shows a dash.
	Text string
	// Time, when set, is shown as a <time> element instead of Text.
	Time time.Time
	// Href links the value (the error group).
	Href string
	// Code shows the value in monospace (identifiers, messages, frames).
	Code bool
}

// factKind says how a fact's value is shown.
type factKind int

const (
	factText factKind = iota
	factTime
	factCount
	factCode
	factGroup  // a group id, linked
	factSymbol // code naming a type or function, without __main__.
)

// factName is the label and kind of a key of tickets.Facts.
type factName struct {
	key, label string
	kind       factKind
}

// factLabels are the labels of tickets.Facts' keys, in the order shown.
var factLabels = []factName{
	{"reason", "Reason", factText},
	{"level", "Level", factText},
	{"service", "Service", factText},
	{"environment", "Environment", factText},
	{"release", "Release", factText},
	{"first_release", "First release", factText},
	{"first_seen", "First seen", factTime},
	{"last_seen", "Last seen", factTime},
	{"event_count", "Event count", factCount},
	{"exception_type", "Exception type", factSymbol},
	{"culprit", "Culprit", factSymbol},
	{"sample_message", "Sample message", factCode},
	{"fingerprint", "Fingerprint", factCode},
	{"trace_id", "Trace ID", factCode},
	{"group_id", "Error group", factGroup},
	{"merged_into", "Merged into", factGroup},
}

// readableFacts lays out a ticket's facts: the known keys in factLabels'
// order, then any other (a fact added to the API later) by key, labelled
// from it.
func readableFacts(facts map[string]any) []fact {
	out := make([]fact, 0, len(facts))
	for _, l := range factLabels {
		v, ok := facts[l.key]
		if !ok {
			continue
		}
		out = append(out, newFact(l.label, l.kind, v))
	}
	var rest []string
	for k := range facts {
		if !slices.ContainsFunc(factLabels, func(l factName) bool { return l.key == k }) {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	for _, k := range rest {
		out = append(out, newFact(labelOf(k), factText, facts[k]))
	}
	return out
}

// newFact shows value v of kind k.
func newFact(label string, k factKind, v any) fact {
	f := fact{Label: label, Text: fmt.Sprint(v), Code: k == factCode || k == factSymbol}
	switch k {
	case factSymbol:
		f.Text = symbol(f.Text)
	case factTime:
		if t, err := time.Parse(view.TimeFormat, f.Text); err == nil {
			f.Time = t
		}
	case factCount:
		switch n := v.(type) {
		case int64, int:
			f.Text = count(n)
		}
	case factGroup:
		if f.Text != "" {
			f.Href, f.Code = "/groups/"+f.Text, true
		}
	}
	return f
}

// labelOf makes a label of a key: "first_release" → "First release".
func labelOf(key string) string {
	s := strings.ReplaceAll(key, "_", " ")
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
