// Package webhook is the sending side of webhooks: the URL rules, an
// SSRF-safe HTTPS client that checks every dial, and request signing
// (interface sections 2, 5, 6 and 6.4). It keeps no state beyond pooled
// connections; retries and scheduling belong to the caller.
package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/errata-dev/errata/internal/notify/delivery"
)

// Defaults and fixed limits of a delivery attempt.
const (
	DefaultConnectTimeout  = 5 * time.Second  // DNS, TCP and TLS together
	DefaultResponseTimeout = 10 * time.Second // request written to answer read
	DefaultMaxConnAge      = 30 * time.Second // reuse of a pooled connection after its checked dial
	MaxRetryAfter          = 12 * time.Hour   // cap on an honoured Retry-After
	MaxResponseBody        = 4 << 10          // bytes of an answer read; the rest is dropped
	UserAgent              = "Service-Webhook/1"
)

// Options configure the URL checks and the Client. The zero value is the
// production setting.
type Options struct {
	// AllowPrivate (ERRATA_WEBHOOK_ALLOW_PRIVATE) turns off only the
	// public-address rule, for receivers on loopback or a private network in
	// development. The scheme, credential, fragment and port rules stay.
	AllowPrivate bool
	// Resolver looks up host names; nil means net.DefaultResolver.
	Resolver *net.Resolver
	// RootCAs verify receivers; nil means the system pool (which honours SSL_CERT_FILE).
	RootCAs *x509.CertPool
	// ConnectTimeout bounds DNS, TCP connect and TLS handshake; default 5s.
	ConnectTimeout time.Duration
	// ResponseTimeout bounds the time from the request being written to the
	// answer's headers and capped body being read; default 10s.
	ResponseTimeout time.Duration
	// MaxConnAge is how long after its checked dial a pooled connection may
	// still be reused; default 30s.
	MaxConnAge time.Duration
}

func (o Options) withDefaults() Options {
	if o.ConnectTimeout <= 0 {
		o.ConnectTimeout = DefaultConnectTimeout
	}
	if o.ResponseTimeout <= 0 {
		o.ResponseTimeout = DefaultResponseTimeout
	}
	if o.MaxConnAge <= 0 {
		o.MaxConnAge = DefaultMaxConnAge
	}
	return o
}

func (o Options) resolver() *net.Resolver {
	if o.Resolver == nil {
		return net.DefaultResolver
	}
	return o.Resolver
}

// Request is one delivery attempt.
type Request struct {
	URL        string   // checked again (without DNS) before sending
	Event      string   // Service-Event: ticket, digest or test
	DeliveryID string   // Service-Delivery-Id: dlv_… or tst_…, the same on every retry
	Body       []byte   // the body sent, which Service-Signature signs
	Secrets    [][]byte // signing secrets, new first during a rotation
	// ContentType is the body's type; "" means application/json.
	ContentType string
	// Headers are further headers a chat tool reads (ntfy's X-Title…).
	// They cannot replace Content-Type, User-Agent, Host, the length or
	// any Service-* header, and must be one line each.
	Headers map[string]string
	// Now is called once per Send: the signature's timestamp and the
	// reference for a Retry-After date. nil means time.Now.
	Now func() time.Time
}

// Client sends webhook deliveries. It is safe for concurrent use; build one
// per process and Close it on shutdown.
type Client struct {
	opts      Options
	dialer    *net.Dialer
	tlsConfig *tls.Config
	transport *http.Transport
}

// NewClient returns a Client speaking HTTP/1.1 over TLS only, with no proxy
// (a proxy would dial on our behalf, past the address checks), no redirects,
// no compression, and keep-alive bounded by Options.MaxConnAge.
func NewClient(opts Options) *Client {
	c := &Client{opts: opts.withDefaults()}
	c.dialer = &net.Dialer{KeepAlive: 30 * time.Second, Control: c.control}
	c.tlsConfig = &tls.Config{
		MinVersion:         tls.VersionTLS12,
		RootCAs:            opts.RootCAs,
		NextProtos:         []string{"http/1.1"},
		ClientSessionCache: tls.NewLRUClientSessionCache(512),
	}
	c.transport = &http.Transport{
		Proxy:                  nil,
		DialContext:            refusePlainDial,
		DialTLSContext:         c.dialTLS,
		DisableCompression:     true,
		MaxIdleConns:           1024,
		MaxIdleConnsPerHost:    256,
		IdleConnTimeout:        min(c.opts.MaxConnAge, maxIdleReuse),
		MaxResponseHeaderBytes: 64 << 10,
	}
	return c
}

// Close closes idle pooled connections. The Client stays usable.
func (c *Client) Close() { c.transport.CloseIdleConnections() }

var (
	errResponseTimeout = errors.New("webhook: response time-out")
	errAttemptTimeout  = errors.New("webhook: attempt time-out")
)

// Send makes one delivery attempt and says what the caller should do next.
// It never follows redirects, reads at most MaxResponseBody bytes of the
// answer, and never puts a signing secret in Result.Error.
func (c *Client) Send(ctx context.Context, r Request) delivery.Result {
	start := time.Now()
	res := c.send(ctx, r)
	res.Duration = time.Since(start)
	res.Error = redact(res.Error, r.Secrets)
	return res
}

func (c *Client) send(parent context.Context, r Request) delivery.Result {
	if r.Event == "" || r.DeliveryID == "" || len(r.Secrets) == 0 ||
		strings.ContainsAny(r.Event+r.DeliveryID, "\r\n\x00") {
		return delivery.Failed(delivery.GiveUp, ClassInvalidRequest, "delivery lacks a valid event, delivery id or signing secret")
	}
	if _, err := parseTarget(r.URL); err != nil {
		return delivery.Failed(delivery.GiveUp, ClassInvalidURL, err.Error())
	}
	if err := checkHeaders(r); err != nil {
		return delivery.Failed(delivery.GiveUp, ClassInvalidRequest, err.Error())
	}
	now := time.Now()
	if r.Now != nil {
		now = r.Now()
	}

	// Backstop for a receiver that never reads the request; the precise
	// limits are the dial's ConnectTimeout and the response timer.
	ctx, cancelAttempt := context.WithTimeoutCause(parent,
		2*c.opts.ConnectTimeout+2*c.opts.ResponseTimeout, errAttemptTimeout)
	defer cancelAttempt()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	timer := &responseTimer{d: c.opts.ResponseTimeout, cancel: cancel}
	defer timer.stop()
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		GotConn: func(info httptrace.GotConnInfo) {
			timer.reset() // a refused pooled connection wrote nothing
			c.refuseIfExpired(info)
		},
		WroteRequest: func(info httptrace.WroteRequestInfo) {
			if info.Err == nil {
				timer.start()
			}
		},
	})

	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.URL, bytes.NewReader(r.Body))
	if err != nil {
		return delivery.Failed(delivery.GiveUp, ClassInvalidURL, "webhook URL is not a valid URL")
	}
	req.Header = make(http.Header, 5+len(r.Headers))
	for k, v := range r.Headers {
		req.Header.Set(k, v)
	}
	contentType := r.ContentType
	if contentType == "" {
		contentType = "application/json"
	}
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("User-Agent", UserAgent)
	req.Header.Set("Service-Event", r.Event)
	req.Header.Set("Service-Delivery-Id", r.DeliveryID)
	req.Header.Set("Service-Signature", Sign(now.Unix(), r.Body, r.Secrets...))
	resp, err := c.transport.RoundTrip(req)
	if err != nil {
		return c.failure(parent, ctx, err)
	}
	_, err = io.Copy(io.Discard, io.LimitReader(resp.Body, MaxResponseBody))
	resp.Body.Close() // unread rest: the transport drops the connection
	if err != nil && context.Cause(ctx) != nil {
		res := c.failure(parent, ctx, err)
		res.HTTPStatus = resp.StatusCode
		return res
	}
	// Other errors while reading the body are ignored: the status is the
	// receiver's verdict, only the time limit overrides it.
	return statusResult(resp.StatusCode, resp.Header, now)
}

// responseTimer cancels the attempt ResponseTimeout after the request was
// written, so the limit covers the answer's headers and capped body.
type responseTimer struct {
	mu     sync.Mutex
	d      time.Duration
	cancel context.CancelCauseFunc
	t      *time.Timer
	done   bool
}

func (rt *responseTimer) start() {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.done {
		return
	}
	if rt.t != nil {
		rt.t.Stop()
	}
	rt.t = time.AfterFunc(rt.d, func() { rt.cancel(errResponseTimeout) })
}

// reset forgets a started timer: the transport is retrying on a fresh
// connection after a refused pooled one.
func (rt *responseTimer) reset() {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.t != nil {
		rt.t.Stop()
		rt.t = nil
	}
}

func (rt *responseTimer) stop() {
	rt.reset()
	rt.mu.Lock()
	rt.done = true
	rt.mu.Unlock()
}

// reservedHeaders are the headers a Request's Headers cannot set: the
// transport's and the signed delivery's own.
var reservedHeaders = []string{"content-type", "content-length", "transfer-encoding", "connection", "host", "user-agent"}

// checkHeaders refuses extra headers that would replace a reserved one or
// could split the request.
func checkHeaders(r Request) error {
	if strings.ContainsAny(r.ContentType, "\r\n\x00") {
		return errors.New("content type is not one line")
	}
	for k, v := range r.Headers {
		lk := strings.ToLower(k)
		if k == "" || strings.HasPrefix(lk, "service-") || slices.Contains(reservedHeaders, lk) {
			return fmt.Errorf("header %q cannot be set by a format", k)
		}
		if strings.ContainsAny(k, "\r\n\x00: \t") || strings.ContainsAny(v, "\r\n\x00") {
			return fmt.Errorf("header %q is not one line", k)
		}
	}
	return nil
}
