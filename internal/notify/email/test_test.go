package email_test

import (
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/mail"
	"github.com/errata-dev/errata/internal/notify/email"
	"github.com/errata-dev/errata/internal/notify/notice"
)

func TestRenderTest(t *testing.T) {
	t.Parallel()
	m := mustRender(t, testNote("shop", "Ada's <inbox>"), unsubscribe)
	if want := "[test] shop: test notification for Ada's <inbox>"; m.Subject != want {
		t.Errorf("Subject = %q, want %q", m.Subject, want)
	}
	contains(t, "text", m.Text, "Test notification", "Ada's <inbox>", "shop", unsubscribe)
	contains(t, "html", m.HTML, "Test notification", "Ada&#39;s &lt;inbox&gt;", "shop", htmlEscaped(unsubscribe))
}

// TestEveryMessage checks what all three emails share: the unsubscribe
// header, both parts, and no external resources or style sheets.
func TestEveryMessage(t *testing.T) {
	t.Parallel()
	render := func(u string) map[string]mail.Message {
		return map[string]mail.Message{
			"ticket": mustRender(t, ticket(), u),
			"digest": mustRender(t, digest(3), u),
			"test":   mustRender(t, testNote("shop", "me"), u),
		}
	}
	for name, m := range render(unsubscribe) {
		if got := m.Headers["List-Unsubscribe"]; got != "<"+unsubscribe+">" {
			t.Errorf("%s: List-Unsubscribe = %q", name, got)
		}
		if got := m.Headers["List-Unsubscribe-Post"]; got != "List-Unsubscribe=One-Click" {
			t.Errorf("%s: List-Unsubscribe-Post = %q, want RFC 8058's List-Unsubscribe=One-Click", name, got)
		}
		contains(t, name+" text", m.Text, "unsubscribe (one click, no account needed): "+unsubscribe, "change this channel: "+channelPage)
		contains(t, name+" html", m.HTML, `href="`+htmlEscaped(unsubscribe)+`"`, `href="`+channelPage+`"`)
		if m.Text == "" || m.HTML == "" {
			t.Errorf("%s: text %d bytes, HTML %d bytes; want both", name, len(m.Text), len(m.HTML))
		}
		lacks(t, name+" html", strings.ToLower(m.HTML), "<img", "<link", "<script", "<style", "src=", "url(", "@import", "http://")
		if strings.Contains(m.Text, "<p") || strings.Contains(m.Text, "&lt;") {
			t.Errorf("%s: text part has HTML:\n%s", name, m.Text)
		}
		contains(t, name+" text", m.Text, "\n-- \n")
	}
	for _, bad := range []string{"", "javascript:alert(1)", "/relative", "https://a.example/x\r\nBcc: y", "https://a.example/<x>"} {
		for name, m := range render(bad) {
			if v, ok := m.Headers["List-Unsubscribe"]; ok {
				t.Errorf("%s with unsubscribe URL %q: List-Unsubscribe = %q, want none", name, bad, v)
			}
			if v, ok := m.Headers["List-Unsubscribe-Post"]; ok {
				t.Errorf("%s with unsubscribe URL %q: List-Unsubscribe-Post = %q, want none", name, bad, v)
			}
			lacks(t, name, m.HTML, "unsubscribe</a>")
			lacks(t, name, m.Text, "unsubscribe:")
		}
	}
}

// testNote is a channel test of channel in project.
func testNote(project, channel string) notice.Notification {
	return notice.Notification{Project: notice.Ref{ID: "prj_1", Name: project}, Test: &notice.Test{Channel: notice.Ref{ID: "chn_1", Name: channel}}}
}

func TestRenderRefusesAnEmptyNotification(t *testing.T) {
	t.Parallel()
	if _, err := email.Render(notice.Notification{Project: notice.Ref{Name: "shop"}}, email.Links{Unsubscribe: unsubscribe}); err == nil {
		t.Error("Render of a notification that is none of ticket, digest and test: no error")
	}
}
