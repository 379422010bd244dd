package cli_test

import (
	"crypto/tls"
	"fmt"
	"io"
	"log"
	mrand "math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/testca"
	"github.com/errata-dev/errata/webhook"
)

// hookRequest is one request a hookReceiver got, and what it answered.
type hookRequest struct {
	id, event string
	body      []byte
	status    int
}

// hookReceiver is a real HTTPS webhook endpoint on 127.0.0.1 for tests that
// run `errata serve` as a child process. Its certificate is signed by a CA
// made for the test, written to caFile for the child's SSL_CERT_FILE. It
// verifies every request's Service-Signature with the public webhook
// package, answers 503 to the first request of each Service-Delivery-Id and
// 200 to the later ones, and takes its time (50–200 ms) doing so, so that
// deliveries are in flight at any moment.
type hookReceiver struct {
	URL    string
	caFile string
	srv    *httptest.Server

	mu       sync.Mutex
	secret   string
	requests []hookRequest
	seen     map[string]int  // requests per delivery id
	ok       map[string]bool // delivery ids answered 200
	problems []string        // requests that broke the spec
	active   int             // requests being answered
	// answerAll200 answers 200 to the first request of a delivery too
	// (for tests that count duplicates: a 503 asks for one).
	answerAll200 bool
}

// newHookReceiver starts the receiver; it stops when the test ends.
func newHookReceiver(t testing.TB) *hookReceiver {
	t.Helper()
	caPEM, leaf := testCertificates(t)
	h := &hookReceiver{caFile: filepath.Join(t.TempDir(), "ca.pem"), seen: map[string]int{}, ok: map[string]bool{}}
	if err := os.WriteFile(h.caFile, caPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	h.srv = httptest.NewUnstartedServer(h)
	h.srv.TLS = &tls.Config{Certificates: []tls.Certificate{leaf}, MinVersion: tls.VersionTLS12}
	// A SIGKILLed sender leaves half-done handshakes behind: not news.
	h.srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	h.srv.StartTLS()
	h.URL = h.srv.URL + "/hooks/errata"
	t.Cleanup(h.srv.Close)
	return h
}

// setSecret gives the receiver the channel's signing secret.
func (h *hookReceiver) setSecret(s string) {
	h.mu.Lock()
	h.secret = s
	h.mu.Unlock()
}

func (h *hookReceiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil {
		return // the sender went away mid-body
	}
	id := r.Header.Get("Service-Delivery-Id")
	event := r.Header.Get("Service-Event")
	h.mu.Lock()
	var bad []string
	if err := webhook.Verify(body, r.Header.Get("Service-Signature"), time.Now(), h.secret); err != nil {
		bad = append(bad, fmt.Sprintf("signature does not verify: %v", err))
	}
	if r.Method != http.MethodPost || r.URL.Path != "/hooks/errata" {
		bad = append(bad, "request is "+r.Method+" "+r.URL.Path)
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		bad = append(bad, "Content-Type "+ct)
	}
	if ua := r.Header.Get("User-Agent"); ua != "Service-Webhook/1" {
		bad = append(bad, "User-Agent "+ua)
	}
	status := http.StatusOK
	switch {
	case len(bad) > 0:
		status = http.StatusUnauthorized
		h.problems = append(h.problems, fmt.Sprintf("delivery %q: %v", id, bad))
	case h.seen[id] == 0 && !h.answerAll200:
		status = http.StatusServiceUnavailable // every delivery needs a retry
	default:
		h.ok[id] = true
	}
	h.seen[id]++
	h.requests = append(h.requests, hookRequest{id: id, event: event, body: body, status: status})
	h.active++
	h.mu.Unlock()

	time.Sleep(time.Duration(50+mrand.IntN(151)) * time.Millisecond)
	h.mu.Lock()
	h.active--
	h.mu.Unlock()
	w.WriteHeader(status)
}

// counts returns how many delivery ids were answered 200 and how many
// requests are being answered.
func (h *hookReceiver) counts() (ok, active int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.ok), h.active
}

// problemList returns the requests that broke the spec so far.
func (h *hookReceiver) problemList() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.problems...)
}

// snapshot returns every request so far and the ids answered 200.
func (h *hookReceiver) snapshot() ([]hookRequest, map[string]bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ok := make(map[string]bool, len(h.ok))
	for id := range h.ok {
		ok[id] = true
	}
	return append([]hookRequest(nil), h.requests...), ok
}

// testCertificates makes a CA and a leaf for 127.0.0.1 signed by it, and
// returns the CA's PEM and the leaf with its key.
func testCertificates(t testing.TB) ([]byte, tls.Certificate) {
	t.Helper()
	ca, err := testca.New("errata test CA")
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := ca.Leaf()
	if err != nil {
		t.Fatal(err)
	}
	return ca.PEM, leaf
}
