package webhook

import (
	"context"
	"crypto/tls"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/testca"
)

// testCA issues receiver certificates for loopback.
type testCA struct{ *testca.CA }

func newTestCA(t testing.TB) *testCA {
	t.Helper()
	ca, err := testca.New("errata test CA")
	if err != nil {
		t.Fatal(err)
	}
	return &testCA{ca}
}

// leaf returns a certificate for 127.0.0.1, ::1 and the test zone.
func (ca *testCA) leaf(t testing.TB) tls.Certificate {
	t.Helper()
	cert, err := ca.Leaf("loopback.errata.test", "rebind.errata.test")
	if err != nil {
		t.Fatal(err)
	}
	return cert
}

// receiver is a real HTTPS server on loopback that counts the connections it
// accepts and records how old a connection was when each request arrived.
type receiver struct {
	*httptest.Server
	conns   atomic.Int64
	hits    atomic.Int64
	mu      sync.Mutex
	maxAge  time.Duration
	release chan struct{} // closed at cleanup: stalling handlers return
}

type bornKey struct{}

func newReceiver(t testing.TB, ca *testCA, h http.HandlerFunc) *receiver {
	t.Helper()
	rc := &receiver{release: make(chan struct{})}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc.hits.Add(1)
		if born, ok := r.Context().Value(bornKey{}).(time.Time); ok {
			rc.mu.Lock()
			rc.maxAge = max(rc.maxAge, time.Since(born))
			rc.mu.Unlock()
		}
		h(w, r)
	}))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{ca.leaf(t)}}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // handshake failures are expected in some tests
	srv.Config.ConnState = func(c net.Conn, s http.ConnState) {
		if s == http.StateNew {
			rc.conns.Add(1)
		}
	}
	srv.Config.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
		return context.WithValue(ctx, bornKey{}, time.Now())
	}
	rc.Server = srv
	srv.StartTLS()
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(rc.release) }) // runs before srv.Close
	return rc
}

func (rc *receiver) oldestRequest() time.Duration {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return rc.maxAge
}

func (rc *receiver) port() string {
	_, p, _ := net.SplitHostPort(rc.Listener.Addr().String())
	return p
}

// stall blocks until the client goes away or the test ends.
func (rc *receiver) stall(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-rc.release:
	}
}
