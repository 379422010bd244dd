package chat

import (
	"strings"

	"github.com/errata-dev/errata/internal/notify/notice"
)

// Microsoft Teams: the message a Workflows flow "when a Teams webhook
// request is received" posts, one Adaptive Card attachment (the retired
// Office 365 connectors' MessageCard is not produced). Teams refuses a
// message over about 28 KB; the body is kept to teamsMax bytes.
//
// Every untrusted text goes in a RichTextBlock's TextRun, which Adaptive
// Cards never read as Markdown, so nothing needs escaping (TextBlock and
// FactSet values are Markdown, and Teams clients disagree on backslash
// escapes).
const (
	teamsMax         = 24000
	teamsVersion     = "1.4"
	teamsSchema      = "http://adaptivecards.io/schemas/adaptive-card.json"
	teamsCardType    = "application/vnd.microsoft.card.adaptive"
	teamsParagraphs  = 20 // summary paragraphs shown
	teamsTitle       = 1000
	teamsLabel       = 100
	teamsActionTitle = 100
)

type teamsMessage struct {
	Type        string            `json:"type"`
	Attachments []teamsAttachment `json:"attachments"`
}

type teamsAttachment struct {
	ContentType string    `json:"contentType"`
	ContentURL  *string   `json:"contentUrl"` // null, as Workflows expects
	Content     teamsCard `json:"content"`
}

type teamsCard struct {
	Schema  string        `json:"$schema"`
	Type    string        `json:"type"`
	Version string        `json:"version"`
	Body    []teamsBlock  `json:"body"`
	Actions []teamsAction `json:"actions,omitempty"`
}

// teamsBlock is a RichTextBlock: one paragraph of runs.
type teamsBlock struct {
	Type      string     `json:"type"`
	Inlines   []teamsRun `json:"inlines"`
	Separator bool       `json:"separator,omitempty"`
}

type teamsRun struct {
	Type         string       `json:"type"`
	Text         string       `json:"text"`
	Size         string       `json:"size,omitempty"`
	Weight       string       `json:"weight,omitempty"`
	Color        string       `json:"color,omitempty"`
	IsSubtle     bool         `json:"isSubtle,omitempty"`
	SelectAction *teamsAction `json:"selectAction,omitempty"`
}

type teamsAction struct {
	Type  string `json:"type"`
	Title string `json:"title,omitempty"`
	URL   string `json:"url"`
}

func run(text string) teamsRun { return teamsRun{Type: "TextRun", Text: text} }

func paragraph(runs ...teamsRun) teamsBlock { return teamsBlock{Type: "RichTextBlock", Inlines: runs} }

func openURL(title, url string) *teamsAction {
	return &teamsAction{Type: "Action.OpenUrl", Title: title, URL: url}
}

// teamsColor is a severity's colour among the host's named ones.
func teamsColor(severity string) string {
	switch severity {
	case "critical":
		return "Attention"
	case "high":
		return "Warning"
	}
	return "Default"
}

func buildTeams(m *message, level int) built {
	var body []teamsBlock
	small := func(text string) teamsBlock {
		r := run(text)
		r.Size, r.IsSubtle = "Small", true
		return paragraph(r)
	}
	if m.event != notice.EventDigest {
		body = append(body, small(fit(m.heading, scaled(500, level), inBytes, nil)))
	}
	title := run(fit(m.title, scaled(teamsTitle, level), inBytes, nil))
	title.Size, title.Weight = "Large", "Bolder"
	if m.severity != "" {
		b := run(badge(m.severity) + " · ")
		b.Size, b.Weight, b.Color = "Large", "Bolder", teamsColor(m.severity)
		body = append(body, paragraph(b, title))
	} else {
		body = append(body, paragraph(title))
	}

	room := scaled(6000, level)
	for i, p := range strings.Split(m.summary, "\n") {
		if p == "" || room <= 0 {
			continue
		}
		if i == teamsParagraphs {
			body = append(body, paragraph(run(ellipsis)))
			break
		}
		p = fit(p, room, inBytes, nil)
		room -= len(p)
		body = append(body, paragraph(run(p)))
	}

	for _, f := range m.facts {
		name := run(fit(f.Name, teamsLabel, inBytes, nil) + ": ")
		name.Weight = "Bolder"
		body = append(body, paragraph(name, run(fit(f.Value, scaled(500, level), inBytes, nil))))
	}

	if m.event == notice.EventDigest {
		body = append(body, teamsList("New tickets", m.items, m.total, scaled(12000, level), level)...)
		if len(m.failing) > 0 {
			items := make([]item, len(m.failing))
			for i, f := range m.failing {
				items[i] = item{title: f}
			}
			body = append(body, teamsList("Failing channels", items, len(items), scaled(3000, level), level)...)
		}
	}
	foot := small(fit(m.footer, 300, inBytes, nil))
	foot.Separator = true
	body = append(body, foot)

	card := teamsCard{Schema: teamsSchema, Type: "AdaptiveCard", Version: teamsVersion, Body: body}
	for _, l := range m.links {
		card.Actions = append(card.Actions, *openURL(fit(l.label, teamsActionTitle, inBytes, nil), l.url))
	}
	out := encode(teamsMessage{Type: "message", Attachments: []teamsAttachment{{ContentType: teamsCardType, Content: card}}})
	return built{body: out, size: len(out)}
}

// teamsList is a heading and one paragraph per item (its title a link when
// it has an address) while budget bytes last, then "… and N more".
func teamsList(heading string, items []item, total, budget, level int) []teamsBlock {
	h := run(heading)
	h.Weight = "Bolder"
	out := []teamsBlock{paragraph(h)}
	if total == 0 {
		return append(out, paragraph(run("None in this period.")))
	}
	shown := 0
	for _, it := range items {
		t := run(fit(it.title, scaled(300, level), inBytes, nil))
		size := len(t.Text) + len(it.url) + len(it.when) + 100 // the JSON around them
		if size > budget {
			break
		}
		budget -= size
		if it.url != "" {
			t.SelectAction = openURL("", it.url)
		}
		runs := []teamsRun{}
		if it.severity != "" {
			b := run(badge(it.severity) + " ")
			b.Color = teamsColor(it.severity)
			runs = append(runs, b)
		}
		runs = append(runs, t)
		if it.when != "" {
			w := run(" · " + it.when)
			w.IsSubtle = true
			runs = append(runs, w)
		}
		out = append(out, paragraph(runs...))
		shown++
	}
	if more := total - shown; more > 0 {
		out = append(out, paragraph(run("… and "+notice.Number(more)+" more")))
	}
	return out
}
