// Package email renders Errata's emails, each as a mail.Message with a
// plain-text part and an HTML alternative: the notifications (a ticket
// alert, a digest and a channel test, from the model of package notice)
// and the system emails (an invitation).
//
// Everything in the inputs is treated as untrusted (ticket titles, messages
// and facts come from ingested events): the HTML part is built with
// html/template, which escapes by context; subjects are cut to one line of
// at most 200 runes so they cannot add header fields; and the HTML uses
// inline CSS only, with no images, fonts or other external resources.
package email

import (
	"errors"

	"github.com/errata-dev/errata/internal/mail"
	"github.com/errata-dev/errata/internal/notify/notice"
)

// maxTickets is the most tickets a digest lists (spec 6.2).
const maxTickets = 100

// Render renders a notification as an email: a ticket alert, a digest or
// a channel test. The links become the footer's links, and the unsubscribe
// link RFC 8058's one-click List-Unsubscribe. It fails only for a
// notification that is not exactly one of the three.
func Render(n notice.Notification, links Links) (mail.Message, error) {
	switch n.Event() {
	case notice.EventTicket:
		return renderTicket(n.Project.Name, n.Ticket, links), nil
	case notice.EventDigest:
		return renderDigest(n.Project.Name, n.Digest, links), nil
	case notice.EventTest:
		return renderTest(n.Project.Name, n.Test, links), nil
	}
	return mail.Message{}, errors.New("email: a notification is exactly one of a ticket, a digest and a test")
}

// renderTicket renders a ticket alert. Its subject reads
// "[critical] <project>: <title>", with " (spike)", " (regression)" or
// " (unignored)" after the title when that is the reason.
func renderTicket(project string, t *notice.Ticket, links Links) mail.Message {
	v := ticketView{page: newPage(project, links), Severity: word(t.Severity), Color: severityColor(t.Severity),
		Title: line(t.Title), Summary: multiline(t.Summary), URL: httpURL(t.URL), Reason: reason(t.Reason), Facts: facts(t.Details())}
	v.Heading = v.heading()
	tail := ""
	if v.Reason != "" {
		tail = " (" + v.Reason + ")"
	}
	v.Subject = subject("["+v.Severity+"] "+cut(v.Project, maxProject)+": ", t.Title, tail)
	return render(ticketTemplates, v, links.Unsubscribe)
}

// renderDigest renders a digest: the period in its zone, the tickets (at
// most 100, then "and N more"), the INFO figures and the project's failing
// channels.
func renderDigest(project string, d *notice.Digest, links Links) mail.Message {
	v := newDigestView(d, newPage(project, links))
	tail := notice.Plural(v.TicketCount, "new ticket", "new tickets")
	if n := len(d.FailingChannels); n > 0 {
		tail += ", " + notice.Plural(n, "failing channel", "failing channels")
	}
	v.Subject = subject("[digest] ", project, ": "+tail)
	return render(digestTemplates, v, links.Unsubscribe)
}

// renderTest renders a channel test.
func renderTest(project string, t *notice.Test, links Links) mail.Message {
	v := testView{page: newPage(project, links), Channel: line(t.Channel.Name)}
	v.Subject = subject("[test] "+cut(v.Project, maxProject)+": test notification for ", t.Channel.Name, "")
	return render(testTemplates, v, links.Unsubscribe)
}
