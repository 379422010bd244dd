package email

import (
	"strings"
	"time"

	"github.com/errata-dev/errata/internal/notify/notice"
)

// ticketView is a Ticket as its templates show it: one-line, cut fields.
type ticketView struct {
	page
	Heading, Severity, Color, Title, Summary, URL, Reason string
	Facts                                                 []fact
}

type fact struct{ Name, Value string }

// heading says why the alert is sent.
func (v ticketView) heading() string {
	switch v.Reason {
	case "regression":
		return "Regression in " + v.Project + ": a resolved error is back"
	case "spike":
		return "Spike in " + v.Project + ": this error's rate jumped"
	case "unignored":
		return "Back in " + v.Project + ": an ignored error met its condition"
	}
	return "New " + v.Severity + " ticket in " + v.Project
}

// facts returns the ticket's facts (notice.Ticket.Details) as name and
// value lines.
func facts(list []notice.Fact) []fact {
	out := make([]fact, 0, len(list))
	for _, f := range list {
		if v := cut(line(f.Value), maxFact); v != "" {
			out = append(out, fact{Name: cut(line(f.Name), 60), Value: v})
		}
	}
	return out
}

// severityColor is the badge colour of a severity; unknown ones are grey.
func severityColor(s string) string {
	switch s {
	case "critical":
		return "#b91c1c"
	case "high":
		return "#c2410c"
	case "medium":
		return "#a16207"
	}
	return "#52525b"
}

// multiline keeps s's line breaks but turns other control characters into
// spaces, for free text such as a summary.
func multiline(s string) string {
	s = strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\r\n", "\n")
	parts := strings.Split(s, "\n")
	for i, p := range parts {
		parts[i] = line(p)
	}
	return strings.TrimSpace(strings.Join(parts, "\n"))
}

// digestView is a Digest as its templates show it, times in its zone.
type digestView struct {
	page
	Zone, Start, End string
	TicketCount      int
	Tickets          []digestTicketView
	More             int
	Info             *infoView
	Failing          []failingView
	URL              string
}

type digestTicketView struct{ Severity, Color, Title, URL, Created string }

type infoView struct{ Events, Windows, BusiestStart, BusiestEnd, BusiestCount, URL string }

type failingView struct{ Name, Type, Failures string }

// Time layouts in the digest's zone.
const (
	periodLayout  = "Mon 2 Jan 2006 15:04 MST"
	createdLayout = "Mon 2 Jan 15:04"
)

func newDigestView(d *notice.Digest, p page) digestView {
	loc, err := time.LoadLocation(d.Timezone)
	if err != nil || d.Timezone == "" || d.Timezone == "Local" {
		loc = time.UTC
	}
	v := digestView{page: p, Zone: loc.String(), Start: d.Start.In(loc).Format(periodLayout), End: d.End.In(loc).Format(periodLayout),
		TicketCount: max(d.TicketCount, len(d.Tickets)), URL: httpURL(d.URL)}
	shown := d.Tickets[:min(len(d.Tickets), maxTickets)]
	for _, t := range shown {
		v.Tickets = append(v.Tickets, digestTicketView{Severity: word(t.Severity), Color: severityColor(t.Severity),
			Title: cut(line(t.Title), 300), URL: httpURL(t.URL), Created: t.CreatedAt.In(loc).Format(createdLayout)})
	}
	v.More = v.TicketCount - len(shown)
	if i := d.Info; i != nil {
		v.Info = &infoView{Events: notice.Number(i.EventCount), Windows: notice.Plural(i.WindowCount, "window", "windows"),
			BusiestStart: i.BusiestStart.In(loc).Format(periodLayout), BusiestEnd: i.BusiestEnd.In(loc).Format(periodLayout),
			BusiestCount: notice.Plural(i.BusiestCount, "event", "events"), URL: httpURL(i.URL)}
	}
	for _, c := range d.FailingChannels {
		v.Failing = append(v.Failing, failingView{Name: cut(line(c.Name), 100), Type: word(c.Type),
			Failures: notice.Plural(c.ConsecutiveFailures, "failed delivery", "failed deliveries") + " in a row"})
	}
	return v
}

// testView is a Test as its templates show it.
type testView struct {
	page
	Channel string
}
