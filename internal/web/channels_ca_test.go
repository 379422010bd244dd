package web_test

// A certificate authority of the test binary, trusted by the server under
// test through SSL_CERT_FILE, and real TLS webhook receivers on loopback
// whose certificates it signed (as internal/httpapi/receiver_test.go).
// crypto/x509 reads SSL_CERT_FILE once, when a certificate is first
// verified with the system pool; the CA is installed before the first
// receiver starts, and chanReceiver checks that it took effect, so the
// package needs no TestMain of its own.

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/config"
	"github.com/errata-dev/errata/internal/testca"
)

var (
	chanCAOnce sync.Once
	chanCert   tls.Certificate
	chanCAErr  error
)

// chanAllowPrivate lets webhook URLs point at loopback
// (ERRATA_WEBHOOK_ALLOW_PRIVATE).
func chanAllowPrivate(c *config.Serve) { c.WebhookAllowPrivate = true }

// chanInstallCA makes the CA and the receivers' certificate once and names
// the CA in SSL_CERT_FILE.
func chanInstallCA(t *testing.T) {
	t.Helper()
	chanCAOnce.Do(func() { chanCAErr = chanMakeCA() })
	if chanCAErr != nil {
		t.Fatalf("test CA: %v", chanCAErr)
	}
}

func chanMakeCA() error {
	dir, err := os.MkdirTemp("", "errata-web-test-ca-")
	if err != nil {
		return err
	}
	ca, err := testca.New("errata web test CA")
	if err != nil {
		return err
	}
	if chanCert, err = ca.Leaf(); err != nil {
		return err
	}
	return ca.InstallSystem(dir)
}

// chanRecv is an HTTPS webhook endpoint on loopback answering status and
// counting the requests it got.
type chanRecv struct {
	URL  string
	hits atomic.Int64

	mu          sync.Mutex
	contentType string // of the last request
	body        []byte
}

// last returns the content type and body of the last request.
func (rc *chanRecv) last() (string, []byte) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.contentType, rc.body
}

// chanReceiver starts a receiver and fails the test unless the system
// pool trusts it (the pool was loaded before the CA was installed).
func chanReceiver(t *testing.T, status int) *chanRecv {
	t.Helper()
	chanInstallCA(t)
	rc := &chanRecv{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		rc.contentType, rc.body = r.Header.Get("Content-Type"), b
		rc.mu.Unlock()
		rc.hits.Add(1)
		w.WriteHeader(status)
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{chanCert}}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	rc.URL = srv.URL + "/hook"
	pool, err := x509.SystemCertPool()
	if err != nil {
		t.Fatalf("system pool: %v", err)
	}
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}, Timeout: 5 * time.Second}
	res, err := c.Get(srv.URL + "/probe")
	if err != nil {
		t.Fatalf("the system pool does not trust the test CA (was it loaded before SSL_CERT_FILE was set?): %v", err)
	}
	res.Body.Close()
	rc.hits.Store(0)
	return rc
}

// chanClosedURL is an https URL on loopback where nothing listens.
func chanClosedURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "https://" + addr + "/hook"
}
