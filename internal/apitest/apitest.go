// Package apitest starts a real Errata HTTP server on a fresh SQLite or
// PostgreSQL database for a test and talks to it over loopback HTTP. API
// scenario tests run every case on both databases.
package apitest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/app"
	"github.com/errata-dev/errata/internal/auth"
	"github.com/errata-dev/errata/internal/config"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// CheapArgon2 keeps password hashing fast in tests.
var CheapArgon2 = auth.Argon2{MemoryKiB: 64, Time: 1, Threads: 1}

// Server is a running Errata API.
type Server struct {
	t   testing.TB
	URL string
	// GRPCAddr is the OTLP/gRPC address when the settings turn it on (see
	// WithGRPC), else "".
	GRPCAddr string
	App      *app.App
	Config   config.Serve
	// DatabaseURL is the fresh database the server runs on.
	DatabaseURL string
	// Clock is the clock of every service of the server: real time until
	// the test sets or advances it.
	Clock  *Clock
	client *http.Client
}

// Clock is a test server's clock: the wall clock, shifted by what the test
// advanced it, or frozen at what the test set.
type Clock struct {
	mu     sync.Mutex
	frozen time.Time
	shift  time.Duration
}

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.frozen.IsZero() {
		return c.frozen
	}
	return time.Now().Add(c.shift)
}

// Set freezes the clock at t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	c.frozen = t
	c.mu.Unlock()
}

// Advance moves the clock forward by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	if c.frozen.IsZero() {
		c.shift += d
	} else {
		c.frozen = c.frozen.Add(d)
	}
	c.mu.Unlock()
}

// WithGRPC serves OTLP/gRPC on a free loopback port (Server.GRPCAddr).
func WithGRPC(c *config.Serve) { c.GRPCAddr = "127.0.0.1:0" }

// Each runs fn once per database, each on its own fresh server.
func Each(t *testing.T, fn func(t *testing.T, s *Server), opts ...func(*config.Serve)) {
	t.Helper()
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) { fn(t, Start(t, d, opts...)) })
	}
}

// DefaultServe returns the serve settings tests start from.
func DefaultServe(addr string) config.Serve {
	return config.Serve{
		Roles: []string{"api"}, Addr: addr, GRPCAddr: "off", MailFrom: "Errata <errata@example.com>",
		Signup: "invite-only", DefaultPlan: "team", InfoWindow: time.Hour,
		WebhookRetryWaits: []time.Duration{time.Minute, 5 * time.Minute, 15 * time.Minute, time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour},
		APIRateLimit:      1000, APIRateBurst: 1000, IngestRateLimit: 100, IngestRateBurst: 200, SentryRateLimit: 1000, SentryRateBurst: 2000, ShutdownTimeout: 5 * time.Second, WorkerLease: 30 * time.Second, DeliveryLease: 2 * time.Minute,
		RetentionDays: 90, GroupSamples: 10, SpikeMin: 50, SpikeFactor: 10,
		ReadTimeout: time.Minute, MaxConnections: 10000, IngestMemory: 256 << 20, IPv6Prefix: 64,
	}
}

// Start runs a server on a fresh database of dialect d.
func Start(t testing.TB, d store.Dialect, opts ...func(*config.Serve)) *Server {
	t.Helper()
	return StartOn(t, storetest.MigratedURL(t, d), opts...)
}

// StartOn runs a server on the database at dbURL (a fresh one from
// storetest, perhaps reached through a testproxy).
func StartOn(t testing.TB, dbURL string, opts ...func(*config.Serve)) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	cfg := DefaultServe(ln.Addr().String())
	for _, o := range opts {
		o(&cfg)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("serve settings: %v", err)
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if testing.Verbose() {
		log = slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	clock := &Clock{}
	a, err := app.New(context.Background(), app.Options{
		Store: config.Store{DatabaseURL: dbURL}, Serve: cfg, Log: log, Argon2: CheapArgon2, Now: clock.Now,
	})
	if err != nil {
		t.Fatalf("start app: %v", err)
	}
	if err := a.Start(context.Background()); err != nil {
		t.Fatalf("start app services: %v", err)
	}
	hs := &httptest.Server{Listener: ln, Config: &http.Server{Handler: a.HTTP}}
	hs.Start()
	t.Cleanup(func() {
		hs.Close()
		_ = a.Close() // stops OTLP/gRPC too
	})
	s := &Server{t: t, URL: hs.URL, App: a, Config: cfg, DatabaseURL: dbURL, Clock: clock, client: &http.Client{}}
	if a.GRPC != nil {
		gln, err := net.Listen("tcp", cfg.GRPCAddr)
		if err != nil {
			t.Fatalf("listen for gRPC: %v", err)
		}
		go func() { _ = a.ServeGRPC(gln) }()
		s.GRPCAddr = gln.Addr().String()
	}
	return s
}

// Run runs the whole app on a fresh database of dialect d as errata serve
// does (app.Run: its own listeners with the read timeout and the
// connection cap, and OTLP/gRPC when opts turn it on), until the test
// ends. Tests of what a server does to its connections need it; Start's
// plain httptest server has none of those limits.
func Run(t testing.TB, d store.Dialect, opts ...func(*config.Serve)) *Server {
	t.Helper()
	cfg := DefaultServe("127.0.0.1:0")
	for _, o := range opts {
		o(&cfg)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatalf("serve settings: %v", err)
	}
	dbURL := storetest.MigratedURL(t, d)
	a, err := app.New(context.Background(), app.Options{
		Store: config.Store{DatabaseURL: dbURL}, Serve: cfg,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Argon2: CheapArgon2,
	})
	if err != nil {
		t.Fatalf("start app: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx, func(addr net.Addr) { ready <- addr }) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	select {
	case addr := <-ready:
		return &Server{t: t, URL: "http://" + addr.String(), GRPCAddr: a.GRPCAddr(), App: a, Config: cfg,
			DatabaseURL: dbURL, client: &http.Client{}}
	case err := <-done:
		t.Fatalf("Run: %v", err)
		return nil
	}
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(b), "\n"))
	return len(b), nil
}

// Response is a read answer.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// Request is one request to send.
type Request struct {
	Method, Path string
	// Token is sent as a bearer token when not empty.
	Token string
	// Body is JSON-encoded unless it is a string or []byte, sent as is.
	Body    any
	Headers map[string]string
	Cookies []*http.Cookie
}

// Do sends r and reads the whole answer.
func (s *Server) Do(r Request) *Response {
	s.t.Helper()
	var body io.Reader
	switch b := r.Body.(type) {
	case nil:
	case string:
		body = strings.NewReader(b)
	case []byte:
		body = bytes.NewReader(b)
	default:
		enc, err := json.Marshal(b)
		if err != nil {
			s.t.Fatalf("encode body: %v", err)
		}
		body = bytes.NewReader(enc)
	}
	req, err := http.NewRequest(r.Method, s.URL+r.Path, body)
	if err != nil {
		s.t.Fatalf("new request: %v", err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if r.Token != "" {
		req.Header.Set("Authorization", "Bearer "+r.Token)
	}
	for k, v := range r.Headers {
		req.Header.Set(k, v)
	}
	for _, c := range r.Cookies {
		req.AddCookie(c)
	}
	res, err := s.client.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v", r.Method, r.Path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		s.t.Fatalf("read body: %v", err)
	}
	return &Response{Status: res.StatusCode, Header: res.Header, Body: b}
}

// JSON decodes the body into a map.
func (r *Response) JSON(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("body is not a JSON object: %v: %s", err, r.Body)
	}
	return m
}

// Str returns a string field of the JSON body.
func (r *Response) Str(t testing.TB, field string) string {
	t.Helper()
	v, _ := r.JSON(t)[field].(string)
	return v
}

// Code returns the problem code: the last segment of the problem type.
func (r *Response) Code(t testing.TB) string {
	t.Helper()
	typ := r.Str(t, "type")
	return typ[strings.LastIndexByte(typ, '/')+1:]
}

// Expect fails the test unless the answer has status and, for problems, code.
func (r *Response) Expect(t testing.TB, status int, code string) *Response {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status = %d, want %d; body: %s", r.Status, status, r.Body)
	}
	if code != "" {
		if ct := r.Header.Get("Content-Type"); ct != "application/problem+json" {
			t.Fatalf("Content-Type = %q, want application/problem+json", ct)
		}
		if got := r.Code(t); got != code {
			t.Fatalf("problem code = %q, want %q; body: %s", got, code, r.Body)
		}
	}
	return r
}
