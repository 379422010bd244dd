package chat

import (
	"strings"

	"github.com/errata-dev/errata/internal/notify/notice"
)

// Google Chat: an incoming webhook message, a one-line `text` (what
// notifications show) and one card in `cardsV2`. Google Chat takes at most
// 32,000 bytes of message and shows at most 100 widgets a card; the body
// is kept to googleChatMax bytes.
const (
	googleChatMax     = 30000
	googleChatWidgets = 100
	googleChatText    = 4096
)

type googleChatMessage struct {
	Text    string           `json:"text"`
	CardsV2 []googleChatCard `json:"cardsV2"`
}

type googleChatCard struct {
	CardID string         `json:"cardId"`
	Card   googleChatBody `json:"card"`
}

type googleChatBody struct {
	Header   googleChatHeader    `json:"header"`
	Sections []googleChatSection `json:"sections"`
}

// googleChatHeader is plain text.
type googleChatHeader struct {
	Title    string `json:"title"`
	Subtitle string `json:"subtitle,omitempty"`
}

type googleChatSection struct {
	Header  string             `json:"header,omitempty"`
	Widgets []googleChatWidget `json:"widgets"`
}

type googleChatWidget struct {
	TextParagraph *googleChatParagraph `json:"textParagraph,omitempty"`
	DecoratedText *googleChatDecorated `json:"decoratedText,omitempty"`
	ButtonList    *googleChatButtons   `json:"buttonList,omitempty"`
}

type googleChatParagraph struct {
	Text string `json:"text"`
}

type googleChatDecorated struct {
	TopLabel string `json:"topLabel"`
	Text     string `json:"text"`
	WrapText bool   `json:"wrapText"`
}

type googleChatButtons struct {
	Buttons []googleChatButton `json:"buttons"`
}

type googleChatButton struct {
	Text    string            `json:"text"`
	OnClick googleChatOnClick `json:"onClick"`
}

type googleChatOnClick struct {
	OpenLink struct {
		URL string `json:"url"`
	} `json:"openLink"`
}

// htmlEscape escapes card text, which Google Chat reads as a subset of HTML
// (<b>, <a href>, <font>…); line breaks become <br>.
func htmlEscape(r rune, b *strings.Builder) {
	switch r {
	case '&':
		b.WriteString("&amp;")
	case '<':
		b.WriteString("&lt;")
	case '>':
		b.WriteString("&gt;")
	case '"':
		b.WriteString("&quot;")
	case '\'':
		b.WriteString("&#39;")
	case '\n':
		b.WriteString("<br>")
	default:
		b.WriteRune(r)
	}
}

// googleChatTextEscape breaks the <users/all> and <url|label> syntax of a
// text message with a zero-width space after every "<".
func googleChatTextEscape(r rune, b *strings.Builder) {
	b.WriteRune(r)
	if r == '<' {
		b.WriteRune('\u200b')
	}
}

// htmlLink links an escaped text to u.
func htmlLink(u, text string) string {
	return `<a href="` + strings.ReplaceAll(u, "&", "&amp;") + `">` + text + "</a>"
}

// htmlLines breaks lines with <br>.
func htmlLines(s string) string { return strings.ReplaceAll(s, "\n", "<br>") }

func paragraphWidget(text string) googleChatWidget {
	return googleChatWidget{TextParagraph: &googleChatParagraph{Text: text}}
}

func buildGoogleChat(m *message, level int) built {
	esc := func(s string, n int) string { return fit(s, n, inBytes, htmlEscape) }
	title := m.badged()
	card := googleChatBody{Header: googleChatHeader{Title: fit(title, scaled(300, level), inBytes, nil)}}
	if m.event == notice.EventDigest {
		card.Header.Subtitle = fit(m.summary, 300, inBytes, nil)
	} else {
		card.Header.Subtitle = fit(m.heading, scaled(300, level), inBytes, nil)
	}
	widgets := 0
	section := func(header string, ws ...googleChatWidget) {
		ws = ws[:min(len(ws), googleChatWidgets-widgets)]
		if len(ws) > 0 {
			card.Sections = append(card.Sections, googleChatSection{Header: header, Widgets: ws})
			widgets += len(ws)
		}
	}
	// Keep room for the buttons, which come last.
	buttons := &googleChatButtons{}
	for _, l := range m.links {
		b := googleChatButton{Text: fit(l.label, 100, inBytes, nil)}
		b.OnClick.OpenLink.URL = l.url
		buttons.Buttons = append(buttons.Buttons, b)
	}
	reserve := 0
	if len(buttons.Buttons) > 0 {
		reserve = 1
	}

	if m.event != notice.EventDigest && m.summary != "" {
		section("", paragraphWidget(esc(m.summary, scaled(8000, level))))
	}
	var facts []googleChatWidget
	for _, f := range m.facts[:min(len(m.facts), googleChatWidgets-2-reserve)] {
		facts = append(facts, googleChatWidget{DecoratedText: &googleChatDecorated{TopLabel: esc(f.Name, 100),
			Text: esc(f.Value, scaled(500, level)), WrapText: true}})
	}
	section("", facts...)
	if m.event == notice.EventDigest {
		lines := m.ticketLines(scaled(300, level), inBytes, htmlEscape, htmlLink)
		section("New tickets", paragraphWidget(htmlLines(textList("", lines, m.total, scaled(14000, level), inBytes))))
		if len(m.failing) > 0 {
			lines := m.failingLines("", scaled(300, level), inBytes, htmlEscape)
			section("Failing channels", paragraphWidget(htmlLines(textList("", lines, len(lines), scaled(3000, level), inBytes))))
		}
	}
	if reserve > 0 {
		section("", googleChatWidget{ButtonList: buttons})
	}
	section("", paragraphWidget(esc(m.footer, 300)))

	text := m.heading
	if m.event == notice.EventTicket {
		text += ": " + m.title
	}
	body := encode(googleChatMessage{Text: fit(text, min(googleChatText, scaled(500, level)), inBytes, googleChatTextEscape),
		CardsV2: []googleChatCard{{CardID: "errata-" + m.event, Card: card}}})
	return built{body: body, size: len(body)}
}
