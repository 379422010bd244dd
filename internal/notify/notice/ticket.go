package notice

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/errata-dev/errata/internal/view"
)

// extraFacts are the ticket facts (view.Ticket.Facts keys) that TicketOf
// keeps beyond the ones Ticket names, in the order shown, with their
// labels. The group id and fingerprint are left to the dashboard.
var extraFacts = []struct{ key, label string }{
	{"exception_type", "Exception"},
	{"culprit", "Culprit"},
	{"level", "Level"},
	{"first_release", "First release"},
	{"trace_id", "Trace ID"},
	{"sample_message", "Sample message"},
}

// TicketOf builds a ticket alert from the ticket object of a webhook body
// or of GET /v1/tickets/{id}, whose facts it reads whether they were just
// built (int64 counts) or decoded from JSON (float64 or json.Number).
// ticketURL is the body's ticket_url; "" takes t.URL.
func TicketOf(t view.Ticket, ticketURL string) *Ticket {
	if ticketURL == "" {
		ticketURL = t.URL
	}
	f := t.Facts
	out := &Ticket{ID: t.ID, Severity: t.Severity, Title: t.Title, Summary: t.Summary, URL: ticketURL,
		Reason: factString(f["reason"]), Service: factString(f["service"]), Environment: factString(f["environment"]),
		Release: factString(f["release"]), EventCount: factInt(f["event_count"]),
		FirstSeen: factTime(f["first_seen"]), LastSeen: factTime(f["last_seen"])}
	if a := t.Assignee; a != nil { // chat messages and emails mention the assignee
		name := a.Name
		if name == "" {
			name = a.Email
		}
		out.Facts = append(out.Facts, Fact{Name: "Assignee", Value: name})
	}
	for _, e := range extraFacts {
		if v := factString(f[e.key]); v != "" {
			out.Facts = append(out.Facts, Fact{Name: e.label, Value: v})
		}
	}
	return out
}

// TimeLayout is how a ticket's times are shown: in UTC, to the minute.
const TimeLayout = "2006-01-02 15:04 UTC"

// Details are every fact of the ticket in the order shown, labelled:
// service, environment, release, events, first and last seen, then Facts.
// Empty values are left out; values are as stored (renderers clean them).
func (t *Ticket) Details() []Fact {
	var out []Fact
	add := func(name, value string) {
		if strings.TrimSpace(value) != "" {
			out = append(out, Fact{Name: name, Value: value})
		}
	}
	add("Service", t.Service)
	add("Environment", t.Environment)
	add("Release", t.Release)
	if t.EventCount > 0 {
		add("Events", Number(t.EventCount))
	}
	if !t.FirstSeen.IsZero() {
		add("First seen", t.FirstSeen.UTC().Format(TimeLayout))
	}
	if !t.LastSeen.IsZero() {
		add("Last seen", t.LastSeen.UTC().Format(TimeLayout))
	}
	for _, f := range t.Facts {
		add(f.Name, f.Value)
	}
	return out
}

func factString(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

func factInt(v any) int64 {
	switch v := v.(type) {
	case int64:
		return v
	case int:
		return int64(v)
	case float64:
		return int64(v)
	case json.Number:
		n, _ := v.Int64()
		return n
	}
	return 0
}

func factTime(v any) time.Time {
	switch v := v.(type) {
	case time.Time:
		return v
	case string:
		if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
			return t
		}
	}
	return time.Time{}
}

// Number formats n with thousands separators: 12,345.
func Number[N int | int64](n N) string {
	s := strconv.FormatInt(int64(n), 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// Plural is n and the noun that goes with it: "1 ticket", "2,000 tickets".
func Plural[N int | int64](n N, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return Number(n) + " " + many
}
