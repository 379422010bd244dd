package email_test

import (
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/mail"
	"github.com/errata-dev/errata/internal/notify/email"
	"github.com/errata-dev/errata/internal/notify/notice"
)

// unsubscribe and channelPage are a channel email's links: the one-click
// unsubscribe URL and the channel's page.
const (
	unsubscribe = "https://errata.example/email/unsubscribe?channel=chn_0123456789abcdef&token=dG9rZW4"
	channelPage = "https://errata.example/channels/chn_0123456789abcdef"
)

func ticket() notice.Notification {
	return notice.Notification{Project: notice.Ref{ID: "prj_1", Name: "shop"}, Ticket: &notice.Ticket{
		ID: "tkt_1", Severity: "critical", Title: "TypeError: cart is undefined",
		Summary: "checkout raised TypeError 1,234 times since 09:12.\nIt started with release 2.4.1.",
		URL:     "https://errata.example/tickets/tkt_1", Reason: "new",
		Service: "checkout", Environment: "production", Release: "2.4.1", EventCount: 1234,
		Facts: []notice.Fact{{Name: "Sample message", Value: "cart is undefined"}, {Name: "Custom", Value: `["a",1.5]`}, {Name: "Nothing", Value: ""}},
	}}
}

// htmlEscaped is a URL as an HTML attribute writes it.
func htmlEscaped(u string) string { return strings.ReplaceAll(u, "&", "&amp;") }

// mustRender renders n as an email.
func mustRender(t *testing.T, n notice.Notification, unsubscribeURL string) mail.Message {
	t.Helper()
	m, err := email.Render(n, email.Links{Unsubscribe: unsubscribeURL, Channel: channelPage})
	if err != nil {
		t.Fatalf("Render: %v", err)
	}
	return m
}

func TestRenderTicket(t *testing.T) {
	t.Parallel()
	m := mustRender(t, ticket(), unsubscribe)
	if want := "[critical] shop: TypeError: cart is undefined"; m.Subject != want {
		t.Errorf("Subject = %q, want %q", m.Subject, want)
	}
	if got := m.Headers["List-Unsubscribe"]; got != "<"+unsubscribe+">" {
		t.Errorf("List-Unsubscribe = %q, want <%s>", got, unsubscribe)
	}
	both := []string{
		"New critical ticket in shop", "TypeError: cart is undefined", "1,234 times since 09:12.",
		"It started with release 2.4.1.", "https://errata.example/tickets/tkt_1", channelPage,
		"Service", "checkout", "Events", "1,234", "Sample message", "production",
	}
	contains(t, "text", m.Text, append(both, "It started with release 2.4.1.\n", `Custom: ["a",1.5]`, unsubscribe)...)
	contains(t, "html", m.HTML, append(both, `href="https://errata.example/tickets/tkt_1"`, `href="`+htmlEscaped(unsubscribe)+`"`, "[&#34;a&#34;,1.5]")...)
	lacks(t, "text", m.Text, "Nothing")
	if i, j := strings.Index(m.Text, "Service:"), strings.Index(m.Text, "Custom:"); i < 0 || j < i {
		t.Errorf("facts out of order: service at %d, custom at %d, want known facts first", i, j)
	}
}

func TestRenderTicketReason(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ reason, subject, heading string }{
		{"new", "[critical] shop: TypeError: cart is undefined", "New critical ticket in shop"},
		{"", "[critical] shop: TypeError: cart is undefined", "New critical ticket in shop"},
		{"spike", "[critical] shop: TypeError: cart is undefined (spike)", "Spike in shop"},
		{"regression", "[critical] shop: TypeError: cart is undefined (regression)", "Regression in shop"},
		{"unignored", "[critical] shop: TypeError: cart is undefined (unignored)", "Back in shop: an ignored error met its condition"},
		{"<b>odd</b>", "[critical] shop: TypeError: cart is undefined", "New critical ticket in shop"},
	} {
		tk := ticket()
		tk.Ticket.Reason = tt.reason
		m := mustRender(t, tk, unsubscribe)
		if m.Subject != tt.subject {
			t.Errorf("reason %q: Subject = %q, want %q", tt.reason, m.Subject, tt.subject)
		}
		contains(t, "text "+tt.reason, m.Text, tt.heading)
		contains(t, "html "+tt.reason, m.HTML, tt.heading)
	}
}

// TestRenderTicketEscapes feeds attacker-controlled text everywhere a
// ticket carries it.
func TestRenderTicketEscapes(t *testing.T) {
	t.Parallel()
	n := ticket()
	tk := n.Ticket
	n.Project.Name = `<img src=x onerror=alert(1)>`
	tk.Title = `<script>alert("title")</script>`
	tk.Summary = `</p><script>alert("summary")</script>`
	tk.Facts = []notice.Fact{{Name: "<b>key</b>", Value: `<a href="javascript:alert(1)">x</a>`}, {Name: "Sample message", Value: "<iframe src=//evil.example>"}}
	tk.URL = "javascript:alert(1)"
	m := mustRender(t, n, unsubscribe)
	lacks(t, "html", m.HTML, "<script", "<img", "<iframe", "<b>key", `<a href="javascript`, `href="javascript`)
	contains(t, "html", m.HTML, "&lt;script&gt;alert(&#34;title&#34;)&lt;/script&gt;", "&lt;img src=x onerror=alert(1)&gt;", "&lt;iframe")
	contains(t, "text", m.Text, `<script>alert("title")</script>`) // plain text shows it as written
	lacks(t, "text", m.Text, "Open the ticket")                    // javascript: is not offered as the link
}

func contains(t *testing.T, part, s string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(s, w) {
			t.Errorf("%s part lacks %q:\n%s", part, w, s)
		}
	}
}

func lacks(t *testing.T, part, s string, unwanted ...string) {
	t.Helper()
	for _, u := range unwanted {
		if strings.Contains(s, u) {
			t.Errorf("%s part contains %q:\n%s", part, u, s)
		}
	}
}
