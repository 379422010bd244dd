package mail_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/textproto"
	"net/url"
	"os"
	"testing"

	"github.com/errata-dev/errata/internal/mail"
	"github.com/errata-dev/errata/internal/mail/mailtest"
)

// TestTemporaryServerAnswers sends through a real SMTP server answering
// each way that matters and checks how the failure is classified.
func TestTemporaryServerAnswers(t *testing.T) {
	t.Parallel()
	srv := mailtest.Start(t)
	srv.RejectRcpt("greylisted@example.com", 451, "try again later")
	srv.RejectRcpt("full@example.com", 452, "mailbox full")
	srv.RejectRcpt("unknown@example.com", 550, "no such user")
	srv.RejectRcpt("policy@example.com", 554, "rejected by policy")
	s := newSender(t, srv)
	tests := []struct {
		to        string
		code      int
		temporary bool
	}{
		{"greylisted@example.com", 451, true},
		{"full@example.com", 452, true},
		{"unknown@example.com", 550, false},
		{"policy@example.com", 554, false},
	}
	for _, tt := range tests {
		t.Run(tt.to, func(t *testing.T) {
			err := s.SendMessage(context.Background(), tt.to, mail.Message{Subject: "s", Text: "t", HTML: "<p>h</p>"})
			if err == nil {
				t.Fatal("SendMessage succeeded, want the server's refusal")
			}
			if got := mail.ReplyCode(err); got != tt.code {
				t.Errorf("ReplyCode(%v) = %d, want %d", err, got, tt.code)
			}
			if got := mail.Temporary(err); got != tt.temporary {
				t.Errorf("Temporary(%v) = %t, want %t", err, got, tt.temporary)
			}
		})
	}
	if n := len(srv.Messages()); n != 0 {
		t.Fatalf("%d messages accepted, want none", n)
	}
}

func TestTemporaryDataAndAuth(t *testing.T) {
	t.Parallel()
	srv := mailtest.Start(t)
	s := newSender(t, srv)
	msg := mail.Message{Subject: "s", Text: "t"}
	for _, code := range []int{421, 451, 552, 554} {
		srv.Reject(code, "at DATA")
		err := s.SendMessage(context.Background(), "ada@example.com", msg)
		if got := mail.ReplyCode(err); got != code {
			t.Errorf("DATA %d: ReplyCode(%v) = %d", code, err, got)
		}
		if got, want := mail.Temporary(err), code < 500; got != want {
			t.Errorf("DATA %d: Temporary(%v) = %t, want %t", code, err, got, want)
		}
	}
	srv.Reject(0, "")

	u, _ := url.Parse(srv.URL())
	u.User = url.UserPassword(mailtest.User, "wrong")
	wrong, err := mail.New(u.String(), "errata@example.com")
	if err != nil {
		t.Fatal(err)
	}
	err = wrong.SendMessage(context.Background(), "ada@example.com", msg)
	if mail.ReplyCode(err)/100 != 5 || mail.Temporary(err) {
		t.Errorf("wrong password: ReplyCode %d, Temporary %t (%v); want a permanent 5xx", mail.ReplyCode(err), mail.Temporary(err), err)
	}
}

func TestTemporaryNetwork(t *testing.T) {
	t.Parallel()
	// A port nobody listens on: connection refused.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	s, err := mail.New("smtp://"+addr, "errata@example.com")
	if err != nil {
		t.Fatal(err)
	}
	err = s.SendMessage(context.Background(), "ada@example.com", mail.Message{Subject: "s", Text: "t"})
	if err == nil || !mail.Temporary(err) || mail.ReplyCode(err) != 0 {
		t.Errorf("refused: err %v, Temporary %t, ReplyCode %d; want temporary without a code", err, mail.Temporary(err), mail.ReplyCode(err))
	}

	// A server that hangs up at once.
	hangup, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = hangup.Close() })
	go func() {
		for {
			c, err := hangup.Accept()
			if err != nil {
				return
			}
			_ = c.Close()
		}
	}()
	s, err = mail.New("smtp://"+hangup.Addr().String(), "errata@example.com")
	if err != nil {
		t.Fatal(err)
	}
	err = s.SendMessage(context.Background(), "ada@example.com", mail.Message{Subject: "s", Text: "t"})
	if err == nil || !mail.Temporary(err) {
		t.Errorf("hang-up: err %v, Temporary %t; want temporary", err, mail.Temporary(err))
	}
}

func TestTemporaryErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"421 greeting", fmt.Errorf("mail: send: %w", &textproto.Error{Code: 421, Msg: "busy"}), true},
		{"530 greeting", &textproto.Error{Code: 530, Msg: "no"}, false},
		{"deadline", fmt.Errorf("mail: send: %w", context.DeadlineExceeded), true},
		{"cancelled", context.Canceled, true},
		{"i/o timeout", &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}, true},
		{"unknown", errors.New("something odd"), true},
	}
	for _, tt := range tests {
		if got := mail.Temporary(tt.err); got != tt.want {
			t.Errorf("%s: Temporary(%v) = %t, want %t", tt.name, tt.err, got, tt.want)
		}
	}
}
