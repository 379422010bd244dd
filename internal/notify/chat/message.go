package chat

import (
	"fmt"
	"strings"
	"time"

	"github.com/errata-dev/errata/internal/notify/notice"
)

// message is a notification as every format lays it out: what to say, in
// plain text, each one-line field cleaned and clipped, nothing escaped or
// cut to a target's limits yet (each renderer does that).
type message struct {
	event    string
	severity string        // a ticket's severity word; "" for digests and tests
	heading  string        // why it is sent, one line
	title    string        // one line
	summary  string        // paragraphs
	facts    []notice.Fact // label (ours) and one-line value
	items    []item        // a digest's tickets
	total    int           // a digest's ticket count, at least len(items)
	failing  []string
	links    []link // the first is the message's main link
	footer   string
	at       time.Time // when it happened: a ticket's last event, a digest's end
}

// item is one ticket of a digest's list.
type item struct {
	severity, title, url, when string
}

// link is an address with its label; url is always a safe absolute http(s)
// address (see safeURL).
type link struct {
	label, url string
}

// Clip lengths, in runes, applied before any target cuts further: no target
// shows more than this of any one field.
const (
	clipName    = 100
	clipTitle   = 1000
	clipSummary = 8000
	clipFact    = 500
	clipItem    = 300 // a digest's ticket title
)

// Time layouts of digests, in the digest's zone (ticket times are
// notice.TimeLayout, in UTC).
const (
	periodTime  = "Mon 2 Jan 2006 15:04 MST"
	createdTime = "Mon 2 Jan 15:04"
)

func newMessage(n notice.Notification) *message {
	project := one(n.Project.Name, clipName)
	if project == "" {
		project = "(unnamed project)"
	}
	var m *message
	switch {
	case n.Ticket != nil:
		m = ticketMessage(n.Ticket, project)
	case n.Digest != nil:
		m = digestMessage(n.Digest, project)
	default:
		m = testMessage(n.Test, project)
	}
	m.footer = "Errata · " + project
	return m
}

func ticketMessage(t *notice.Ticket, project string) *message {
	m := &message{event: notice.EventTicket, severity: word(t.Severity), title: one(t.Title, clipTitle),
		summary: paragraphs(clipMarked(t.Summary, clipSummary)), at: t.LastSeen}
	if m.title == "" {
		m.title = "(untitled ticket)"
	}
	switch t.Reason {
	case "regression":
		m.heading = "Regression in " + project + ": a resolved error is back"
	case "spike":
		m.heading = "Spike in " + project + ": this error's rate jumped"
	case "unignored":
		m.heading = "Back in " + project + ": an ignored error met its condition"
	default:
		m.heading = strings.TrimSpace("New "+m.severity) + " ticket in " + project
	}
	add := func(name, value string) {
		v := one(value, clipFact)
		if v == "" {
			return
		}
		if name = one(name, clipName); name == "" {
			name = "Fact"
		}
		m.facts = append(m.facts, notice.Fact{Name: name, Value: v})
	}
	for _, f := range t.Details() {
		add(f.Name, f.Value)
	}
	if u := safeURL(t.URL); u != "" {
		m.links = append(m.links, link{"Open the ticket in Errata", u})
	}
	return m
}

func digestMessage(d *notice.Digest, project string) *message {
	loc, err := time.LoadLocation(d.Timezone)
	if err != nil || d.Timezone == "" || d.Timezone == "Local" {
		loc = time.UTC
	}
	m := &message{event: notice.EventDigest, title: "Digest for " + project, total: max(d.TicketCount, len(d.Tickets)), at: d.End,
		summary: d.Start.In(loc).Format(periodTime) + " to " + d.End.In(loc).Format(periodTime) + " (" + loc.String() + ")"}
	m.heading = m.title + ": " + notice.Plural(m.total, "new ticket", "new tickets")
	if n := len(d.FailingChannels); n > 0 {
		m.heading += ", " + notice.Plural(n, "failing channel", "failing channels")
	}
	m.facts = append(m.facts, notice.Fact{Name: "New tickets", Value: notice.Number(m.total)})
	if i := d.Info; i != nil {
		m.facts = append(m.facts,
			notice.Fact{Name: "INFO events", Value: notice.Number(i.EventCount) + " in " + notice.Plural(i.WindowCount, "window", "windows")},
			notice.Fact{Name: "Busiest window", Value: i.BusiestStart.In(loc).Format(periodTime) + " to " + i.BusiestEnd.In(loc).Format(periodTime) +
				", " + notice.Plural(i.BusiestCount, "event", "events")})
	} else {
		m.facts = append(m.facts, notice.Fact{Name: "INFO events", Value: "none in this period"})
	}
	if n := len(d.FailingChannels); n > 0 {
		m.facts = append(m.facts, notice.Fact{Name: "Failing channels", Value: notice.Number(n)})
	}
	for _, t := range d.Tickets {
		title := one(t.Title, clipItem)
		if title == "" {
			title = "(untitled ticket)"
		}
		m.items = append(m.items, item{severity: word(t.Severity), title: title, url: safeURL(t.URL),
			when: t.CreatedAt.In(loc).Format(createdTime)})
	}
	for _, c := range d.FailingChannels {
		name := one(c.Name, clipName)
		if kind := word(c.Type); kind != "" {
			name += " (" + kind + ")"
		}
		m.failing = append(m.failing, name+": "+notice.Plural(c.ConsecutiveFailures, "failed delivery", "failed deliveries")+" in a row")
	}
	if u := safeURL(d.URL); u != "" {
		m.links = append(m.links, link{"Open " + project + " in Errata", u})
	}
	if d.Info != nil {
		if u := safeURL(d.Info.URL); u != "" {
			m.links = append(m.links, link{"INFO summaries", u})
		}
	}
	return m
}

func testMessage(t *notice.Test, project string) *message {
	if t == nil {
		t = &notice.Test{}
	}
	channel := one(t.Channel.Name, clipName)
	if channel == "" {
		channel = "(unnamed channel)"
	}
	m := &message{event: notice.EventTest, title: "Test notification", heading: "Test notification for " + channel,
		summary: "This is a test of the channel " + channel + " of the Errata project " + project +
			". If you can read it, ticket alerts and digests for this channel reach this chat."}
	if u := safeURL(t.URL); u != "" {
		m.links = append(m.links, link{"Channel settings", u})
	}
	return m
}

// ticketLines are a digest's tickets, one line each: the severity's badge,
// the title (escaped and cut to n units of u, passed to link with the
// address when it has one), and when it was created.
func (m *message) ticketLines(n int, u unit, esc escaper, link func(url, text string) string) []string {
	lines := make([]string, 0, len(m.items))
	for _, it := range m.items {
		t := fit(it.title, n, u, esc)
		if it.url != "" && link != nil {
			t = link(it.url, t)
		}
		lines = append(lines, badge(it.severity)+" "+t+" · "+it.when)
	}
	return lines
}

// failingLines are a digest's failing channels, one line each after
// bullet, escaped and cut to n units of u.
func (m *message) failingLines(bullet string, n int, u unit, esc escaper) []string {
	lines := make([]string, len(m.failing))
	for i, f := range m.failing {
		lines[i] = bullet + fit(f, n, u, esc)
	}
	return lines
}

// markdownLink is a Markdown link to u (safeURL escaped its parentheses).
func markdownLink(u, text string) string { return "[" + text + "](" + u + ")" }

// one cleans s to one line of at most n runes.
func one(s string, n int) string { return line(clipMarked(s, n)) }

// word cleans a short label such as a severity or a channel type to
// lower-case ASCII letters and digits, which no target reads as markup
// (the known ones are single words).
func word(s string) string {
	var b strings.Builder
	for _, r := range clip(s, 80) {
		switch {
		case r >= 'A' && r <= 'Z':
			b.WriteRune(r + 'a' - 'A')
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return fit(b.String(), 20, inBytes, nil)
}

// badge marks a severity at a glance; the words stay, for those who do not
// see colours.
func badge(severity string) string {
	switch severity {
	case "critical":
		return "🔴 critical"
	case "high":
		return "🟠 high"
	case "medium":
		return "🟡 medium"
	case "":
		return ""
	}
	return "⚪ " + severity
}

// badged is the title after the severity's badge, when there is one.
func (m *message) badged() string {
	if m.severity == "" {
		return m.title
	}
	return badge(m.severity) + " · " + m.title
}

// maxURL is the longest address linked; every target takes at least this.
const maxURL = 2000

// safeURL returns u when it is an absolute http(s) address that every
// target can carry inside its link syntax, with the characters those
// syntaxes use escaped, and "" otherwise.
func safeURL(u string) string {
	if len(u) > maxURL || !(strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "http://")) {
		return ""
	}
	host := u[strings.Index(u, "//")+2:]
	if host == "" || host[0] == '/' || host[0] == '?' || host[0] == '#' {
		return ""
	}
	var b strings.Builder
	for i := 0; i < len(u); i++ {
		switch c := u[i]; {
		case c <= ' ' || c >= 0x7f || c == '"' || c == '<' || c == '>' || c == '\\' || c == '`' || c == '{' || c == '}':
			return "" // not a URL as our own addresses are written
		case c == '(' || c == ')' || c == '|':
			fmt.Fprintf(&b, "%%%02X", c) // they end Slack's <url|label> and Markdown's [label](url)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}
