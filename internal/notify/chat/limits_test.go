package chat

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// checkLimits parses a rendering as its target would and checks every
// published limit and every escaping rule of the target.
func checkLimits(t *testing.T, format string, r Rendered) {
	t.Helper()
	if !utf8.Valid(r.Body) {
		t.Fatalf("%s body is not valid UTF-8", format)
	}
	if format != Ntfy {
		if r.ContentType != "application/json" || r.Headers != nil {
			t.Errorf("%s: content type %q, headers %v; want application/json and none", format, r.ContentType, r.Headers)
		}
		if !json.Valid(r.Body) {
			t.Fatalf("%s body is not JSON: %s", format, r.Body)
		}
	}
	switch format {
	case Slack:
		checkSlack(t, r.Body)
	case Teams:
		checkTeams(t, r.Body)
	case Discord:
		checkDiscord(t, r.Body)
	case Mattermost:
		checkMattermost(t, r.Body)
	case GoogleChat:
		checkGoogleChat(t, r.Body)
	case Ntfy:
		checkNtfy(t, r)
	default:
		t.Fatalf("no limits known for %s", format)
	}
}

// decodeStrict decodes body into v, refusing fields v does not name, so
// that a checker sees everything a format sends.
func decodeStrict(t *testing.T, body []byte, v any) {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(body))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		t.Fatalf("decode: %v\n%s", err, body)
	}
}

// within fails when s is empty or over n units of u.
func within(t *testing.T, what, s string, n int, u unit) {
	t.Helper()
	if s == "" {
		t.Errorf("%s is empty", what)
	}
	if c := u.count(s); c > n {
		t.Errorf("%s is %d units long, over %d: %.200q…", what, c, n, s)
	}
}

// ourLinks fails when a Markdown link in s ("](" with no backslash before
// the "]") points anywhere but the app: a hostile "[x](https://evil.example)"
// must come out escaped.
func ourLinks(t *testing.T, what, s string) {
	t.Helper()
	for rest := s; ; {
		i := strings.Index(rest, "](")
		if i < 0 {
			return
		}
		if (i == 0 || rest[i-1] != '\\') && !strings.HasPrefix(rest[i+2:], appURL+"/") {
			t.Errorf("%s links elsewhere than the app: %.120q", what, rest[i:])
		}
		rest = rest[i+2:]
	}
}

func checkSlack(t *testing.T, body []byte) {
	type text struct{ Type, Text string }
	var m struct {
		Text   string
		Blocks []struct {
			Type     string
			Text     *text
			Fields   []text
			Elements []text
		}
	}
	decodeStrict(t, body, &m)
	within(t, "slack text", m.Text, slackFallback, inBytes)
	checkMrkdwn(t, "slack text", m.Text)
	if n := len(m.Blocks); n == 0 || n > slackBlocks {
		t.Errorf("slack: %d blocks, want 1 to %d", n, slackBlocks)
	}
	total := 0
	count := func(x text, limit int, what string) {
		within(t, what, x.Text, limit, inBytes)
		total += len(x.Text)
		switch x.Type {
		case "mrkdwn":
			checkMrkdwn(t, what, x.Text)
		case "plain_text":
		default:
			t.Errorf("%s: text type %q", what, x.Type)
		}
	}
	for i, b := range m.Blocks {
		switch b.Type {
		case "header":
			if b.Text == nil || b.Text.Type != "plain_text" || b.Fields != nil || b.Elements != nil {
				t.Errorf("slack block %d: header %+v", i, b)
				continue
			}
			count(*b.Text, slackHeader, "slack header")
		case "section":
			if (b.Text == nil) == (len(b.Fields) == 0) || b.Elements != nil {
				t.Errorf("slack block %d: section needs text or fields: %+v", i, b)
			}
			if b.Text != nil {
				count(*b.Text, slackSection, "slack section")
			}
			if len(b.Fields) > slackFields {
				t.Errorf("slack block %d: %d fields", i, len(b.Fields))
			}
			for _, f := range b.Fields {
				count(f, slackField, "slack field")
			}
		case "context":
			if n := len(b.Elements); n == 0 || n > slackElements || b.Text != nil {
				t.Errorf("slack block %d: context with %d elements", i, n)
			}
			for _, e := range b.Elements {
				count(e, slackSection, "slack context")
			}
		default:
			t.Errorf("slack block %d: type %q", i, b.Type)
		}
	}
	if total > slackTotal {
		t.Errorf("slack: %d bytes of block text, over %d", total, slackTotal)
	}
}

// checkMrkdwn fails when a mrkdwn text holds a "<" that is not one of our
// links, or an unescaped "&": no text can mention, link or format a date.
func checkMrkdwn(t *testing.T, what, s string) {
	t.Helper()
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '<':
			end := strings.IndexByte(s[i:], '>')
			url, label, ok := strings.Cut(s[i+1:i+max(end, 1)], "|")
			if end < 0 || !ok || !strings.HasPrefix(url, appURL) || strings.ContainsRune(label, '<') {
				t.Errorf("%s: markup that is not our link at %d: %.80q", what, i, s[i:])
				return
			}
		case '&':
			if !strings.HasPrefix(s[i:], "&amp;") && !strings.HasPrefix(s[i:], "&lt;") && !strings.HasPrefix(s[i:], "&gt;") {
				t.Errorf("%s: unescaped & at %d: %.40q", what, i, s[i:])
			}
		}
	}
}

func checkTeams(t *testing.T, body []byte) {
	if len(body) > teamsMax {
		t.Errorf("teams: body of %d bytes, over %d", len(body), teamsMax)
	}
	if !bytes.Contains(body, []byte(`"contentUrl":null`)) {
		t.Errorf("teams: contentUrl is not null")
	}
	type action struct{ Type, Title, URL string }
	var m struct {
		Type        string
		Attachments []struct {
			ContentType string
			ContentURL  *string
			Content     struct {
				Schema  string `json:"$schema"`
				Type    string
				Version string
				Body    []struct {
					Type      string
					Separator bool
					Inlines   []struct {
						Type, Text, Size, Weight, Color string
						IsSubtle                        bool
						SelectAction                    *action
					}
				}
				Actions []action
			}
		}
	}
	decodeStrict(t, body, &m)
	if m.Type != "message" || len(m.Attachments) != 1 {
		t.Fatalf("teams: type %q with %d attachments", m.Type, len(m.Attachments))
	}
	a := m.Attachments[0]
	c := a.Content
	if a.ContentType != teamsCardType || c.Type != "AdaptiveCard" || c.Version != teamsVersion || c.Schema != teamsSchema || len(c.Body) == 0 {
		t.Errorf("teams: attachment %q card %q version %q schema %q, %d elements", a.ContentType, c.Type, c.Version, c.Schema, len(c.Body))
	}
	for _, b := range c.Body {
		if b.Type != "RichTextBlock" || len(b.Inlines) == 0 {
			t.Errorf("teams: element %s with %d inlines", b.Type, len(b.Inlines))
		}
		for _, r := range b.Inlines {
			if r.Type != "TextRun" || r.Text == "" {
				t.Errorf("teams: inline %s %q", r.Type, r.Text)
			}
			if r.SelectAction != nil && (r.SelectAction.Type != "Action.OpenUrl" || !strings.HasPrefix(r.SelectAction.URL, appURL)) {
				t.Errorf("teams: select action %+v", r.SelectAction)
			}
		}
	}
	for _, x := range c.Actions {
		if x.Type != "Action.OpenUrl" || x.Title == "" || !strings.HasPrefix(x.URL, appURL) {
			t.Errorf("teams: action %+v", x)
		}
	}
}

func checkDiscord(t *testing.T, body []byte) {
	if !bytes.Contains(body, []byte(`"allowed_mentions":{"parse":[]}`)) {
		t.Errorf("discord: allowed_mentions does not forbid every mention")
	}
	type field struct {
		Name, Value string
		Inline      bool
	}
	var m struct {
		Content         string
		AllowedMentions struct{ Parse []string } `json:"allowed_mentions"`
		Embeds          []struct {
			Title, URL, Description, Timestamp string
			Color                              int
			Fields                             []field
			Footer                             *struct{ Text string }
		}
	}
	decodeStrict(t, body, &m)
	within(t, "discord content", m.Content, discordContent, inUTF16)
	checkDiscordText(t, "discord content", m.Content)
	if n := len(m.Embeds); n == 0 || n > discordEmbeds {
		t.Fatalf("discord: %d embeds", n)
	}
	total := 0
	for _, e := range m.Embeds {
		within(t, "discord title", e.Title, discordTitle, inUTF16)
		total += inUTF16.count(e.Title) + inUTF16.count(e.Description)
		if e.Description != "" {
			within(t, "discord description", e.Description, discordDescription, inUTF16)
		}
		if e.URL != "" && !strings.HasPrefix(e.URL, appURL) {
			t.Errorf("discord: url %q", e.URL)
		}
		if len(e.Fields) > discordFields {
			t.Errorf("discord: %d fields", len(e.Fields))
		}
		for _, f := range e.Fields {
			within(t, "discord field name", f.Name, discordFieldName, inUTF16)
			within(t, "discord field value", f.Value, discordFieldValue, inUTF16)
			total += inUTF16.count(f.Name) + inUTF16.count(f.Value)
			checkDiscordText(t, "discord field", f.Value)
		}
		if e.Footer != nil {
			within(t, "discord footer", e.Footer.Text, discordFooterText, inUTF16)
			total += inUTF16.count(e.Footer.Text)
		}
		checkDiscordText(t, "discord title", e.Title)
		checkDiscordText(t, "discord description", e.Description)
	}
	if total > discordTotal {
		t.Errorf("discord: %d characters of embeds, over %d", total, discordTotal)
	}
}

// checkDiscordText fails when an @ or a < is not escaped, or a link
// points elsewhere than the app.
func checkDiscordText(t *testing.T, what, s string) {
	t.Helper()
	for i := 0; i < len(s); i++ {
		if (s[i] == '@' || s[i] == '<') && (i == 0 || s[i-1] != '\\') {
			t.Errorf("%s: unescaped %c at %d: %.40q", what, s[i], i, s[max(0, i-10):])
			return
		}
	}
	ourLinks(t, what, s)
}

// mentions are the words Mattermost notifies a channel or user for.
var mentions = []string{"@everyone", "@here", "@channel", "@all", "@U123"}

func checkMattermost(t *testing.T, body []byte) {
	type field struct {
		Title, Value string
		Short        bool
	}
	var m struct {
		Text        string
		Attachments []struct {
			Fallback, Color, Title, Text, Footer string
			TitleLink                            string `json:"title_link"`
			Fields                               []field
		}
	}
	decodeStrict(t, body, &m)
	within(t, "mattermost text", m.Text, mattermostText, inRunes)
	if len(m.Attachments) != 1 {
		t.Fatalf("mattermost: %d attachments", len(m.Attachments))
	}
	a := m.Attachments[0]
	within(t, "mattermost fallback", a.Fallback, mattermostText, inRunes)
	all := []string{m.Text, a.Fallback, a.Title, a.Text, a.Footer}
	for _, f := range a.Fields {
		within(t, "mattermost field", f.Value, mattermostText, inRunes)
		all = append(all, f.Title, f.Value)
	}
	total := 0
	for _, s := range all {
		total += inRunes.count(s)
		for _, w := range mentions {
			if strings.Contains(s, w) {
				t.Errorf("mattermost: %q can mention: %.80q", w, s)
			}
		}
	}
	if total > mattermostTotal {
		t.Errorf("mattermost: %d characters, over %d", total, mattermostTotal)
	}
	if len(a.Color) != 7 || a.Color[0] != '#' {
		t.Errorf("mattermost: colour %q", a.Color)
	}
	if a.TitleLink != "" && !strings.HasPrefix(a.TitleLink, appURL) {
		t.Errorf("mattermost: title link %q", a.TitleLink)
	}
	ourLinks(t, "mattermost text", a.Text)
	ourLinks(t, "mattermost message", m.Text)
}

func checkGoogleChat(t *testing.T, body []byte) {
	if len(body) > googleChatMax {
		t.Errorf("google chat: body of %d bytes, over %d", len(body), googleChatMax)
	}
	type widget struct {
		TextParagraph *struct{ Text string }
		DecoratedText *struct {
			TopLabel, Text string
			WrapText       bool
		}
		ButtonList *struct {
			Buttons []struct {
				Text    string
				OnClick struct{ OpenLink struct{ URL string } }
			}
		}
	}
	var m struct {
		Text    string
		CardsV2 []struct {
			CardID string
			Card   struct {
				Header   struct{ Title, Subtitle string }
				Sections []struct {
					Header  string
					Widgets []widget
				}
			}
		}
	}
	decodeStrict(t, body, &m)
	within(t, "google chat text", m.Text, googleChatText, inBytes)
	if strings.Contains(m.Text, "<users/") {
		t.Errorf("google chat: text can mention: %.80q", m.Text)
	}
	if len(m.CardsV2) != 1 || m.CardsV2[0].CardID == "" {
		t.Fatalf("google chat: %d cards", len(m.CardsV2))
	}
	c := m.CardsV2[0].Card
	within(t, "google chat header", c.Header.Title, 300, inBytes)
	widgets := 0
	for _, s := range c.Sections {
		checkChatHTML(t, "google chat section header", s.Header)
		for _, w := range s.Widgets {
			widgets++
			switch {
			case w.TextParagraph != nil && w.DecoratedText == nil && w.ButtonList == nil:
				checkChatHTML(t, "google chat paragraph", w.TextParagraph.Text)
			case w.DecoratedText != nil && w.TextParagraph == nil && w.ButtonList == nil:
				checkChatHTML(t, "google chat text", w.DecoratedText.Text)
			case w.ButtonList != nil && w.TextParagraph == nil && w.DecoratedText == nil:
				for _, b := range w.ButtonList.Buttons {
					if b.Text == "" || !strings.HasPrefix(b.OnClick.OpenLink.URL, appURL) {
						t.Errorf("google chat: button %+v", b)
					}
				}
			default:
				t.Errorf("google chat: widget %+v", w)
			}
		}
	}
	if widgets > googleChatWidgets {
		t.Errorf("google chat: %d widgets", widgets)
	}
}

// checkChatHTML fails on any tag but the ones the renderer writes.
func checkChatHTML(t *testing.T, what, s string) {
	t.Helper()
	for i := 0; i < len(s); i++ {
		if s[i] != '<' {
			continue
		}
		rest := s[i:]
		if !strings.HasPrefix(rest, "<br>") && !strings.HasPrefix(rest, "</a>") && !strings.HasPrefix(rest, `<a href="`+appURL) {
			t.Errorf("%s: tag that is not ours at %d: %.60q", what, i, rest)
			return
		}
	}
}

func checkNtfy(t *testing.T, r Rendered) {
	if r.ContentType != "text/plain; charset=utf-8" {
		t.Errorf("ntfy: content type %q", r.ContentType)
	}
	within(t, "ntfy body", string(r.Body), ntfyMax, inBytes)
	for k, v := range r.Headers {
		switch k {
		case NtfyTitle, NtfyPriority, NtfyTags, NtfyClick:
		default:
			t.Errorf("ntfy: header %s", k)
		}
		for i := 0; i < len(v); i++ {
			if v[i] < 0x20 || v[i] >= 0x7f {
				t.Errorf("ntfy: header %s has byte %#x: %q", k, v[i], v)
				break
			}
		}
	}
	title, err := wordDecoder.DecodeHeader(r.Headers[NtfyTitle])
	if err != nil {
		t.Errorf("ntfy: title %q: %v", r.Headers[NtfyTitle], err)
	}
	within(t, "ntfy title", title, ntfyTitle, inBytes)
	if p := r.Headers[NtfyPriority]; len(p) != 1 || p[0] < '1' || p[0] > '5' {
		t.Errorf("ntfy: priority %q", p)
	}
	if r.Headers[NtfyTags] == "" {
		t.Errorf("ntfy: no tags")
	}
	if c, ok := r.Headers[NtfyClick]; ok && !strings.HasPrefix(c, appURL) {
		t.Errorf("ntfy: click %q", c)
	}
}
