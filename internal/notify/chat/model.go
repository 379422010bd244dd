package chat

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/errata-dev/errata/internal/view"
)

// Notification is one ticket alert, digest or channel test, in no
// target's shape. Exactly one of Ticket, Digest and Test is set.
type Notification struct {
	Project Ref
	Ticket  *Ticket
	Digest  *Digest
	Test    *Test
}

// Events a notification can be.
const (
	EventTicket = "ticket"
	EventDigest = "digest"
	EventTest   = "test"
)

// Event names what n is: EventTicket, EventDigest or EventTest, or ""
// when not exactly one of them is set.
func (n Notification) Event() string {
	event, set := "", 0
	if n.Ticket != nil {
		event, set = EventTicket, set+1
	}
	if n.Digest != nil {
		event, set = EventDigest, set+1
	}
	if n.Test != nil {
		event, set = EventTest, set+1
	}
	if set != 1 {
		return ""
	}
	return event
}

// Ref names a project or a channel.
type Ref struct {
	ID   string
	Name string
}

// Ticket is a ticket alert (spec 6.1).
type Ticket struct {
	ID       string
	Severity string // critical, high or medium
	Title    string
	Summary  string
	// Reason is why the alert is sent: new, regression or spike.
	Reason      string
	Service     string
	Environment string
	Release     string
	EventCount  int64
	FirstSeen   time.Time // zero when unknown
	LastSeen    time.Time // zero when unknown
	// URL is the ticket's dashboard address (ticket_url).
	URL string
	// Facts are further facts, shown in this order where a target has room.
	Facts []Fact
}

// Fact is a named value shown with a ticket.
type Fact struct {
	Name  string
	Value string
}

// Digest is a project's digest for the period [Start, End) (spec 6.2).
type Digest struct {
	Start, End time.Time
	// Timezone is the schedule's IANA zone; the period is shown in it.
	Timezone string
	// TicketCount is the number of the period's tickets, which may be more
	// than Tickets holds.
	TicketCount int
	// Tickets are listed in the order given (severity, then newest), as
	// many as the target has room for, then "… and N more".
	Tickets         []DigestTicket
	Info            *DigestInfo // nil when the period has no INFO summaries
	FailingChannels []FailingChannel
	// URL is the project's dashboard address.
	URL string
}

// DigestTicket is one ticket of a digest's list.
type DigestTicket struct {
	Severity, Title, URL string
	CreatedAt            time.Time
}

// DigestInfo sums up the period's INFO summaries.
type DigestInfo struct {
	EventCount, WindowCount  int64
	BusiestStart, BusiestEnd time.Time
	BusiestCount             int64
	// URL is the dashboard address of the period's summaries.
	URL string
}

// FailingChannel is a channel of the project whose deliveries fail.
type FailingChannel struct {
	Name, Type          string
	ConsecutiveFailures int64
}

// Test is a channel test (spec 6.3).
type Test struct {
	Channel Ref
	// URL is the channel's settings page in the dashboard, or "".
	URL string
}

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
	for _, e := range extraFacts {
		if v := factString(f[e.key]); v != "" {
			out.Facts = append(out.Facts, Fact{Name: e.label, Value: v})
		}
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
