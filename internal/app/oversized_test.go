package app_test

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/config"
)

// TestOversizedBodyEndsTheConnection: a management request refused 413
// after its first MiB was read leaves the rest of its body on the wire; the
// connection must then be closed, not read on as if that rest were the
// client's next request (which was answered 400 or 431, outside the
// interface, and broke the client's kept-alive connection).
func TestOversizedBodyEndsTheConnection(t *testing.T) {
	httpAddr, _, _ := runApp(t, func(*config.Serve) {})
	c := dial(t, httpAddr)
	body := `{"email":"` + strings.Repeat("a", 2<<20) + `"}`
	sent := make(chan error, 1)
	go func() {
		_, err := fmt.Fprintf(c, "POST /v1/auth/sign-in/email HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
		sent <- err
	}()
	br := bufio.NewReader(c)
	first, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, first.Body)
	if first.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("oversized body: %d, want 413", first.StatusCode)
	}
	<-sent // all of it written, or the connection closed under it
	if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		return // closed: the client opens another connection
	}
	next, err := http.ReadResponse(br, nil)
	if err != nil {
		return // closed
	}
	if next.StatusCode != http.StatusOK {
		t.Fatalf("the next request on the connection: %d (the rest of the refused body read as a request), want 200 or a closed connection", next.StatusCode)
	}
}
