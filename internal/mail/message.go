package mail

import (
	"context"
	"fmt"
	"net/textproto"
	"strings"

	gomail "github.com/wneessen/go-mail"
)

// Message is one email: a text body, an optional HTML alternative, and
// extra header fields such as List-Unsubscribe.
type Message struct {
	// Subject is sent on one line: line breaks and other control characters
	// become spaces.
	Subject string
	Text    string
	// HTML, when not empty, is sent as a text/html alternative to Text.
	HTML string
	// Headers are extra header fields. Names must be RFC 5322 field names
	// other than the ones the Sender writes itself (From, To, Subject, Date,
	// MIME structure, …); values must be single lines. Either mistake fails
	// the send with a permanent error rather than being repaired.
	Headers map[string]string
}

// reserved are the header fields the Sender or go-mail writes.
var reserved = map[string]bool{
	"From": true, "To": true, "Cc": true, "Bcc": true, "Reply-To": true, "Sender": true,
	"Subject": true, "Date": true, "Message-Id": true, "Mime-Version": true,
	"Content-Type": true, "Content-Transfer-Encoding": true, "Return-Path": true,
}

// SendMessage delivers m to one recipient. Use Temporary on the error to
// decide whether to try again.
func (s *Sender) SendMessage(ctx context.Context, to string, m Message) error {
	msg, err := s.build(to, m)
	if err != nil {
		return err
	}
	c, err := gomail.NewClient(s.host, s.opts...)
	if err != nil {
		return fmt.Errorf("mail: client: %w", err)
	}
	if err := c.DialAndSendWithContext(ctx, msg); err != nil {
		return fmt.Errorf("mail: send to %s: %w", s.host, err)
	}
	return nil
}

func (s *Sender) build(to string, m Message) (*gomail.Msg, error) {
	msg := gomail.NewMsg()
	if err := msg.From(s.from); err != nil {
		return nil, &invalidError{fmt.Errorf("mail: from: %w", err)}
	}
	if err := msg.To(to); err != nil {
		return nil, &invalidError{fmt.Errorf("mail: to: %w", err)}
	}
	msg.Subject(oneLine(m.Subject))
	for name, value := range m.Headers {
		canonical := textproto.CanonicalMIMEHeaderKey(name)
		switch {
		case !fieldName(name) || reserved[canonical]:
			return nil, &invalidError{fmt.Errorf("mail: header %q cannot be set", name)}
		case strings.ContainsFunc(value, control):
			return nil, &invalidError{fmt.Errorf("mail: header %s: value has a control character", canonical)}
		}
		msg.SetGenHeader(gomail.Header(canonical), value)
	}
	msg.SetBodyString(gomail.TypeTextPlain, m.Text)
	if m.HTML != "" {
		msg.AddAlternativeString(gomail.TypeTextHTML, m.HTML)
	}
	return msg, nil
}

// oneLine replaces control characters (CR and LF among them) with spaces.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if control(r) {
			return ' '
		}
		return r
	}, s)
}

func control(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }

// fieldName reports whether s is an RFC 5322 field name: printable ASCII
// without spaces or colons.
func fieldName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c <= ' ' || c > '~' || c == ':' {
			return false
		}
	}
	return true
}

// invalidError is a message that cannot be sent as built; sending it again
// cannot help.
type invalidError struct{ err error }

func (e *invalidError) Error() string { return e.err.Error() }
func (e *invalidError) Unwrap() error { return e.err }
