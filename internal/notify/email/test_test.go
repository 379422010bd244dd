package email_test

import (
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/mail"
	"github.com/errata-dev/errata/internal/notify/email"
)

func TestRenderTest(t *testing.T) {
	t.Parallel()
	m := email.RenderTest(email.Test{Project: "shop", Channel: "Ada's <inbox>"}, unsubscribe)
	if want := "[test] shop: test notification for Ada's <inbox>"; m.Subject != want {
		t.Errorf("Subject = %q, want %q", m.Subject, want)
	}
	contains(t, "text", m.Text, "Test notification", "Ada's <inbox>", "shop", unsubscribe)
	contains(t, "html", m.HTML, "Test notification", "Ada&#39;s &lt;inbox&gt;", "shop", unsubscribe)
}

// TestEveryMessage checks what all three emails share: the unsubscribe
// header, both parts, and no external resources or style sheets.
func TestEveryMessage(t *testing.T) {
	t.Parallel()
	render := func(u string) map[string]mail.Message {
		return map[string]mail.Message{
			"ticket": email.RenderTicket(ticket(), u),
			"digest": email.RenderDigest(digest(3), u),
			"test":   email.RenderTest(email.Test{Project: "shop", Channel: "me"}, u),
		}
	}
	for name, m := range render(unsubscribe) {
		if got := m.Headers["List-Unsubscribe"]; got != "<"+unsubscribe+">" {
			t.Errorf("%s: List-Unsubscribe = %q", name, got)
		}
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
			lacks(t, name, m.HTML, "unsubscribe</a>")
			lacks(t, name, m.Text, "unsubscribe:")
		}
	}
}
