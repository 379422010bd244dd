package chat

import (
	"strings"
	"time"

	"github.com/errata-dev/errata/internal/notify/notice"
)

// Discord: an execute-webhook body, `content` plus one embed. Discord
// counts characters; UTF-16 code units are counted here, never fewer.
const (
	discordContent     = 2000
	discordTitle       = 256
	discordDescription = 4096
	discordFields      = 25
	discordFieldName   = 256
	discordFieldValue  = 1024
	discordFooterText  = 2048
	discordEmbeds      = 10
	// discordTotal caps the sum of every embed's title, description, field
	// names and values, footer text and author name.
	discordTotal = 6000
)

type discordMessage struct {
	Content         string          `json:"content,omitempty"`
	Embeds          []discordEmbed  `json:"embeds"`
	AllowedMentions discordMentions `json:"allowed_mentions"`
}

// discordMentions with an empty parse list lets no text ping anyone
// (@everyone, @here, users or roles), whatever a title says.
type discordMentions struct {
	Parse []string `json:"parse"`
}

type discordEmbed struct {
	Title       string         `json:"title,omitempty"`
	URL         string         `json:"url,omitempty"`
	Description string         `json:"description,omitempty"`
	Color       int            `json:"color"`
	Fields      []discordField `json:"fields,omitempty"`
	Footer      *discordFooter `json:"footer,omitempty"`
	Timestamp   string         `json:"timestamp,omitempty"`
}

type discordField struct {
	Name   string `json:"name"`
	Value  string `json:"value"`
	Inline bool   `json:"inline"`
}

type discordFooter struct {
	Text string `json:"text"`
}

// discordEscape puts a backslash before every character Discord's Markdown
// reads (emphasis, code, spoilers, quotes, headings, links, and the <…> of
// mentions, channels and timestamps). List markers and parentheses are
// left: without "[" a link cannot start, and a list does no harm.
func discordEscape(r rune, b *strings.Builder) {
	if strings.ContainsRune("\\*_~`|>#[]<@", r) {
		b.WriteByte('\\')
	}
	b.WriteRune(r)
}

// colour is a severity's or an event's colour, as an RGB integer.
func colour(m *message) int {
	switch {
	case m.event == notice.EventDigest:
		return 0x2563eb
	case m.event == notice.EventTest:
		return 0x16a34a
	case m.severity == "critical":
		return 0xb91c1c
	case m.severity == "high":
		return 0xc2410c
	case m.severity == "medium":
		return 0xa16207
	}
	return 0x52525b
}

func discordLink(l link) string {
	return markdownLink(l.url, fit(l.label, 200, inUTF16, discordEscape))
}

func buildDiscord(m *message, level int) built {
	mt := &meter{u: inUTF16}
	esc := func(s string, n int) string { return fit(s, n, inUTF16, discordEscape) }
	e := discordEmbed{Color: colour(m)}
	title := m.badged()
	e.Title = mt.add(esc(title, discordTitle))
	if len(m.links) > 0 {
		e.URL = m.links[0].url
	}

	// The description: the summary (or the period), the other links, then
	// a digest's tickets while there is room.
	var d []string
	room := min(discordDescription, scaled(2000, level))
	if m.event == notice.EventDigest {
		room = min(discordDescription, scaled(3000, level))
	}
	if m.summary != "" {
		d = append(d, esc(m.summary, room/2))
	}
	var links []string
	for _, l := range m.links {
		links = append(links, discordLink(l))
	}
	if len(links) > 0 && inUTF16.count(strings.Join(links, " · "))+2 < room-inUTF16.count(strings.Join(d, "")) {
		d = append(d, strings.Join(links, " · "))
	}
	if m.event == notice.EventDigest {
		left := room - inUTF16.count(strings.Join(d, "\n\n")) - 2
		lines := m.ticketLines(scaled(200, level), inUTF16, discordEscape, markdownLink)
		d = append(d, textList("**New tickets**", lines, m.total, left, inUTF16))
	}
	e.Description = mt.add(strings.Join(d, "\n\n"))

	for _, f := range m.facts[:min(len(m.facts), discordFields-1)] {
		name := mt.add(esc(f.Name, 100))
		e.Fields = append(e.Fields, discordField{Name: name, Value: mt.add(esc(f.Value, scaled(250, level))), Inline: true})
	}
	if len(m.failing) > 0 {
		lines := m.failingLines("• ", scaled(200, level), inUTF16, discordEscape)
		v := textList("", lines, len(lines), min(discordFieldValue, scaled(800, level)), inUTF16)
		e.Fields = append(e.Fields, discordField{Name: mt.add("Failing channels"), Value: mt.add(v)})
	}
	// Footers show no Markdown and mention nobody: plain text.
	e.Footer = &discordFooter{Text: mt.add(fit(m.footer, 200, inUTF16, nil))}
	if !m.at.IsZero() {
		e.Timestamp = m.at.UTC().Format(time.RFC3339)
	}
	body := encode(discordMessage{Content: esc(m.heading, scaled(300, level)), Embeds: []discordEmbed{e},
		AllowedMentions: discordMentions{Parse: []string{}}})
	return built{body: body, size: mt.used}
}

// textList is a heading (unless "") and lines, one a line, within budget
// units of u, then "… and N more" when not every one of total is listed.
func textList(heading string, lines []string, total, budget int, u unit) string {
	const moreRoom = 40
	var out []string
	if heading != "" {
		out = append(out, heading)
	}
	if total == 0 {
		return strings.Join(append(out, "None in this period."), "\n")
	}
	used := u.count(heading)
	shown := 0
	for _, l := range lines {
		n := u.count(l) + 1
		if used+n+moreRoom > budget {
			break
		}
		out = append(out, l)
		used += n
		shown++
	}
	if more := total - shown; more > 0 {
		out = append(out, "… and "+notice.Number(more)+" more")
	}
	return strings.Join(out, "\n")
}
