// Package mail sends Errata's emails over SMTP, configured by one URL:
// smtp://user:pass@host:port (STARTTLS when the server offers it) or
// smtps://user:pass@host:port (TLS from the first byte).
package mail

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"time"

	gomail "github.com/wneessen/go-mail"
)

// Sender sends multipart text and HTML emails.
type Sender struct {
	host string
	from string
	opts []gomail.Option
}

// New returns a Sender for smtpURL with from as the From address.
func New(smtpURL, from string) (*Sender, error) {
	u, err := url.Parse(smtpURL)
	if err != nil {
		return nil, fmt.Errorf("mail: bad SMTP URL: %w", err)
	}
	opts := []gomail.Option{gomail.WithTimeout(15 * time.Second)}
	port := 25
	switch u.Scheme {
	case "smtp":
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSOpportunistic))
		if u.Port() == "" {
			port = 587
		}
	case "smtps":
		opts = append(opts, gomail.WithSSL())
		port = 465
	default:
		return nil, errors.New("mail: SMTP URL scheme must be smtp or smtps")
	}
	if p := u.Port(); p != "" {
		if port, err = strconv.Atoi(p); err != nil {
			return nil, fmt.Errorf("mail: bad SMTP port %q", p)
		}
	}
	opts = append(opts, gomail.WithPort(port))
	if u.User != nil {
		pw, _ := u.User.Password()
		opts = append(opts, gomail.WithOpportunisticSMTPAuth(authPreference...), gomail.WithUsername(u.User.Username()), gomail.WithPassword(pw))
	}
	return &Sender{host: u.Hostname(), from: from, opts: opts}, nil
}

// authPreference is the strongest-first list of mechanisms tried. go-mail's
// auto-discovery never offers PLAIN or LOGIN without TLS, not even to a relay
// on localhost; naming them here lets go-mail's own rule apply instead: they
// send credentials only over TLS or to localhost, and fail clearly otherwise.
var authPreference = []gomail.SMTPAuthType{
	gomail.SMTPAuthSCRAMSHA256PLUS, gomail.SMTPAuthSCRAMSHA256, gomail.SMTPAuthSCRAMSHA1PLUS, gomail.SMTPAuthSCRAMSHA1,
	gomail.SMTPAuthNTLM, gomail.SMTPAuthCramMD5, gomail.SMTPAuthPlain, gomail.SMTPAuthLogin,
}

// Send delivers one email with a text part and an HTML alternative.
func (s *Sender) Send(ctx context.Context, to, subject, text, html string) error {
	return s.SendMessage(ctx, to, Message{Subject: subject, Text: text, HTML: html})
}
