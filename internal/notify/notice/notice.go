// Package notice is the one model of Errata's notifications: a ticket
// alert, a digest or a channel test, in no target's shape. The delivery
// engine builds a Notification from the same data as the errata webhook
// bodies (the ticket object, the digest object) and the chat (package chat)
// and email (package email) renderers lay it out.
//
// A Notification is also what a delivery to a chat tool or an email
// address stores, as JSON, when it is queued: it is rendered when it is
// attempted, outside the transaction that queued it. The JSON names are
// therefore a stored format: add fields, never rename them.
package notice

import "time"

// Notification is one ticket alert, digest or channel test. Exactly one of
// Ticket, Digest and Test is set.
type Notification struct {
	Project Ref     `json:"project"`
	Ticket  *Ticket `json:"ticket,omitempty"`
	Digest  *Digest `json:"digest,omitempty"`
	Test    *Test   `json:"test,omitempty"`
}

// Events a notification can be (the Service-Event names of spec 6).
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
	ID   string `json:"id"`
	Name string `json:"name"`
}

// Ticket is a ticket alert (spec 6.1).
type Ticket struct {
	ID       string `json:"id"`
	Severity string `json:"severity"` // critical, high or medium
	Title    string `json:"title"`
	Summary  string `json:"summary"`
	// Reason is why the alert is sent: new, regression or spike.
	Reason      string    `json:"reason"`
	Service     string    `json:"service"`
	Environment string    `json:"environment"`
	Release     string    `json:"release"`
	EventCount  int64     `json:"event_count"`
	FirstSeen   time.Time `json:"first_seen"` // zero when unknown
	LastSeen    time.Time `json:"last_seen"`  // zero when unknown
	// URL is the ticket's dashboard address (ticket_url).
	URL string `json:"url"`
	// Facts are further facts, shown in this order where a target has room.
	Facts []Fact `json:"facts,omitempty"`
}

// Fact is a named value shown with a ticket.
type Fact struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Digest is a project's digest for the period [Start, End) (spec 6.2).
type Digest struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Timezone is the schedule's IANA zone; the period is shown in it.
	Timezone string `json:"timezone"`
	// TicketCount is the number of the period's tickets, which may be more
	// than Tickets holds.
	TicketCount int `json:"ticket_count"`
	// Tickets are listed in the order given (severity, then newest), as
	// many as the target has room for, then "… and N more".
	Tickets         []DigestTicket   `json:"tickets,omitempty"`
	Info            *DigestInfo      `json:"info,omitempty"` // nil when the period has no INFO summaries
	FailingChannels []FailingChannel `json:"failing_channels,omitempty"`
	// URL is the project's dashboard address.
	URL string `json:"url"`
}

// DigestTicket is one ticket of a digest's list.
type DigestTicket struct {
	Severity  string    `json:"severity"`
	Title     string    `json:"title"`
	URL       string    `json:"url"`
	CreatedAt time.Time `json:"created_at"`
}

// DigestInfo sums up the period's INFO summaries.
type DigestInfo struct {
	EventCount   int64     `json:"event_count"`
	WindowCount  int64     `json:"window_count"`
	BusiestStart time.Time `json:"busiest_start"`
	BusiestEnd   time.Time `json:"busiest_end"`
	BusiestCount int64     `json:"busiest_count"`
	// URL is the dashboard address of the period's summaries.
	URL string `json:"url"`
}

// FailingChannel is a channel of the project whose deliveries fail.
type FailingChannel struct {
	Name                string `json:"name"`
	Type                string `json:"type"`
	ConsecutiveFailures int64  `json:"consecutive_failures"`
}

// Test is a channel test (spec 6.3).
type Test struct {
	Channel Ref `json:"channel"`
	// URL is the channel's settings page in the dashboard, or "".
	URL string `json:"url"`
}
