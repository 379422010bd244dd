package app_test

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/http2"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/app"
	"github.com/errata-dev/errata/internal/config"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// runApp runs the whole app (app.Run: its listeners, limits and timeouts)
// on a fresh SQLite database with cfg edited by edit; it returns the HTTP
// and gRPC addresses and stop, which shuts the app down and returns what
// Run returned (it runs when the test ends too).
func runApp(t *testing.T, edit func(*config.Serve)) (httpAddr, grpcAddr string, stop func() error) {
	t.Helper()
	cfg := apitest.DefaultServe("127.0.0.1:0")
	cfg.GRPCAddr = "127.0.0.1:0"
	edit(&cfg)
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	a, err := app.New(context.Background(), app.Options{
		Store: config.Store{DatabaseURL: storetest.URL(t, store.SQLite)}, Serve: cfg,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Argon2: apitest.CheapArgon2,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx, func(addr net.Addr) { ready <- addr }) }()
	var once sync.Once
	var runErr error
	stop = func() error {
		once.Do(func() { cancel(); runErr = <-done })
		return runErr
	}
	t.Cleanup(func() { _ = stop() })
	select {
	case addr := <-ready:
		return addr.String(), a.GRPCAddr(), stop
	case err := <-done:
		t.Fatalf("Run: %v", err)
	}
	return "", "", stop
}

// closedWithin reports whether the server closes c within d, reading and
// discarding whatever it sends first (an error answer, a GOAWAY).
func closedWithin(c net.Conn, d time.Duration) bool {
	_ = c.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, c)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return false
	}
	return true
}

func dial(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// TestStalledClientsLoseTheirConnections: a request whose body stops
// arriving, a connection that sends half its headers, and gRPC connections
// that send only the HTTP/2 preface, or nothing after the handshake, are
// all closed after ERRATA_READ_TIMEOUT (CONTRACT 7), instead of holding a
// connection and a goroutine forever.
func TestStalledClientsLoseTheirConnections(t *testing.T) {
	httpAddr, grpcAddr, _ := runApp(t, func(c *config.Serve) { c.ReadTimeout = 2 * time.Second })
	// Generous: the test checks that the connection is closed at all, not
	// how fast; without the timeouts it stays open for good.
	const bound = 30 * time.Second

	body := dial(t, httpAddr)
	_, _ = io.WriteString(body, "POST /v1/ingest HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n1\r\n{")
	signIn := dial(t, httpAddr)
	_, _ = io.WriteString(signIn, "POST /v1/auth/sign-in/email HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"email\":")
	headers := dial(t, httpAddr)
	_, _ = io.WriteString(headers, "GET /healthz HTTP/1.1\r\nHost: x\r\n")
	// A kept-alive connection whose next request stops after its first
	// bytes: the whole request must arrive within the read timeout, and Go
	// starts that only once four bytes came.
	reused := dial(t, httpAddr)
	_, _ = io.WriteString(reused, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
	first, err := http.ReadResponse(bufio.NewReader(reused), nil)
	if err != nil || first.StatusCode != http.StatusOK {
		t.Fatalf("first request on the connection: %v %v", first, err)
	}
	_ = first.Body.Close()
	_, _ = io.WriteString(reused, "GET")
	preface := dial(t, grpcAddr)
	_, _ = io.WriteString(preface, http2.ClientPreface)
	handshaken := dial(t, grpcAddr)
	_, _ = io.WriteString(handshaken, http2.ClientPreface)
	fr := http2.NewFramer(handshaken, bufio.NewReader(handshaken))
	_ = fr.WriteSettings()

	for name, c := range map[string]net.Conn{"stalled ingest body": body, "stalled sign-in body": signIn, "half the headers": headers, "a reused connection's next request": reused,
		"gRPC preface only": preface, "gRPC handshake then nothing": handshaken} {
		if !closedWithin(c, bound) {
			t.Errorf("%s: the connection is still open after %s", name, bound)
		}
	}
}

// TestConnectionCap: past ERRATA_MAX_CONNECTIONS, new connections wait to
// be accepted instead of exhausting file descriptors; once stalled ones
// are closed by the read timeout, requests are served again.
func TestConnectionCap(t *testing.T) {
	httpAddr, _, _ := runApp(t, func(c *config.Serve) {
		c.MaxConnections = 3
		c.ReadTimeout = 4 * time.Second
	})
	get := func(timeout time.Duration) error {
		cl := &http.Client{Timeout: timeout, Transport: &http.Transport{DisableKeepAlives: true}}
		res, err := cl.Get("http://" + httpAddr + "/healthz")
		if err == nil {
			res.Body.Close()
		}
		return err
	}
	if err := get(10 * time.Second); err != nil {
		t.Fatalf("healthz before: %v", err)
	}
	for i := 0; i < 3; i++ {
		c := dial(t, httpAddr)
		_, _ = io.WriteString(c, "GET /healthz HTTP/1.1\r\n") // and nothing more
	}
	if err := get(time.Second); err == nil {
		t.Fatal("a fourth connection was served while three were open: no cap")
	}
	deadline := time.Now().Add(3 * time.Minute) // generous: the machine may be busy
	for get(10*time.Second) != nil {
		if time.Now().After(deadline) {
			t.Fatal("healthz never answered after the stalled connections timed out")
		}
	}
}
