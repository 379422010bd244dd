package webhook

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/notify/delivery"
)

var (
	testSecret = []byte("whsec_dGhpcyBpcyBhIHRlc3Qgc2lnbmluZyBzZWNyZXQhIQ==")
	oldSecret  = []byte("whsec_b2xkIHNlY3JldCB0aGF0IGlzIGJlaW5nIHJvdGF0ZWQhIQ==")
	testBody   = []byte(`{"type":"ticket","delivery_id":"dlv_01","ticket":{"id":"tkt_1"}}`)
)

func newRequest(url string) Request {
	return Request{URL: url, Event: "ticket", DeliveryID: "dlv_01", Body: testBody, Secrets: [][]byte{testSecret}}
}

// newClient returns a client trusting ca; on loopback unless opts says otherwise.
func newClient(t testing.TB, ca *testCA, opts Options) *Client {
	opts.RootCAs = ca.Pool
	c := NewClient(opts)
	t.Cleanup(c.Close)
	return c
}

func TestSendStatus(t *testing.T) {
	t.Parallel()
	ca := newTestCA(t)
	date := func(d time.Duration) string { return time.Now().Add(d).UTC().Format(http.TimeFormat) }
	tests := []struct {
		status     int
		retryAfter string
		outcome    delivery.Outcome
		class      string
		wantError  string
		minWait    time.Duration
		maxWait    time.Duration
	}{
		{status: 200, outcome: delivery.Delivered},
		{status: 202, outcome: delivery.Delivered},
		{status: 204, outcome: delivery.Delivered},
		{status: 301, outcome: delivery.GiveUp, class: ClassHTTPStatus, wantError: "HTTP 301 (redirects are not followed)"},
		{status: 308, outcome: delivery.GiveUp, class: ClassHTTPStatus, wantError: "HTTP 308"},
		{status: 400, outcome: delivery.GiveUp, class: ClassHTTPStatus, wantError: "HTTP 400"},
		{status: 401, outcome: delivery.GiveUp, class: ClassHTTPStatus},
		{status: 404, outcome: delivery.GiveUp, class: ClassHTTPStatus, wantError: "HTTP 404"},
		{status: 410, outcome: delivery.GiveUp, class: ClassHTTPStatus, wantError: "HTTP 410"},
		{status: 422, outcome: delivery.GiveUp, class: ClassHTTPStatus},
		{status: 408, outcome: delivery.Retry, class: ClassHTTPStatus, wantError: "HTTP 408"},
		{status: 500, outcome: delivery.Retry, class: ClassHTTPStatus, wantError: "HTTP 500"},
		{status: 502, outcome: delivery.Retry, class: ClassHTTPStatus},
		{status: 503, outcome: delivery.Retry, class: ClassHTTPStatus, wantError: "HTTP 503"},
		{status: 429, retryAfter: "120", outcome: delivery.Retry, class: ClassHTTPStatus, minWait: 120 * time.Second, maxWait: 120 * time.Second},
		{status: 503, retryAfter: "30", outcome: delivery.Retry, class: ClassHTTPStatus, minWait: 30 * time.Second, maxWait: 30 * time.Second},
		{status: 429, retryAfter: date(90 * time.Second), outcome: delivery.Retry, class: ClassHTTPStatus, minWait: 85 * time.Second, maxWait: 91 * time.Second},
		{status: 503, retryAfter: date(-time.Hour), outcome: delivery.Retry, class: ClassHTTPStatus},
		{status: 429, retryAfter: "86400", outcome: delivery.Retry, class: ClassHTTPStatus, minWait: 12 * time.Hour, maxWait: 12 * time.Hour},
		{status: 429, retryAfter: "99999999999999999999999", outcome: delivery.Retry, class: ClassHTTPStatus, minWait: 12 * time.Hour, maxWait: 12 * time.Hour},
		{status: 503, retryAfter: date(48 * time.Hour), outcome: delivery.Retry, class: ClassHTTPStatus, minWait: 12 * time.Hour, maxWait: 12 * time.Hour},
		{status: 429, retryAfter: "soon", outcome: delivery.Retry, class: ClassHTTPStatus},
		{status: 500, retryAfter: "60", outcome: delivery.Retry, class: ClassHTTPStatus}, // only 429 and 503 carry a wait
	}
	for _, tt := range tests {
		t.Run(http.StatusText(tt.status)+" "+tt.retryAfter, func(t *testing.T) {
			t.Parallel()
			other := newReceiver(t, ca, func(w http.ResponseWriter, r *http.Request) {})
			rc := newReceiver(t, ca, func(w http.ResponseWriter, r *http.Request) {
				if tt.retryAfter != "" {
					w.Header().Set("Retry-After", tt.retryAfter)
				}
				if tt.status >= 300 && tt.status < 400 {
					w.Header().Set("Location", other.URL+"/moved")
				}
				w.WriteHeader(tt.status)
			})
			res := newClient(t, ca, Options{AllowPrivate: true}).Send(context.Background(), newRequest(rc.URL+"/hook"))
			if res.Outcome != tt.outcome || res.HTTPStatus != tt.status || res.ErrorClass != tt.class {
				t.Errorf("Send() = %v %d %q (%s), want %v %d %q", res.Outcome, res.HTTPStatus, res.ErrorClass, res.Error, tt.outcome, tt.status, tt.class)
			}
			if !strings.Contains(res.Error, tt.wantError) {
				t.Errorf("Send().Error = %q, want it to contain %q", res.Error, tt.wantError)
			}
			if res.RetryAfter < tt.minWait || res.RetryAfter > tt.maxWait {
				t.Errorf("Send().RetryAfter = %v, want %v..%v", res.RetryAfter, tt.minWait, tt.maxWait)
			}
			if n := other.hits.Load(); n != 0 {
				t.Errorf("redirect target got %d requests, want 0", n)
			}
		})
	}
}

func TestSendHeadersAndSignature(t *testing.T) {
	t.Parallel()
	ca := newTestCA(t)
	type seen struct {
		method, uri string
		header      http.Header
		body        []byte
	}
	var (
		mu  sync.Mutex
		got []seen
	)
	rc := newReceiver(t, ca, func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, seen{r.Method, r.RequestURI, r.Header.Clone(), b})
		mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	})
	clock := time.Unix(1700000000, 0)
	req := newRequest(rc.URL + "/hooks/errata?team=core")
	req.Secrets = [][]byte{testSecret, oldSecret}
	req.Now = func() time.Time { clock = clock.Add(7 * time.Second); return clock }
	c := newClient(t, ca, Options{AllowPrivate: true})
	for range 2 {
		if res := c.Send(context.Background(), req); res.Outcome != delivery.Delivered || res.HTTPStatus != 204 {
			t.Fatalf("Send() = %+v, want delivered 204", res)
		}
	}
	if len(got) != 2 {
		t.Fatalf("receiver saw %d requests, want 2", len(got))
	}
	want := map[string]string{
		"Content-Type":        "application/json",
		"User-Agent":          "Service-Webhook/1",
		"Service-Event":       "ticket",
		"Service-Delivery-Id": "dlv_01",
	}
	for i, s := range got {
		if s.method != http.MethodPost || s.uri != "/hooks/errata?team=core" || string(s.body) != string(testBody) {
			t.Errorf("request %d = %s %s %q, want POST of the body to the URL", i, s.method, s.uri, s.body)
		}
		for k, v := range want {
			if g := s.header.Values(k); len(g) != 1 || g[0] != v {
				t.Errorf("request %d header %s = %q, want %q", i, k, g, v)
			}
		}
		for k := range s.header {
			if _, ok := want[k]; !ok && k != "Service-Signature" && k != "Content-Length" {
				t.Errorf("request %d has unexpected header %s: %q", i, k, s.header.Values(k))
			}
		}
		sig := s.header.Get("Service-Signature")
		for _, secret := range req.Secrets {
			ts, ok := verify(sig, s.body, secret)
			if !ok {
				t.Errorf("request %d signature %q does not verify with %s", i, sig, secret[:10])
			}
			if wantT := time.Unix(1700000000, 0).Add(time.Duration(7*(i+1)) * time.Second).Unix(); ts != wantT {
				t.Errorf("request %d t = %d, want a fresh %d", i, ts, wantT)
			}
		}
		if n := strings.Count(sig, ",v1="); n != 2 {
			t.Errorf("request %d signature %q has %d v1 entries, want 2", i, sig, n)
		}
	}
	if g := slices.Compact([]string{got[0].header.Get("Service-Signature"), got[1].header.Get("Service-Signature")}); len(g) != 2 {
		t.Errorf("both attempts carry signature %q, want a fresh one each", g[0])
	}
}
