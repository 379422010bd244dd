package mail_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/mail"
	"github.com/errata-dev/errata/internal/mail/mailtest"
)

func TestSendMessage(t *testing.T) {
	t.Parallel()
	srv := mailtest.Start(t)
	s := newSender(t, srv)
	unsubscribe := "<https://errata.example/projects/prj_0123456789abcdef/channels/chn_0123456789abcdef/settings?from=email>"
	m := mail.Message{
		Subject: "[critical] shop: boom\r\nBcc: evil@example.com",
		Text:    "Ticket opened.\n",
		HTML:    "<p>Ticket opened.</p>",
		Headers: map[string]string{"List-Unsubscribe": unsubscribe, "list-unsubscribe-post": "List-Unsubscribe=One-Click"},
	}
	if err := s.SendMessage(context.Background(), "ada@example.com", m); err != nil {
		t.Fatalf("SendMessage: %v", err)
	}
	got := srv.Wait(t, 10*time.Second, mailtest.To("ada@example.com"))
	for header, want := range map[string]string{
		"List-Unsubscribe":      unsubscribe,
		"List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
		"Subject":               "[critical] shop: boom  Bcc: evil@example.com",
		"Bcc":                   "",
	} {
		if v := strings.TrimSpace(got.Header.Get(header)); v != want {
			t.Errorf("%s = %q, want %q", header, v, want)
		}
	}
	if len(got.To) != 1 {
		t.Errorf("envelope recipients = %v, want only ada@example.com", got.To)
	}
	if ct := got.Header.Get("Content-Type"); !strings.HasPrefix(ct, "multipart/alternative") {
		t.Errorf("Content-Type = %q, want multipart/alternative", ct)
	}
	if p := strings.ReplaceAll(got.Parts["text/plain"], "\r\n", "\n"); p != m.Text {
		t.Errorf("text/plain = %q, want %q", p, m.Text)
	}
	if p := got.Parts["text/html"]; p != m.HTML {
		t.Errorf("text/html = %q, want %q", p, m.HTML)
	}
}

func TestSendMessageTextOnly(t *testing.T) {
	t.Parallel()
	srv := mailtest.Start(t)
	if err := newSender(t, srv).SendMessage(context.Background(), "ada@example.com", mail.Message{Subject: "s", Text: "just text"}); err != nil {
		t.Fatalf("SendMessage: %v", err)
	}
	got := srv.Wait(t, 10*time.Second, mailtest.To("ada@example.com"))
	if ct := got.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/plain") {
		t.Errorf("Content-Type = %q, want text/plain", ct)
	}
	if len(got.Parts) != 1 || strings.TrimSpace(got.Parts["text/plain"]) != "just text" {
		t.Errorf("parts = %q, want only text/plain", got.Parts)
	}
}

func TestSendMessageRefusesBadHeaders(t *testing.T) {
	t.Parallel()
	srv := mailtest.Start(t)
	s := newSender(t, srv)
	for name, headers := range map[string]map[string]string{
		"reserved":       {"Subject": "x"},
		"reserved lower": {"bcc": "evil@example.com"},
		"colon in name":  {"X-A: b": "c"},
		"space in name":  {"X A": "c"},
		"empty name":     {"": "c"},
		"CRLF in value":  {"List-Unsubscribe": "<https://a.example>\r\nBcc: evil@example.com"},
		"LF in value":    {"X-Note": "a\nb"},
	} {
		err := s.SendMessage(context.Background(), "ada@example.com", mail.Message{Subject: "s", Text: "t", Headers: headers})
		if err == nil || mail.Temporary(err) {
			t.Errorf("%s: SendMessage = %v, want a permanent error", name, err)
		}
	}
	if err := s.SendMessage(context.Background(), "not an address", mail.Message{Subject: "s", Text: "t"}); err == nil || mail.Temporary(err) {
		t.Errorf("bad recipient: SendMessage = %v, want a permanent error", err)
	}
	if n := len(srv.Messages()); n != 0 {
		t.Fatalf("%d messages accepted, want none", n)
	}
}

func newSender(t *testing.T, srv *mailtest.Server) *mail.Sender {
	t.Helper()
	s, err := mail.New(srv.URL(), "Errata <errata@example.com>")
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return s
}
