package email_test

import (
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/notify/email"
)

func invitation() email.Invitation {
	return email.Invitation{Inviter: "Ada Lovelace", InviterEmail: "ada@example.com", Org: "Acme & Sons", Role: "admin",
		AcceptURL: "https://errata.example/invitations/accept?token=tok_abc-DEF_123", ExpiresAt: time.Date(2026, 12, 1, 9, 30, 0, 0, time.UTC)}
}

func TestRenderInvitation(t *testing.T) {
	t.Parallel()
	inv := invitation()
	m := email.RenderInvitation(inv)
	if want := "Ada Lovelace invited you to Acme & Sons on Errata"; m.Subject != want {
		t.Errorf("Subject = %q, want %q", m.Subject, want)
	}
	if _, ok := m.Headers["List-Unsubscribe"]; ok {
		t.Errorf("List-Unsubscribe = %q, want none on an invitation", m.Headers["List-Unsubscribe"])
	}
	both := []string{"Ada Lovelace (ada@example.com) invited you to join", "on Errata as admin", "1 December 2026 09:30 UTC",
		"If you did not expect it, ignore it"}
	contains(t, "text", m.Text, append(both, "Acme & Sons", "Accept the invitation:\n"+inv.AcceptURL)...)
	contains(t, "html", m.HTML, append(both, "Acme &amp; Sons", `href="`+inv.AcceptURL+`"`)...)
	lacks(t, "text", m.Text, "notification channel")
	lacks(t, "html", m.HTML, "notification channel", "unsubscribe")
}

// TestRenderInvitationEscapes: the inviter's name and the organization's
// are chosen by users; neither can add markup, headers or a link.
func TestRenderInvitationEscapes(t *testing.T) {
	t.Parallel()
	inv := invitation()
	inv.Inviter = "Eve\r\nBcc: evil@example.com <script>alert(1)</script>"
	inv.Org = `<a href="https://evil.example">Acme</a>`
	inv.Role = "admin<b>"
	m := email.RenderInvitation(inv)
	if strings.ContainsAny(m.Subject, "\r\n") {
		t.Errorf("Subject %q has a line break", m.Subject)
	}
	lacks(t, "html", m.HTML, "<script", `<a href="https://evil.example"`, "<b>")
	contains(t, "html", m.HTML, "&lt;script&gt;", "&lt;a href=&#34;https://evil.example&#34;&gt;")
	inv.AcceptURL = "javascript:alert(1)"
	m = email.RenderInvitation(inv)
	lacks(t, "html", m.HTML, "javascript:")
	lacks(t, "text", m.Text, "javascript:", "Accept the invitation:")
}
