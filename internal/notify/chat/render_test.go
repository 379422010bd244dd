package chat

import (
	"encoding/json"
	"errors"
	"mime"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/notify/notice"
)

var wordDecoder mime.WordDecoder

// TestHostile renders hostile notifications (10,000-character titles,
// 100,000-character summaries, 100 tickets and 50 failing channels, markup,
// mentions, HTML, NUL, invalid UTF-8, astral characters at every cut) in
// every format: each must come out valid and within every limit.
func TestHostile(t *testing.T) {
	t.Parallel()
	cases := hostileCases()
	names := make([]string, 0, len(cases))
	for name := range cases {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, format := range Formats()[1:] {
		for _, name := range names {
			t.Run(format+"/"+name, func(t *testing.T) {
				r, err := Render(format, cases[name])
				if err != nil {
					t.Fatal(err)
				}
				checkLimits(t, format, r)
			})
		}
	}
}

// TestDigestListsWhatFits checks that a digest lists as many tickets as
// fit and says how many more there are.
func TestDigestListsWhatFits(t *testing.T) {
	t.Parallel()
	n := hostileCases()["digest-ascii"]
	n.Digest.FailingChannels = nil
	for i := range n.Digest.Tickets {
		n.Digest.Tickets[i].Title = "ticket title"
	}
	for _, format := range Formats()[1:] {
		r, err := Render(format, n)
		if err != nil {
			t.Fatal(err)
		}
		body := string(r.Body)
		shown := strings.Count(body, "ticket title")
		more := regexp.MustCompile(`… and ([0-9,]+) more`).FindStringSubmatch(body)
		if shown < 10 || more == nil || more[1] != notice.Number(250-shown) {
			t.Errorf("%s lists %d of 250 tickets and says %q more: %.300s", format, shown, more, body)
		}
	}
}

// TestEscapes checks a few escapes word for word.
func TestEscapes(t *testing.T) {
	t.Parallel()
	n := sampleTicket()
	n.Ticket.Title = "<!channel> a & b *c* @everyone [x](https://evil.example)"
	cases := []struct{ format, want string }{
		{Slack, `&lt;!channel&gt; a &amp; b *c* @everyone [x](https://evil.example)`},
		{Discord, `\<!channel\> a & b \*c\* \@everyone \[x\](https://evil.example)`},
		{Mattermost, "<\u200b!channel> a & b *c* @\u200beveryone [x](https://evil.example)"},
		{GoogleChat, "<\u200b!channel> a & b *c* @everyone [x](https://evil.example)"},
	}
	for _, c := range cases {
		r, err := Render(c.format, n)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(jsonStrings(t, r.Body), c.want) {
			t.Errorf("%s: no %q in %s", c.format, c.want, r.Body)
		}
		// Mattermost rewrites Slack's announcement into @channel in every
		// text of an attachment, its plain title too (Slack's plain_text
		// and Google Chat's header read no markup).
		if c.format == Mattermost && strings.Contains(jsonStrings(t, r.Body), "<!channel>") {
			t.Errorf("%s: <!channel> as sent in %s", c.format, r.Body)
		}
	}
}

// jsonStrings joins every string of a JSON document, one a line.
func jsonStrings(t *testing.T, body []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch v := v.(type) {
		case string:
			out = append(out, v)
		case []any:
			for _, x := range v {
				walk(x)
			}
		case map[string]any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(v)
	return strings.Join(out, "\n")
}

func TestFormats(t *testing.T) {
	t.Parallel()
	want := []string{"errata", "slack", "teams", "discord", "mattermost", "google-chat", "ntfy"}
	if got := Formats(); !slices.Equal(got, want) {
		t.Errorf("Formats() = %v, want %v", got, want)
	}
	for _, f := range want {
		if !Valid(f) {
			t.Errorf("Valid(%q) = false", f)
		}
	}
	for _, f := range []string{"", "Slack", "msteams", "webhook", "email"} {
		if Valid(f) {
			t.Errorf("Valid(%q) = true", f)
		}
	}
}

func TestRenderErrors(t *testing.T) {
	t.Parallel()
	if _, err := Render(Errata, sampleTicket()); !errors.Is(err, ErrErrataFormat) {
		t.Errorf("errata: %v, want ErrErrataFormat", err)
	}
	if _, err := Render("telegram", sampleTicket()); err == nil {
		t.Error("an unknown format rendered")
	}
	both := sampleTicket()
	both.Test = sampleTest().Test
	for _, n := range []notice.Notification{{}, both} {
		if _, err := Render(Slack, n); err == nil {
			t.Errorf("%+v rendered", n)
		}
	}
}

// TestSeverity checks what severity changes: ntfy's priority and tags,
// Discord's colour.
func TestSeverity(t *testing.T) {
	t.Parallel()
	cases := []struct {
		n        notice.Notification
		priority string
		tags     string
		colour   string
	}{
		{sampleTicket(), "5", "rotating_light,critical", `"color":12131356`},
		{sampleRegression(), "4", "warning,high", `"color":12730636`},
		{withSeverity("medium"), "3", "yellow_circle,medium", `"color":10576391`},
		{sampleDigest(), "3", "memo,digest", `"color":2450411`},
		{sampleTest(), "3", "white_check_mark,test", `"color":1483594`},
	}
	for _, c := range cases {
		r, err := Render(Ntfy, c.n)
		if err != nil {
			t.Fatal(err)
		}
		if r.Headers[NtfyPriority] != c.priority || r.Headers[NtfyTags] != c.tags {
			t.Errorf("ntfy %s: priority %s tags %s, want %s %s", c.n.Event(), r.Headers[NtfyPriority], r.Headers[NtfyTags], c.priority, c.tags)
		}
		if r, _ = Render(Discord, c.n); !strings.Contains(string(r.Body), c.colour) {
			t.Errorf("discord %s: no %s in %s", c.n.Event(), c.colour, r.Body)
		}
	}
}

func withSeverity(s string) notice.Notification {
	n := sampleTicket()
	n.Ticket.Severity = s
	return n
}

// TestNtfyTitleEncoding checks that a title that is not ASCII, or looks
// encoded, travels RFC 2047-encoded and decodes to what was written.
func TestNtfyTitleEncoding(t *testing.T) {
	t.Parallel()
	for _, title := range []string{"plain title", "Fehler in Größe 😀", "=?UTF-8?B?aGk=?= looks encoded"} {
		n := sampleTicket()
		n.Ticket.Title = title
		r, err := Render(Ntfy, n)
		if err != nil {
			t.Fatal(err)
		}
		got, err := wordDecoder.DecodeHeader(r.Headers[NtfyTitle])
		if err != nil || got != "critical: "+title {
			t.Errorf("title %q travels as %q, decodes to %q (%v)", title, r.Headers[NtfyTitle], got, err)
		}
	}
}

// TestLongFactsSayTheyWereCut: a fact longer than any target shows ends
// with "…" in every format, the one whose own limit is the facts' cut
// (Mattermost's 500 characters) included.
func TestLongFactsSayTheyWereCut(t *testing.T) {
	t.Parallel()
	n := sampleTicket()
	n.Ticket.Facts = []notice.Fact{{Name: "Sample message", Value: "LongSample " + strings.Repeat("abcdefghij", 1200)}}
	for _, format := range Formats()[1:] {
		r, err := Render(format, n)
		if err != nil {
			t.Fatal(err)
		}
		body := string(r.Body)
		i := strings.Index(body, "LongSample ")
		if i < 0 {
			t.Fatalf("%s: the fact is not shown: %s", format, body)
		}
		rest := body[i:]
		end := strings.IndexFunc(rest, func(r rune) bool {
			return r != ' ' && (r < 'a' || r > 'j') && r != 'L' && r != 'o' && r != 'n' && r != 'S' && r != 'm' && r != 'p' && r != 'l' && r != 'e'
		})
		if end < 0 || !strings.HasPrefix(rest[end:], "…") {
			t.Errorf("%s: the cut fact does not end with …: %.80q", format, rest[max(0, end-20):])
		}
	}
}

// TestUnignoredHeading: a ticket opened because an ignored group met its
// condition says so, as a regression's does.
func TestUnignoredHeading(t *testing.T) {
	n := sampleRegression()
	n.Ticket.Reason = "unignored"
	if m := ticketMessage(n.Ticket, "shop"); !strings.Contains(m.heading, "Back in shop: an ignored error met its condition") {
		t.Errorf("heading = %q, want it to say the ignored error met its condition", m.heading)
	}
}
