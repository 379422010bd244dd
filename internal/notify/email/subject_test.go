package email_test

import (
	"context"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/errata-dev/errata/internal/mail"
	"github.com/errata-dev/errata/internal/mail/mailtest"
	"github.com/errata-dev/errata/internal/notify/notice"
)

func TestSubjectIsOneShortLine(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 500)
	for _, tt := range []struct {
		name, title string
		reason      string
		wantPrefix  string
		wantSuffix  string
	}{
		{"CRLF", "boom\r\nBcc: evil@example.com", "", "[critical] shop: boom Bcc: evil@example.com", ""},
		{"LF only", "boom\nX-Injected: 1", "", "[critical] shop: boom X-Injected: 1", ""},
		{"NUL and tab", "a\x00b\tc", "", "[critical] shop: a b c", ""},
		{"unicode separators", "a\u2028b\u2029c\u0085d", "", "[critical] shop: a b c d", ""},
		{"bidi override", "abc\u202egnp.exe", "", "[critical] shop: abcgnp.exe", ""},
		{"invalid UTF-8", "a\xffb", "", "[critical] shop: a\uFFFDb", ""},
		{"long keeps reason", long, "regression", "[critical] shop: éééé", "… (regression)"},
		{"long", long, "", "[critical] shop: éééé", "…"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tk := ticket()
			tk.Ticket.Title, tk.Ticket.Reason = tt.title, tt.reason
			s := mustRender(t, tk, unsubscribe).Subject
			if strings.ContainsAny(s, "\r\n\x00\u2028\u2029\u0085\u202e") {
				t.Errorf("Subject %q has a line break or control character", s)
			}
			if n := utf8.RuneCountInString(s); n > 200 {
				t.Errorf("Subject has %d runes, want at most 200", n)
			}
			if !strings.HasPrefix(s, tt.wantPrefix) || !strings.HasSuffix(s, tt.wantSuffix) {
				t.Errorf("Subject = %q, want %q…%q", s, tt.wantPrefix, tt.wantSuffix)
			}
		})
	}
	for name, m := range map[string]mail.Message{
		"digest": mustRender(t, notice.Notification{Project: notice.Ref{Name: "p\r\nBcc: x@example.com" + long}, Digest: &notice.Digest{Timezone: "UTC"}}, unsubscribe),
		"test":   mustRender(t, testNote("p", "c\r\nBcc: x@example.com"+long), unsubscribe),
	} {
		if strings.ContainsAny(m.Subject, "\r\n") || utf8.RuneCountInString(m.Subject) > 200 {
			t.Errorf("%s Subject = %q, want one line of at most 200 runes", name, m.Subject)
		}
	}
}

// TestHeaderInjectionOverSMTP sends a ticket whose title tries to add
// header fields and checks what the receiving server sees.
func TestHeaderInjectionOverSMTP(t *testing.T) {
	t.Parallel()
	srv := mailtest.Start(t)
	s, err := mail.New(srv.URL(), "errata@example.com")
	if err != nil {
		t.Fatal(err)
	}
	tk := ticket()
	tk.Ticket.Title = "boom\r\nBcc: evil@example.com\r\nX-Injected: yes\r\n\r\n<h1>fake body</h1>"
	tk.Project.Name = "shop\nX-Project-Injected: yes"
	if err := s.SendMessage(context.Background(), "ada@example.com", mustRender(t, tk, unsubscribe)); err != nil {
		t.Fatalf("SendMessage: %v", err)
	}
	got := srv.Wait(t, 10*time.Second, mailtest.To("ada@example.com"))
	for _, h := range []string{"Bcc", "X-Injected", "X-Project-Injected"} {
		if v := got.Header.Get(h); v != "" {
			t.Errorf("header %s = %q arrived, want none", h, v)
		}
	}
	if len(got.To) != 1 {
		t.Errorf("envelope recipients = %v, want only ada@example.com", got.To)
	}
	if got.Header.Get("List-Unsubscribe") != "<"+unsubscribe+">" {
		t.Errorf("List-Unsubscribe = %q", got.Header.Get("List-Unsubscribe"))
	}
	if !strings.HasPrefix(got.Header.Get("Subject"), "[critical] shop X-Project-Injected: yes: boom Bcc: evil@example.com") {
		t.Errorf("Subject = %q, want the title on one line", got.Header.Get("Subject"))
	}
	if len(got.Parts) != 2 || !strings.Contains(got.Parts["text/html"], "&lt;h1&gt;fake body") {
		t.Errorf("parts = %v, want text and HTML with the title escaped", got.Parts)
	}
}
