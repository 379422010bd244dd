package web_test

// A certificate authority of the test binary, trusted by the server under
// test through SSL_CERT_FILE, and real TLS webhook receivers on loopback
// whose certificates it signed (as internal/httpapi/receiver_test.go).
// crypto/x509 reads SSL_CERT_FILE once, when a certificate is first
// verified with the system pool; the CA is installed before the first
// receiver starts, and chanReceiver checks that it took effect, so the
// package needs no TestMain of its own.

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/config"
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
	now := time.Now()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	tpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "errata web test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, tpl, tpl, &caKey.PublicKey, caKey)
	if err != nil {
		return err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return err
	}
	leafKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "webhook receiver"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, ca, &leafKey.PublicKey, caKey)
	if err != nil {
		return err
	}
	chanCert = tls.Certificate{Certificate: [][]byte{leafDER}, PrivateKey: leafKey}
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER})
	if prev := os.Getenv("SSL_CERT_FILE"); prev != "" {
		if b, err := os.ReadFile(prev); err == nil {
			pemBytes = append(append(b, '\n'), pemBytes...)
		}
	}
	path := filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(path, pemBytes, 0o600); err != nil {
		return err
	}
	return os.Setenv("SSL_CERT_FILE", path)
}

// chanRecv is an HTTPS webhook endpoint on loopback answering status and
// counting the requests it got.
type chanRecv struct {
	URL  string
	hits atomic.Int64
}

// chanReceiver starts a receiver and fails the test unless the system
// pool trusts it (the pool was loaded before the CA was installed).
func chanReceiver(t *testing.T, status int) *chanRecv {
	t.Helper()
	chanInstallCA(t)
	rc := &chanRecv{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
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
