package chat

import (
	"encoding/base64"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/errata-dev/errata/internal/notify/notice"
)

// ntfy: a plain-text POST to the topic's URL (the channel's URL, e.g.
// https://ntfy.example.com/alerts), the message as the body and the rest
// in headers. The JSON form would have to go to the server's root URL,
// not the channel's, and the body is what Errata signs. ntfy takes 4,096
// bytes of message (more becomes an attachment, or is refused).
const (
	ntfyMax   = 4096
	ntfyTitle = 250 // bytes, before encoding
)

// ntfy's request headers (it also reads them without the X- prefix, but
// "Priority" is an HTTP header of its own, RFC 9218).
const (
	NtfyTitle    = "X-Title"
	NtfyPriority = "X-Priority"
	NtfyTags     = "X-Tags"
	NtfyClick    = "X-Click"
)

// ntfyPriority is a notification's urgency, 1 to 5: a critical ticket
// rings through do-not-disturb on phones that allow it.
func ntfyPriority(m *message) int {
	if m.event == notice.EventTicket {
		switch m.severity {
		case "critical":
			return 5
		case "high":
			return 4
		}
	}
	return 3
}

// ntfyTags are shown as an emoji before the title (known names) and as
// words below it.
func ntfyTags(m *message) string {
	switch m.event {
	case notice.EventDigest:
		return "memo,digest"
	case notice.EventTest:
		return "white_check_mark,test"
	}
	switch m.severity {
	case "critical":
		return "rotating_light,critical"
	case "high":
		return "warning,high"
	case "medium":
		return "yellow_circle,medium"
	}
	return "grey_question"
}

// headerValue makes s safe as a header value: one line (line() removed
// CR and LF), and RFC 2047-encoded when it is not plain ASCII or could be
// read as encoded, which ntfy decodes.
func headerValue(s string) string {
	plain := !strings.Contains(s, "=?")
	for i := 0; plain && i < len(s); i++ {
		plain = s[i] >= 0x20 && s[i] < 0x7f
	}
	if plain {
		return s
	}
	// Encoded words of at most 75 characters (45 bytes of text), cut
	// between runes, separated by spaces, which decoders drop.
	var words []string
	for s != "" {
		n := 0
		for _, r := range s {
			if n+utf8.RuneLen(r) > 45 {
				break
			}
			n += utf8.RuneLen(r)
		}
		words = append(words, "=?UTF-8?B?"+base64.StdEncoding.EncodeToString([]byte(s[:n]))+"?=")
		s = s[n:]
	}
	return strings.Join(words, " ")
}

func buildNtfy(m *message, level int) built {
	title := m.title
	if m.severity != "" {
		title = m.severity + ": " + title
	}
	h := map[string]string{
		NtfyTitle:    headerValue(fit(title, ntfyTitle, inBytes, nil)),
		NtfyPriority: strconv.Itoa(ntfyPriority(m)),
		NtfyTags:     ntfyTags(m),
	}
	if len(m.links) > 0 {
		h[NtfyClick] = m.links[0].url
	}

	var parts []string
	if m.event != notice.EventDigest {
		parts = append(parts, fit(m.heading, scaled(300, level), inBytes, nil))
	}
	if m.summary != "" {
		parts = append(parts, fit(m.summary, scaled(1500, level), inBytes, nil))
	}
	var facts []string
	for _, f := range m.facts {
		facts = append(facts, fit(f.Name+": "+f.Value, scaled(200, level), inBytes, nil))
	}
	if len(facts) > 0 {
		parts = append(parts, strings.Join(facts, "\n"))
	}
	if m.event == notice.EventDigest {
		lines := m.ticketLines(scaled(150, level), inBytes, nil, nil)
		parts = append(parts, textList("New tickets:", lines, m.total, scaled(1500, level), inBytes))
		if len(m.failing) > 0 {
			failing := m.failingLines("- ", scaled(150, level), inBytes, nil)
			parts = append(parts, textList("Failing channels:", failing, len(failing), scaled(500, level), inBytes))
		}
	}
	// The first link opens on a tap; the others are written out.
	for _, l := range m.links[min(1, len(m.links)):] {
		if len(l.url) <= scaled(600, level) {
			parts = append(parts, fit(l.label, 100, inBytes, nil)+": "+l.url)
		}
	}
	// Cut only as a last resort (Render first tries shorter parts), so that
	// a cut never falls inside an address.
	text := strings.Join(parts, "\n\n")
	return built{body: []byte(fit(text, ntfyMax, inBytes, nil)), headers: h, size: len(text)}
}
