package chat

import (
	"strings"

	"github.com/errata-dev/errata/internal/notify/notice"
)

// Slack: an incoming webhook message with a `text` fallback (what
// notifications show) and Block Kit `blocks`. Slack counts "characters"
// without saying which; UTF-8 bytes are counted here, never fewer.
const (
	slackHeader   = 150  // header block plain_text
	slackSection  = 3000 // section text
	slackField    = 2000 // each section field
	slackFields   = 10   // fields per section
	slackBlocks   = 50   // blocks per message
	slackElements = 10   // context elements
	slackFallback = 3000 // top-level text (Slack cuts at 40,000 and advises 4,000)
	// slackTotal caps the sum of all block texts: Slack refuses messages
	// (msg_blocks_too_long) at about 13,000 characters of blocks, far below
	// 50 blocks × 3,000.
	slackTotal = 10000
)

type slackMessage struct {
	Text   string       `json:"text"`
	Blocks []slackBlock `json:"blocks"`
}

type slackBlock struct {
	Type     string      `json:"type"`
	Text     *slackText  `json:"text,omitempty"`
	Fields   []slackText `json:"fields,omitempty"`
	Elements []slackText `json:"elements,omitempty"`
}

type slackText struct {
	Type string `json:"type"` // plain_text or mrkdwn
	Text string `json:"text"`
}

// slackEscape escapes what mrkdwn gives a meaning to: &, < and >, so that
// no text can link, mention (<!channel>) or format a date.
func slackEscape(r rune, b *strings.Builder) {
	switch r {
	case '&':
		b.WriteString("&amp;")
	case '<':
		b.WriteString("&lt;")
	case '>':
		b.WriteString("&gt;")
	default:
		b.WriteRune(r)
	}
}

// slackLink is a mrkdwn link. Links are text, not buttons: a link button
// in a webhook's message shows a warning after each click, since no app
// answers the interaction.
func slackLink(l link) string {
	return slackURL(l.url, fit(l.label, 200, inBytes, slackEscape))
}

// slackURL links an escaped label to u; Slack reads entities in the
// address too, so its & is escaped as well.
func slackURL(u, label string) string {
	return "<" + strings.ReplaceAll(u, "&", "&amp;") + "|" + label + ">"
}

func buildSlack(m *message, level int) built {
	mt := &meter{u: inBytes}
	var blocks []slackBlock
	section := func(text string) {
		if text != "" {
			blocks = append(blocks, slackBlock{Type: "section", Text: &slackText{"mrkdwn", mt.add(text)}})
		}
	}
	title := m.badged()
	blocks = append(blocks, slackBlock{Type: "header", Text: &slackText{"plain_text", mt.add(fit(title, slackHeader, inBytes, nil))}})

	// The lead section: why, what (the summary or the period), the links.
	var links []string
	room := slackSection - 300
	for _, l := range m.links {
		if s := slackLink(l); len(s)+3 <= room {
			links = append(links, s)
			room -= len(s) + 3
		}
	}
	lead := []string{}
	if m.event != notice.EventDigest {
		lead = append(lead, "*"+fit(m.heading, scaled(300, level), inBytes, slackEscape)+"*")
	}
	if m.summary != "" {
		lead = append(lead, fit(m.summary, min(room, scaled(2400, level)), inBytes, slackEscape))
	}
	if len(links) > 0 {
		lead = append(lead, strings.Join(links, " · "))
	}
	section(strings.Join(lead, "\n"))

	if len(m.facts) > 0 {
		fb := slackBlock{Type: "section"}
		for _, f := range m.facts[:min(len(m.facts), slackFields)] {
			text := "*" + fit(f.Name, 100, inBytes, slackEscape) + "*\n" + fit(f.Value, scaled(300, level), inBytes, slackEscape)
			fb.Fields = append(fb.Fields, slackText{"mrkdwn", mt.add(text)})
		}
		blocks = append(blocks, fb)
	}

	if m.event == notice.EventDigest {
		lines := m.ticketLines(scaled(200, level), inBytes, slackEscape, slackURL)
		// Keep three blocks for the failing channels, the context and room.
		for _, s := range slackList("*New tickets*", lines, m.total, scaled(5000, level), slackBlocks-len(blocks)-3) {
			section(s)
		}
		if len(m.failing) > 0 {
			failing := m.failingLines("• ", scaled(200, level), inBytes, slackEscape)
			if s := slackList("*Failing channels*", failing, len(failing), scaled(1500, level), 1); len(s) > 0 {
				section(s[0])
			}
		}
	}

	blocks = append(blocks, slackBlock{Type: "context", Elements: []slackText{{"mrkdwn", mt.add(fit(m.footer, 300, inBytes, slackEscape))}}})

	fallback := m.heading
	if m.event == notice.EventTicket {
		fallback += ": " + m.title
	}
	body := encode(slackMessage{Text: fit(fallback, scaled(slackFallback/6, level), inBytes, slackEscape), Blocks: blocks})
	return built{body: body, size: mt.used}
}

// slackList packs a heading and lines into at most maxBlocks section texts
// of at most slackSection bytes and budget bytes in all, keeping room for a
// last "… and N more" line when not every one of total fits.
func slackList(heading string, lines []string, total, budget, maxBlocks int) []string {
	const moreRoom = 40
	if total == 0 {
		return []string{heading + "\nNone in this period."}
	}
	var out []string
	cur := heading
	used, shown := len(heading), 0
	for _, l := range lines {
		if used+len(l)+1+moreRoom > budget {
			break
		}
		if len(cur)+1+len(l)+1+moreRoom > slackSection {
			if len(out)+2 > maxBlocks {
				break
			}
			out = append(out, cur)
			cur = ""
		}
		if cur != "" {
			cur += "\n"
		}
		cur += l
		used += len(l) + 1
		shown++
	}
	if more := total - shown; more > 0 {
		if cur != "" {
			cur += "\n"
		}
		cur += "… and " + notice.Number(more) + " more"
	}
	if cur != "" && len(out) < maxBlocks {
		out = append(out, cur)
	}
	return out
}
