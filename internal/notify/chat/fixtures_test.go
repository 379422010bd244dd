package chat

import (
	"strconv"
	"strings"
	"time"

	"github.com/errata-dev/errata/internal/notify/notice"
)

// The notifications the golden files and limit tests render.

var (
	t0      = time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
	appURL  = "https://errata.example.com"
	project = notice.Ref{ID: "prj_01", Name: "Shop"}
)

func sampleTicket() notice.Notification {
	return notice.Notification{Project: project, Ticket: &notice.Ticket{
		ID: "tkt_01", Severity: "critical", Title: "TypeError: cannot read properties of undefined (reading 'id')",
		Summary: "TypeError: cannot read properties of undefined (reading 'id') in checkout (production) at cart.js:42: 1,234 events since 2026-11-22 07:12 UTC, last 2026-11-22 07:57 UTC. Seen in release 4.2.0.",
		Reason:  "new", Service: "checkout", Environment: "production", Release: "4.2.0", EventCount: 1234,
		FirstSeen: t0.Add(-48 * time.Minute), LastSeen: t0.Add(-3 * time.Minute), URL: appURL + "/tickets/tkt_01",
		Facts: []notice.Fact{{Name: "Exception", Value: "TypeError"}, {Name: "Culprit", Value: "cart.js:42"}, {Name: "Trace ID", Value: "4bf92f3577b34da6a3ce929d0e0e4736"}},
	}}
}

func sampleRegression() notice.Notification {
	n := sampleTicket()
	t := *n.Ticket
	t.Severity, t.Reason, t.Facts = "high", "regression", nil
	t.Title = "payment_gateway_timeout: upstream took > 30s & gave up"
	n.Ticket = &t
	return n
}

func sampleDigest() notice.Notification {
	return notice.Notification{Project: project, Digest: &notice.Digest{
		Start: t0.Add(-24 * time.Hour), End: t0, Timezone: "Europe/Paris", TicketCount: 3,
		Tickets: []notice.DigestTicket{
			{Severity: "critical", Title: "TypeError: cannot read properties of undefined", URL: appURL + "/tickets/tkt_01", CreatedAt: t0.Add(-2 * time.Hour)},
			{Severity: "high", Title: "payment_gateway_timeout", URL: appURL + "/tickets/tkt_02", CreatedAt: t0.Add(-5 * time.Hour)},
			{Severity: "medium", Title: "slow query on orders (1.2 s)", URL: appURL + "/tickets/tkt_03", CreatedAt: t0.Add(-9 * time.Hour)},
		},
		Info: &notice.DigestInfo{EventCount: 120345, WindowCount: 24, BusiestStart: t0.Add(-6 * time.Hour), BusiestEnd: t0.Add(-5 * time.Hour),
			BusiestCount: 20001, URL: appURL + "/projects/prj_01/summaries?from=2026-11-21T08:00:00.000Z&to=2026-11-22T08:00:00.000Z"},
		FailingChannels: []notice.FailingChannel{{Name: "Ops pager", Type: "webhook", ConsecutiveFailures: 3}},
		URL:             appURL + "/projects/prj_01",
	}}
}

func sampleQuietDigest() notice.Notification {
	return notice.Notification{Project: project, Digest: &notice.Digest{Start: t0.Add(-24 * time.Hour), End: t0, Timezone: "UTC", URL: appURL + "/projects/prj_01",
		Info: &notice.DigestInfo{EventCount: 1, WindowCount: 1, BusiestStart: t0.Add(-time.Hour), BusiestEnd: t0, BusiestCount: 1}}}
}

func sampleTest() notice.Notification {
	return notice.Notification{Project: project, Test: &notice.Test{Channel: notice.Ref{ID: "chn_01", Name: "#alerts"}, URL: appURL + "/channels/chn_01"}}
}

// goldenCases are rendered in every format into testdata/golden/.
var goldenCases = []struct {
	name string
	n    func() notice.Notification
}{
	{"ticket", sampleTicket},
	{"regression", sampleRegression},
	{"digest", sampleDigest},
	{"digest-quiet", sampleQuietDigest},
	{"test", sampleTest},
}

// hostile is text that tries every markup and mention the targets know,
// HTML, control characters, invalid UTF-8, bidirectional overrides and
// characters outside the BMP.
const hostile = "@everyone @here <!channel> <!here> <@U123> <users/all> <#C1> <t:1:R> " +
	"*bold* _it_ ~s~ `code` ||spoiler|| > quote\n# head\n- list [x](https://evil.example) " +
	"<script>alert(1)</script> &amp; \"q\" 'a' \\ \x00 \x1b[31m \u202e gnirts \xff\xfe 😀👨‍👩‍👧 漢字 "

// long repeats s to at least n bytes.
func long(s string, n int) string { return strings.Repeat(s, n/len(s)+1) }

// hostileCases are the notifications the limit tests render in every
// format: each must come out valid and within every limit.
func hostileCases() map[string]notice.Notification {
	cases := map[string]notice.Notification{}
	for _, filler := range []struct{ name, s string }{
		{"ascii", "x"}, {"markup", hostile}, {"astral", "😀"}, {"cjk", "漢"}, {"quotes", `"\`}, {"amp", "&<>"},
		{"nul", "\x00"}, {"combining", "e\u0301"},
	} {
		title := long(filler.s, 10000)
		t := sampleTicket()
		t.Project.Name = long(filler.s, 10000)
		t.Ticket.Title, t.Ticket.Summary = title, long(filler.s+"\n", 100000)
		t.Ticket.Service, t.Ticket.Environment, t.Ticket.Release = title, title, title
		for i := range 30 {
			t.Ticket.Facts = append(t.Ticket.Facts, notice.Fact{Name: "Fact " + strconv.Itoa(i) + title, Value: title})
		}
		cases["ticket-"+filler.name] = t

		d := sampleDigest()
		d.Project.Name = title
		d.Digest.TicketCount = 250
		d.Digest.Tickets = nil
		for i := range 100 {
			d.Digest.Tickets = append(d.Digest.Tickets, notice.DigestTicket{Severity: []string{"critical", "high", "medium", title}[i%4],
				Title: title, URL: appURL + "/tickets/tkt_" + strconv.Itoa(i), CreatedAt: t0})
		}
		d.Digest.FailingChannels = nil
		for i := range 50 {
			d.Digest.FailingChannels = append(d.Digest.FailingChannels, notice.FailingChannel{Name: title, Type: title, ConsecutiveFailures: int64(i)})
		}
		d.Digest.Timezone = title
		cases["digest-"+filler.name] = d

		cases["test-"+filler.name] = notice.Notification{Project: notice.Ref{ID: "prj", Name: title}, Test: &notice.Test{Channel: notice.Ref{ID: "chn", Name: title}, URL: appURL + "/channels/chn"}}
	}
	// Addresses as long as are linked, and addresses that are not safe.
	lu := sampleDigest()
	for i := range lu.Digest.Tickets {
		lu.Digest.Tickets[i].URL = appURL + "/tickets/" + long("a", maxURL-len(appURL)-10)
	}
	lu.Digest.URL = appURL + "/p?" + long("q=(|)&", 1900)
	cases["digest-long-urls"] = lu
	bad := sampleTicket()
	bad.Ticket.URL = "javascript:alert(1)//https://x"
	cases["ticket-bad-url"] = bad
	empty := notice.Notification{Ticket: &notice.Ticket{}}
	cases["ticket-empty"] = empty
	return cases
}
