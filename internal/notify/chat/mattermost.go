package chat

import (
	"strings"

	"github.com/errata-dev/errata/internal/notify/notice"
)

// Mattermost: an incoming webhook body in Slack's older shape, `text` plus
// one attachment. Mattermost counts code points. Current servers take
// 16,383 in a post; the message text is kept within the 4,000 every
// server takes, and the whole within 16,383.
const (
	mattermostText  = 4000
	mattermostTotal = 16383
)

type mattermostMessage struct {
	Text        string                 `json:"text"`
	Attachments []mattermostAttachment `json:"attachments"`
}

type mattermostAttachment struct {
	Fallback  string            `json:"fallback"`
	Color     string            `json:"color"`
	Title     string            `json:"title,omitempty"`
	TitleLink string            `json:"title_link,omitempty"`
	Text      string            `json:"text,omitempty"`
	Fields    []mattermostField `json:"fields,omitempty"`
	Footer    string            `json:"footer,omitempty"`
}

type mattermostField struct {
	Title string `json:"title"`
	Value string `json:"value"`
	Short bool   `json:"short"`
}

// mattermostEscape puts a backslash before what Mattermost's Markdown
// reads, and a zero-width space after every @, so that no text can mention
// @channel, @all, @here or a user.
func mattermostEscape(r rune, b *strings.Builder) {
	switch {
	case r == '@':
		b.WriteString("@\u200b")
		return
	case strings.ContainsRune("\\*_~`|>#[]<", r):
		b.WriteByte('\\')
	}
	b.WriteRune(r)
}

// mattermostPlain only breaks mentions, for texts Mattermost shows as they
// are (a linked attachment title, the footer, the notification fallback):
// a zero-width space after every @, and after every <, since Mattermost's
// Slack compatibility rewrites <!channel>, <!here> and <!all> into
// @channel, @here and @all in an attachment's title and fields too.
func mattermostPlain(r rune, b *strings.Builder) {
	b.WriteRune(r)
	if r == '@' || r == '<' {
		b.WriteRune('\u200b')
	}
}

// hexColour is colour(m) as "#rrggbb".
func hexColour(m *message) string {
	const digits = "0123456789abcdef"
	c := colour(m)
	out := []byte{'#', 0, 0, 0, 0, 0, 0}
	for i := 6; i >= 1; i-- {
		out[i] = digits[c&15]
		c >>= 4
	}
	return string(out)
}

func buildMattermost(m *message, level int) built {
	mt := &meter{u: inRunes}
	esc := func(s string, n int) string { return fit(s, n, inRunes, mattermostEscape) }
	a := mattermostAttachment{Color: hexColour(m)}
	title := m.badged()
	if len(m.links) > 0 {
		a.TitleLink = m.links[0].url
		a.Title = mt.add(fit(title, scaled(1000, level), inRunes, mattermostPlain))
	} else {
		a.Title = mt.add(esc(title, scaled(1000, level)))
	}
	fallback := m.heading
	if m.event == notice.EventTicket {
		fallback += ": " + m.title
	}
	a.Fallback = mt.add(fit(fallback, scaled(500, level), inRunes, mattermostPlain))

	var t []string
	if m.summary != "" {
		t = append(t, esc(m.summary, scaled(4000, level)))
	}
	var links []string
	for _, l := range m.links {
		links = append(links, markdownLink(l.url, esc(l.label, 200)))
	}
	if len(links) > 0 {
		t = append(t, strings.Join(links, " · "))
	}
	if m.event == notice.EventDigest {
		lines := m.ticketLines(scaled(300, level), inRunes, mattermostEscape, markdownLink)
		t = append(t, textList("**New tickets**", lines, m.total, scaled(8000, level), inRunes))
	}
	a.Text = mt.add(strings.Join(t, "\n\n"))

	for _, f := range m.facts {
		a.Fields = append(a.Fields, mattermostField{Title: mt.add(fit(f.Name, 100, inRunes, mattermostPlain)),
			Value: mt.add(esc(f.Value, scaled(500, level))), Short: true})
	}
	if len(m.failing) > 0 {
		lines := m.failingLines("- ", scaled(300, level), inRunes, mattermostEscape)
		a.Fields = append(a.Fields, mattermostField{Title: mt.add("Failing channels"),
			Value: mt.add(textList("", lines, len(lines), scaled(2000, level), inRunes))})
	}
	a.Footer = mt.add(fit(m.footer, 300, inRunes, mattermostPlain))

	text := mt.add(esc(m.heading, min(mattermostText, scaled(500, level))))
	body := encode(mattermostMessage{Text: text, Attachments: []mattermostAttachment{a}})
	return built{body: body, size: mt.used}
}
