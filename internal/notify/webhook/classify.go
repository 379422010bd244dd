package webhook

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/errata-dev/errata/internal/notify/delivery"
)

// Error classes recorded with a failed attempt (Result.ErrorClass).
const (
	ClassHTTPStatus     = "http-status"     // the receiver answered a non-2xx status
	ClassTimeout        = "timeout"         // connect or response time-out
	ClassTLS            = "tls"             // handshake or certificate failure
	ClassNetwork        = "network"         // DNS, refused, reset, closed
	ClassBlockedAddress = "blocked-address" // a dial refused by the address or port rule (retried)
	ClassInvalidURL     = "invalid-url"     // the stored URL breaks a rule that needs no DNS (given up)
	ClassInvalidRequest = "invalid-request" // no event, delivery id or secret: a caller bug (given up)
	ClassCanceled       = "canceled"        // the caller's ctx was canceled: not a real attempt
)

// failure turns a transport error into a Result; parent is the caller's ctx
// and ctx the attempt's, whose cause tells our own time-outs apart.
func (c *Client) failure(parent, ctx context.Context, err error) delivery.Result {
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, errResponseTimeout):
		return delivery.Failed(delivery.Retry, ClassTimeout, "no response within "+c.opts.ResponseTimeout.String())
	case errors.Is(cause, errAttemptTimeout):
		return delivery.Failed(delivery.Retry, ClassTimeout, "attempt not finished within "+(2*c.opts.ConnectTimeout+2*c.opts.ResponseTimeout).String())
	case errors.Is(parent.Err(), context.Canceled):
		return delivery.Failed(delivery.Retry, ClassCanceled, "delivery attempt canceled")
	}
	class, msg := classify(err)
	return delivery.Failed(delivery.Retry, class, msg)
}

// classify names the class of a transport error and a short message without
// the URL (which may carry a token) or resolver internals.
func classify(err error) (class, msg string) {
	var (
		blocked *blockedError
		tlsErr  *tlsError
		dnsErr  *net.DNSError
		opErr   *net.OpError
		netErr  net.Error
	)
	switch {
	case errors.As(err, &blocked):
		return ClassBlockedAddress, blocked.detail
	case errors.As(err, &tlsErr):
		return ClassTLS, tlsErr.Error()
	case errors.As(err, &netErr) && netErr.Timeout(), errors.Is(err, context.DeadlineExceeded):
		var to *timeoutError
		if errors.As(err, &to) {
			return ClassTimeout, to.msg
		}
		return ClassTimeout, "timed out"
	case errors.As(err, &dnsErr):
		if dnsErr.IsNotFound {
			return ClassNetwork, "dns: no such host " + dnsErr.Name
		}
		return ClassNetwork, "dns: lookup " + dnsErr.Name + ": " + dnsErr.Err
	case errors.As(err, &opErr):
		var sys *os.SyscallError
		if errors.As(opErr.Err, &sys) {
			return ClassNetwork, sys.Error() // "connect: connection refused"
		}
		return ClassNetwork, opErr.Op + ": " + opErr.Err.Error()
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return ClassNetwork, "connection closed by the receiver"
	}
	return ClassNetwork, truncate(err.Error(), 200)
}

// tlsDetail shortens handshake errors: "tls: certificate signed by unknown authority".
func tlsDetail(err error) string {
	var (
		unknown  x509.UnknownAuthorityError
		hostname x509.HostnameError
		invalid  x509.CertificateInvalidError
		verify   *tls.CertificateVerificationError
		op       *net.OpError
	)
	switch {
	case errors.As(err, &unknown):
		return "tls: certificate signed by unknown authority"
	case errors.As(err, &hostname):
		return "tls: " + strings.TrimPrefix(hostname.Error(), "x509: ")
	case errors.As(err, &invalid):
		return "tls: " + strings.TrimPrefix(invalid.Error(), "x509: ")
	case errors.As(err, &verify):
		return "tls: " + strings.TrimPrefix(verify.Err.Error(), "x509: ")
	case errors.As(err, &op) && op.Op == "remote error":
		return "tls: receiver refused the handshake: " + strings.TrimPrefix(op.Err.Error(), "tls: ")
	case errors.Is(err, io.EOF):
		return "tls: connection closed by the receiver during the handshake"
	}
	return truncate("tls: "+strings.TrimPrefix(err.Error(), "tls: "), 200)
}

// statusResult maps an answer's status (interface section 6.4).
func statusResult(code int, h http.Header, now time.Time) delivery.Result {
	r := delivery.Result{HTTPStatus: code, ErrorClass: ClassHTTPStatus, Error: "HTTP " + strconv.Itoa(code)}
	switch {
	case code >= 200 && code <= 299:
		return delivery.Result{Outcome: delivery.Delivered, HTTPStatus: code}
	case code == http.StatusRequestTimeout || code == http.StatusTooManyRequests || code >= 500 && code <= 599:
		r.Outcome = delivery.Retry
		if code == http.StatusTooManyRequests || code == http.StatusServiceUnavailable {
			r.RetryAfter = retryAfter(h.Get("Retry-After"), now)
		}
	case code >= 300 && code <= 399:
		r.Outcome = delivery.GiveUp
		r.Error += " (redirects are not followed)"
	default: // other 4xx, and 1xx or out-of-range codes no receiver should send
		r.Outcome = delivery.GiveUp
	}
	return r
}

// retryAfter reads Retry-After as delay-seconds or an HTTP date; 0 when
// absent, unreadable or past; at most MaxRetryAfter.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	var d time.Duration
	if allDigits(v, 10) {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil || n > uint64(MaxRetryAfter/time.Second) {
			return MaxRetryAfter
		}
		d = time.Duration(n) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	}
	return min(max(d, 0), MaxRetryAfter)
}

// redact removes any signing secret from msg: secrets never reach logs or the
// delivery log. Secrets shorter than 8 bytes are not searched for (they would
// match ordinary words); real ones are whsec_ plus 32 random bytes.
func redact(msg string, secrets [][]byte) string {
	for _, s := range secrets {
		if len(s) >= 8 && strings.Contains(msg, string(s)) {
			msg = strings.ReplaceAll(msg, string(s), "[redacted]")
		}
	}
	return msg
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
