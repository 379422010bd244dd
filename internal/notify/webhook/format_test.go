package webhook

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/errata-dev/errata/internal/notify/delivery"
)

// TestSendFormatHeaders: a chat format's content type and extra headers
// travel with the Service-* headers, which still sign the body sent.
func TestSendFormatHeaders(t *testing.T) {
	t.Parallel()
	ca := newTestCA(t)
	var (
		mu     sync.Mutex
		header http.Header
		body   []byte
	)
	rc := newReceiver(t, ca, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		header, body = r.Header.Clone(), b
		mu.Unlock()
	})
	req := newRequest(rc.URL + "/topic")
	req.Body = []byte("Test notification for phones")
	req.ContentType = "text/plain; charset=utf-8"
	req.Headers = map[string]string{"X-Title": "Test notification", "X-Priority": "3"}
	c := newClient(t, ca, Options{AllowPrivate: true})
	if res := c.Send(context.Background(), req); res.Outcome != delivery.Delivered {
		t.Fatalf("Send() = %+v, want delivered", res)
	}
	mu.Lock()
	defer mu.Unlock()
	for k, v := range map[string]string{"Content-Type": "text/plain; charset=utf-8", "X-Title": "Test notification", "X-Priority": "3",
		"Service-Event": "ticket", "Service-Delivery-Id": "dlv_01", "User-Agent": UserAgent} {
		if got := header.Values(k); len(got) != 1 || got[0] != v {
			t.Errorf("header %s = %q, want %q", k, got, v)
		}
	}
	if _, ok := verify(header.Get("Service-Signature"), body, testSecret); !ok || string(body) != string(req.Body) {
		t.Errorf("body %q with signature %q: does not verify", body, header.Get("Service-Signature"))
	}
}

// TestSendRefusesReservedHeaders: a format cannot replace the signed
// delivery's headers or the transport's, nor split a header.
func TestSendRefusesReservedHeaders(t *testing.T) {
	t.Parallel()
	ca := newTestCA(t)
	rc := newReceiver(t, ca, func(w http.ResponseWriter, r *http.Request) {})
	c := newClient(t, ca, Options{AllowPrivate: true})
	for _, h := range []map[string]string{
		{"Service-Signature": "t=1,v1=00"}, {"service-event": "digest"}, {"Content-Type": "text/html"}, {"Host": "evil.example"},
		{"User-Agent": "x"}, {"Content-Length": "1"}, {"X-Title": "a\r\nX-Injected: 1"}, {"X Title": "a"}, {"": "a"},
	} {
		req := newRequest(rc.URL + "/hook")
		req.Headers = h
		res := c.Send(context.Background(), req)
		if res.Outcome != delivery.GiveUp || res.ErrorClass != ClassInvalidRequest {
			t.Errorf("headers %q: Send() = %+v, want given up as an invalid request", h, res)
		}
	}
	req := newRequest(rc.URL + "/hook")
	req.ContentType = "text/plain\r\nX-Injected: 1"
	if res := c.Send(context.Background(), req); res.Outcome != delivery.GiveUp || !strings.Contains(res.Error, "content type") {
		t.Errorf("split content type: Send() = %+v, want given up", res)
	}
	if n := rc.hits.Load(); n != 0 {
		t.Errorf("receiver got %d requests, want none", n)
	}
}
