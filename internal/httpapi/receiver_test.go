package httpapi_test

// A certificate authority of the test binary, trusted by the server under
// test through SSL_CERT_FILE, and real TLS webhook receivers on loopback
// whose certificates it signed.

import (
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/config"
	"github.com/errata-dev/errata/internal/testca"
	"github.com/errata-dev/errata/webhook"
)

// receiverCert is a certificate for 127.0.0.1 and ::1 signed by the test CA
// that withTestCA installs.
var receiverCert tls.Certificate

// caMain runs a package's tests with the test CA in place.
type caMain struct{ m interface{ Run() int } }

// withTestCA wraps m so that, before any test runs, a certificate authority
// of this test binary is made and named by SSL_CERT_FILE. crypto/x509 reads
// SSL_CERT_FILE once, when the system pool is first loaded, so this must
// happen before anything verifies a certificate: in TestMain.
func withTestCA(m interface{ Run() int }) caMain { return caMain{m} }

// Run installs the CA, runs the tests and removes the CA's file.
func (c caMain) Run() int {
	dir, err := os.MkdirTemp("", "errata-test-ca-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "test CA:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	if err := installTestCA(dir); err != nil {
		fmt.Fprintln(os.Stderr, "test CA:", err)
		return 1
	}
	return c.m.Run()
}

func installTestCA(dir string) error {
	ca, err := testca.New("errata httpapi test CA")
	if err != nil {
		return err
	}
	if receiverCert, err = ca.Leaf(); err != nil {
		return err
	}
	return ca.InstallSystem(dir)
}

// allowPrivate lets webhook URLs point at loopback
// (ERRATA_WEBHOOK_ALLOW_PRIVATE), for tests with receivers on 127.0.0.1.
func allowPrivate(c *config.Serve) { c.WebhookAllowPrivate = true }

// hook is one request a receiver got.
type hook struct {
	Header http.Header
	Body   []byte
}

// receiver is an HTTPS webhook endpoint on loopback that records what it
// gets and answers a status of the test's choosing.
type receiver struct {
	URL    string // https://127.0.0.1:<port>/hook
	mu     sync.Mutex
	status int
	hooks  []hook
}

func newReceiver(t *testing.T, status int) *receiver {
	t.Helper()
	if len(receiverCert.Certificate) == 0 {
		t.Fatal("no test CA: TestMain must run the tests through withTestCA")
	}
	rc := &receiver{status: status}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(rc.serve))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{receiverCert}}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	t.Cleanup(srv.Close)
	rc.URL = srv.URL + "/hook"
	return rc
}

func (rc *receiver) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	rc.mu.Lock()
	rc.hooks = append(rc.hooks, hook{Header: r.Header.Clone(), Body: body})
	st := rc.status
	rc.mu.Unlock()
	w.WriteHeader(st)
}

// got returns the requests received so far.
func (rc *receiver) got() []hook {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]hook(nil), rc.hooks...)
}

// closedURL is an https URL on loopback where nothing listens.
func closedURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "https://" + addr + "/hook"
}

// signatureRe is Service-Signature with one or two v1 entries (spec 5,
// CONTRACT 6 on rotation).
var signatureRe = regexp.MustCompile(`^t=\d{1,12}(,v1=[0-9a-f]{64}){1,2}$`)

// verified checks a delivery's headers and signature (spec 5 and 6) with
// the public webhook package and returns its decoded body.
func verified(t *testing.T, h hook, event string, secrets ...string) map[string]any {
	t.Helper()
	for k, want := range map[string]string{"Content-Type": "application/json", "User-Agent": "Service-Webhook/1", "Service-Event": event} {
		if got := h.Header.Get(k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
	sig := h.Header.Get("Service-Signature")
	if !signatureRe.MatchString(sig) {
		t.Errorf("Service-Signature = %q, want t=<unix>,v1=<64 hex>", sig)
	}
	if err := webhook.Verify(h.Body, sig, time.Now(), secrets...); err != nil {
		t.Errorf("Service-Signature %q does not verify with the channel's secret: %v", sig, err)
	}
	var body map[string]any
	if err := json.Unmarshal(h.Body, &body); err != nil {
		t.Fatalf("webhook body is not a JSON object: %v: %s", err, h.Body)
	}
	if body["type"] != event {
		t.Errorf("body type = %v, want %s", body["type"], event)
	}
	if id := h.Header.Get("Service-Delivery-Id"); id == "" || body["delivery_id"] != id {
		t.Errorf("body delivery_id = %v, Service-Delivery-Id = %q, want them equal", body["delivery_id"], id)
	}
	return body
}
