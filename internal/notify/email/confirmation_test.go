package email_test

import (
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/notify/email"
)

func confirmation() email.Confirmation {
	return email.Confirmation{Member: "Ada Lovelace", MemberEmail: "ada@example.com", Org: "Acme & Sons", Project: "shop",
		Channel: "on-call", ConfirmURL: "https://errata.example/email/confirm?token=tok_abc-DEF_123"}
}

// TestRenderConfirmation: the email that asks an address to confirm an email
// channel names who asked and for what, links the confirmation, and carries
// the one-click unsubscribe of the channel (RFC 8058).
func TestRenderConfirmation(t *testing.T) {
	t.Parallel()
	c := confirmation()
	m := email.RenderConfirmation(c, email.Links{Unsubscribe: unsubscribe})
	if want := "Confirm Errata notifications of shop to this address"; m.Subject != want {
		t.Errorf("Subject = %q, want %q", m.Subject, want)
	}
	if got := m.Headers["List-Unsubscribe"]; got != "<"+unsubscribe+">" {
		t.Errorf("List-Unsubscribe = %q, want <%s>", got, unsubscribe)
	}
	if got := m.Headers["List-Unsubscribe-Post"]; got != "List-Unsubscribe=One-Click" {
		t.Errorf("List-Unsubscribe-Post = %q", got)
	}
	both := []string{"Ada Lovelace (ada@example.com), a member of", "the project shop", "channel on-call",
		"Nothing is sent to this address until you confirm", "Nothing more is sent to it unless you confirm"}
	contains(t, "text", m.Text, append(both, "Acme & Sons", "Confirm and receive them:\n"+c.ConfirmURL, unsubscribe)...)
	contains(t, "html", m.HTML, append(both, "Acme &amp; Sons", `href="`+c.ConfirmURL+`"`, `href="`+htmlEscaped(unsubscribe)+`"`)...)
}

// TestRenderConfirmationEscapes: the names in it are chosen by members (who
// may be the attacker); none can add markup, headers or a link.
func TestRenderConfirmationEscapes(t *testing.T) {
	t.Parallel()
	c := confirmation()
	c.Member = "Eve\r\nBcc: evil@example.com <script>alert(1)</script>"
	c.Project = "shop\r\nBcc: evil@example.com"
	c.Channel = `<a href="https://evil.example">click</a>`
	m := email.RenderConfirmation(c, email.Links{Unsubscribe: unsubscribe})
	if strings.ContainsAny(m.Subject, "\r\n") {
		t.Errorf("Subject %q has a line break", m.Subject)
	}
	lacks(t, "html", m.HTML, "<script", `<a href="https://evil.example"`)
	c.ConfirmURL = "javascript:alert(1)"
	m = email.RenderConfirmation(c, email.Links{})
	lacks(t, "html", m.HTML, "javascript:")
	lacks(t, "text", m.Text, "javascript:", "Confirm and receive them:")
	if _, ok := m.Headers["List-Unsubscribe"]; ok {
		t.Errorf("List-Unsubscribe without an unsubscribe link = %q, want none", m.Headers["List-Unsubscribe"])
	}
}
