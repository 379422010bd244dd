package mail_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/mail"
	"github.com/errata-dev/errata/internal/mail/mailtest"
)

func TestSendMultipart(t *testing.T) {
	srv := mailtest.Start(t)
	s, err := mail.New(srv.URL(), "Errata <errata@example.com>")
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	text := "Hello Ada,\n\nA line long enough to be wrapped by quoted-printable encoding, with an equals sign = and ünïcode, goes here.\n"
	html := `<p>Hello <strong>Ada</strong>,</p><p><a href="https://errata.example/x?a=1&amp;b=2">open</a></p>`
	if err := s.Send(context.Background(), "ada@example.com", "Ticket opened: boom", text, html); err != nil {
		t.Fatalf("Send: %v", err)
	}
	m := srv.Wait(t, 10*time.Second, mailtest.To("ada@example.com"))
	if m.From != "errata@example.com" {
		t.Errorf("envelope from = %q, want errata@example.com", m.From)
	}
	for header, want := range map[string]string{"From": `"Errata" <errata@example.com>`, "To": "<ada@example.com>", "Subject": "Ticket opened: boom"} {
		if got := m.Header.Get(header); got != want {
			t.Errorf("%s = %q, want %q", header, got, want)
		}
	}
	if ct := m.Header.Get("Content-Type"); !strings.HasPrefix(ct, "multipart/alternative") {
		t.Errorf("Content-Type = %q, want multipart/alternative", ct)
	}
	if got := strings.ReplaceAll(m.Parts["text/plain"], "\r\n", "\n"); got != text {
		t.Errorf("text/plain part = %q, want %q", got, text)
	}
	if got := m.Parts["text/html"]; got != html {
		t.Errorf("text/html part = %q, want %q", got, html)
	}
	if len(m.Parts) != 2 {
		t.Errorf("parts = %v, want exactly text/plain and text/html", keys(m.Parts))
	}
}

func TestSendFailures(t *testing.T) {
	srv := mailtest.Start(t)
	ctx := context.Background()

	t.Run("wrong password", func(t *testing.T) {
		u, _ := url.Parse(srv.URL())
		u.User = url.UserPassword(mailtest.User, "wrong")
		s, err := mail.New(u.String(), "errata@example.com")
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		if err := s.Send(ctx, "ada@example.com", "s", "t", "<p>h</p>"); err == nil {
			t.Fatal("Send with a wrong password succeeded")
		}
	})
	t.Run("rejected", func(t *testing.T) {
		srv.Reject(554, "no thanks")
		defer srv.Reject(0, "")
		s, err := mail.New(srv.URL(), "errata@example.com")
		if err != nil {
			t.Fatalf("New: %v", err)
		}
		err = s.Send(ctx, "ada@example.com", "s", "t", "<p>h</p>")
		if err == nil || !strings.Contains(err.Error(), "554") {
			t.Fatalf("Send = %v, want the server's 554", err)
		}
	})
	if n := len(srv.Messages()); n != 0 {
		t.Fatalf("%d messages accepted, want none", n)
	}
}

func TestNewRejectsBadURLs(t *testing.T) {
	for _, u := range []string{"http://mail.example.com", "smtp://mail.example.com:port", "::"} {
		if _, err := mail.New(u, "errata@example.com"); err == nil {
			t.Errorf("New(%q) succeeded, want an error", u)
		}
	}
}

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
