// Package email renders Errata's notification emails: a ticket alert, a
// digest and a channel test, each as a mail.Message with a plain-text part
// and an HTML alternative.
//
// Everything in the inputs is treated as untrusted (ticket titles, messages
// and facts come from ingested events): the HTML part is built with
// html/template, which escapes by context; subjects are cut to one line of
// at most 200 runes so they cannot add header fields; and the HTML uses
// inline CSS only, with no images, fonts or other external resources.
package email

import (
	"time"

	"github.com/errata-dev/errata/internal/mail"
)

// Ticket is a ticket alert (spec 6.1, sent for critical and high tickets).
type Ticket struct {
	Project, ProjectID string
	TicketID           string
	Severity           string
	Title              string
	Summary            string
	// URL is the ticket's dashboard address.
	URL   string
	Facts map[string]any
	// Reason is why the alert is sent: new, regression or spike.
	Reason string
}

// Digest is a project's digest for the period [Start, End).
type Digest struct {
	Project, ProjectID string
	Start, End         time.Time
	// Timezone is the schedule's IANA zone; every time is shown in it.
	Timezone string
	// TicketCount is the number of the period's tickets, which may be more
	// than Tickets holds.
	TicketCount int
	// Tickets are shown in the order given (severity, then newest), at most
	// maxTickets of them.
	Tickets         []DigestTicket
	Info            *DigestInfo // nil when the period has no INFO summaries
	FailingChannels []FailingChannel
	// URL is the project's dashboard address.
	URL string
}

// DigestTicket is one line of a digest's ticket list.
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

// FailingChannel is a channel of the project whose health is failing.
type FailingChannel struct {
	Name, Type          string
	ConsecutiveFailures int64
}

// Test is a channel test.
type Test struct {
	Project, Channel string
}

// maxTickets is the most tickets a digest lists (spec 6.2).
const maxTickets = 100

// RenderTicket renders a ticket alert. Its subject reads
// "[critical] <project>: <title>", with " (spike)" or " (regression)" after
// the title when that is the reason. unsubscribeURL, the channel's settings
// page, becomes the List-Unsubscribe header and the footer link.
func RenderTicket(t Ticket, unsubscribeURL string) mail.Message {
	v := ticketView{page: newPage(t.Project, unsubscribeURL), Severity: word(t.Severity), Color: severityColor(t.Severity),
		Title: line(t.Title), Summary: multiline(t.Summary), URL: httpURL(t.URL), Reason: reason(t.Reason), Facts: facts(t.Facts)}
	v.Heading = v.heading()
	tail := ""
	if v.Reason != "" {
		tail = " (" + v.Reason + ")"
	}
	v.Subject = subject("["+v.Severity+"] "+cut(v.Project, maxProject)+": ", t.Title, tail)
	return render(ticketTemplates, v, unsubscribeURL)
}

// RenderDigest renders a digest: the period in its zone, the tickets (at
// most 100, then "and N more"), the INFO figures and the project's failing
// channels.
func RenderDigest(d Digest, unsubscribeURL string) mail.Message {
	v := newDigestView(d, newPage(d.Project, unsubscribeURL))
	tail := plural(v.TicketCount, "new ticket", "new tickets")
	if n := len(d.FailingChannels); n > 0 {
		tail += ", " + plural(n, "failing channel", "failing channels")
	}
	v.Subject = subject("[digest] ", d.Project, ": "+tail)
	return render(digestTemplates, v, unsubscribeURL)
}

// RenderTest renders a channel test.
func RenderTest(t Test, unsubscribeURL string) mail.Message {
	v := testView{page: newPage(t.Project, unsubscribeURL), Channel: line(t.Channel)}
	v.Subject = subject("[test] "+cut(v.Project, maxProject)+": test notification for ", t.Channel, "")
	return render(testTemplates, v, unsubscribeURL)
}
