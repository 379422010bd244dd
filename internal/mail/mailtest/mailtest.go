// Package mailtest runs a real SMTP server (github.com/emersion/go-smtp) in
// the test process, so that email tests exercise the whole path: dial, AUTH
// PLAIN, MAIL, RCPT and DATA. It keeps every message it accepts and parses
// them for assertions.
package mailtest

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	"net/mail"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// User and Password are the credentials the server accepts.
const (
	User     = "errata"
	Password = "s3cret pass"
)

// Message is one accepted email.
type Message struct {
	// From and To are the SMTP envelope (MAIL FROM and RCPT TO).
	From string
	To   []string
	// Header is the parsed message header.
	Header mail.Header
	// Raw is the message as received.
	Raw []byte
	// Parts maps each leaf content type (text/plain, text/html, …) to its
	// decoded body; a single-part message has one entry.
	Parts map[string]string
}

// Server is a running SMTP server that requires AUTH PLAIN with User and
// Password.
type Server struct {
	t    testing.TB
	srv  *smtp.Server
	addr string

	mu      sync.Mutex
	msgs    []Message
	reject  *smtp.SMTPError
	rcpt    map[string]*smtp.SMTPError // RCPT TO answers by lowercased address
	changed chan struct{}              // closed and replaced whenever msgs grows
}

// Start runs a server on a loopback port until the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("mailtest: listen: %v", err)
	}
	s := &Server{t: t, addr: ln.Addr().String(), changed: make(chan struct{})}
	s.srv = smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &session{s: s}, nil }))
	s.srv.Domain = "mailtest.localhost"
	s.srv.AllowInsecureAuth = true // plain-text AUTH on loopback, as a local relay would allow
	s.srv.ReadTimeout, s.srv.WriteTimeout = 30*time.Second, 30*time.Second
	s.srv.MaxMessageBytes = 10 << 20
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = s.srv.Serve(ln)
	}()
	t.Cleanup(func() {
		_ = s.srv.Close()
		_ = ln.Close() // Close alone misses a Serve that has not started yet
		<-done
	})
	return s
}

// Addr is the server's host:port.
func (s *Server) Addr() string { return s.addr }

// URL is an ERRATA_SMTP_URL that reaches the server with valid credentials.
func (s *Server) URL() string {
	return (&url.URL{Scheme: "smtp", User: url.UserPassword(User, Password), Host: s.addr}).String()
}

// Reject makes the server answer every later DATA with code (a 4xx or 5xx)
// and message; code 0 accepts messages again.
func (s *Server) Reject(code int, message string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reject = nil
	if code != 0 {
		s.reject = &smtp.SMTPError{Code: code, Message: message}
	}
}

// RejectRcpt makes the server answer RCPT TO:<addr> with code (a 4xx or
// 5xx) and message, as a mailbox that is full (452), greylisted (451) or
// unknown (550) would; code 0 accepts the address again.
func (s *Server) RejectRcpt(addr string, code int, message string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rcpt == nil {
		s.rcpt = map[string]*smtp.SMTPError{}
	}
	delete(s.rcpt, strings.ToLower(addr))
	if code != 0 {
		s.rcpt[strings.ToLower(addr)] = &smtp.SMTPError{Code: code, Message: message}
	}
}

func (s *Server) rcptAnswer(addr string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.rcpt[strings.ToLower(addr)]; ok {
		return e
	}
	return nil
}

// Messages returns the messages accepted so far.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.msgs...)
}

// Wait returns the first accepted message for which match is true, waiting
// up to timeout for it to arrive.
func (s *Server) Wait(t testing.TB, timeout time.Duration, match func(Message) bool) Message {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		for _, m := range s.msgs {
			if match(m) {
				s.mu.Unlock()
				return m
			}
		}
		changed, n := s.changed, len(s.msgs)
		s.mu.Unlock()
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("mailtest: no matching message within %s (%d received)", timeout, n)
		}
	}
}

// Count waits up to timeout until n messages were accepted in all and
// returns them; fewer in time, or more, fails the test.
func (s *Server) Count(t testing.TB, timeout time.Duration, n int) []Message {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		msgs, changed := append([]Message(nil), s.msgs...), s.changed
		s.mu.Unlock()
		if len(msgs) > n {
			t.Fatalf("mailtest: %d messages received, want %d", len(msgs), n)
		}
		if len(msgs) == n {
			return msgs
		}
		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("mailtest: %d messages within %s, want %d", len(msgs), timeout, n)
		}
	}
}

// To matches a message whose envelope names addr as a recipient.
func To(addr string) func(Message) bool {
	return func(m Message) bool {
		for _, r := range m.To {
			if strings.EqualFold(r, addr) {
				return true
			}
		}
		return false
	}
}

func (s *Server) add(m Message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reject != nil {
		return s.reject
	}
	s.msgs = append(s.msgs, m)
	close(s.changed)
	s.changed = make(chan struct{})
	return nil
}

type session struct {
	s      *Server
	authed bool
	from   string
	to     []string
}

func (ss *session) AuthMechanisms() []string { return []string{sasl.Plain} }

func (ss *session) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if user != User || pass != Password {
			return smtp.ErrAuthFailed
		}
		ss.authed = true
		return nil
	}), nil
}

func (ss *session) Mail(from string, _ *smtp.MailOptions) error {
	if !ss.authed {
		return smtp.ErrAuthRequired
	}
	ss.from = from
	return nil
}

func (ss *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	if !ss.authed {
		return smtp.ErrAuthRequired
	}
	if err := ss.s.rcptAnswer(to); err != nil {
		return err
	}
	ss.to = append(ss.to, to)
	return nil
}

func (ss *session) Data(r io.Reader) error {
	if !ss.authed {
		return smtp.ErrAuthRequired
	}
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	m, err := Parse(raw)
	if err != nil {
		ss.s.t.Errorf("mailtest: unreadable message: %v\n%s", err, raw)
		return &smtp.SMTPError{Code: 554, Message: "unreadable message"}
	}
	m.From, m.To = ss.from, append([]string(nil), ss.to...)
	return ss.s.add(m)
}

func (ss *session) Reset()        { ss.from, ss.to = "", nil }
func (ss *session) Logout() error { return nil }

// Parse reads a raw RFC 5322 message, decoding its MIME parts.
func Parse(raw []byte) (Message, error) {
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return Message{}, err
	}
	m := Message{Header: msg.Header, Raw: raw, Parts: map[string]string{}}
	if err := collect(m.Parts, msg.Header.Get("Content-Type"), msg.Header.Get("Content-Transfer-Encoding"), msg.Body); err != nil {
		return Message{}, err
	}
	return m, nil
}

// collect walks a MIME entity, storing each leaf's decoded body by type.
func collect(parts map[string]string, contentType, encoding string, body io.Reader) error {
	if contentType == "" {
		contentType = "text/plain"
	}
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return fmt.Errorf("content type %q: %w", contentType, err)
	}
	if strings.HasPrefix(mt, "multipart/") {
		mr := multipart.NewReader(body, params["boundary"])
		for {
			p, err := mr.NextPart() // decodes quoted-printable itself
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
			if err := collect(parts, p.Header.Get("Content-Type"), p.Header.Get("Content-Transfer-Encoding"), p); err != nil {
				return err
			}
		}
	}
	b, err := io.ReadAll(decode(encoding, body))
	if err != nil {
		return fmt.Errorf("%s body: %w", mt, err)
	}
	parts[mt] = string(b)
	return nil
}

func decode(encoding string, r io.Reader) io.Reader {
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "base64":
		return base64.NewDecoder(base64.StdEncoding, r)
	case "quoted-printable":
		return quotedprintable.NewReader(r)
	}
	return r
}
