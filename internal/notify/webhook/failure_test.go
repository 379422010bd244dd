package webhook

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/notify/delivery"
)

func TestSendFailures(t *testing.T) {
	t.Parallel()
	ca := newTestCA(t)
	dns := testDNS(t)
	type setup struct {
		c   *Client
		req Request
		ctx context.Context
		// after checks what the receivers saw once Send returned.
		after func(t *testing.T)
	}
	// untouched fails the test if rc was ever connected to.
	untouched := func(rc *receiver) func(t *testing.T) {
		return func(t *testing.T) {
			if n := rc.conns.Load(); n != 0 {
				t.Errorf("receiver accepted %d connections, want 0", n)
			}
		}
	}
	tests := []struct {
		name      string
		setup     func(t *testing.T) setup
		outcome   delivery.Outcome
		class     string
		wantError string
		status    int
	}{
		{"receiver stalls past the response time-out", func(t *testing.T) setup {
			var rc *receiver
			rc = newReceiver(t, ca, func(w http.ResponseWriter, r *http.Request) { rc.stall(r) })
			c := newClient(t, ca, Options{AllowPrivate: true, ResponseTimeout: 300 * time.Millisecond})
			return setup{c: c, req: newRequest(rc.URL)}
		}, delivery.Retry, ClassTimeout, "no response within 300ms", 0},
		{"receiver sends 200 then stalls the body", func(t *testing.T) setup {
			var rc *receiver
			rc = newReceiver(t, ca, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Length", "100")
				w.WriteHeader(200)
				w.Write([]byte("partial"))
				w.(http.Flusher).Flush()
				rc.stall(r)
			})
			c := newClient(t, ca, Options{AllowPrivate: true, ResponseTimeout: 300 * time.Millisecond})
			return setup{c: c, req: newRequest(rc.URL)}
		}, delivery.Retry, ClassTimeout, "no response within 300ms", 200},
		{"certificate from another CA", func(t *testing.T) setup {
			rc := newReceiver(t, newTestCA(t), func(w http.ResponseWriter, r *http.Request) {})
			return setup{c: newClient(t, ca, Options{AllowPrivate: true}), req: newRequest(rc.URL)}
		}, delivery.Retry, ClassTLS, "tls: certificate signed by unknown authority", 0},
		{"certificate for another name", func(t *testing.T) setup {
			rc := newReceiver(t, ca, func(w http.ResponseWriter, r *http.Request) {})
			c := newClient(t, ca, Options{AllowPrivate: true, Resolver: dns.resolver()})
			return setup{c: c, req: newRequest("https://other.errata.test:" + rc.port() + "/")}
		}, delivery.Retry, ClassTLS, "not other.errata.test", 0},
		{"plain HTTP on the port", func(t *testing.T) setup {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
			t.Cleanup(srv.Close)
			c := newClient(t, ca, Options{AllowPrivate: true})
			return setup{c: c, req: newRequest(strings.Replace(srv.URL, "http:", "https:", 1))}
		}, delivery.Retry, ClassTLS, "tls: ", 0},
		{"closed port", func(t *testing.T) setup {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			ln.Close()
			return setup{c: newClient(t, ca, Options{AllowPrivate: true}), req: newRequest("https://" + ln.Addr().String() + "/")}
		}, delivery.Retry, ClassNetwork, "connect: connection refused", 0},
		{"receiver hangs up without answering", func(t *testing.T) setup {
			rc := newReceiver(t, ca, func(w http.ResponseWriter, r *http.Request) {
				conn, _, _ := w.(http.Hijacker).Hijack()
				conn.Close()
			})
			return setup{c: newClient(t, ca, Options{AllowPrivate: true}), req: newRequest(rc.URL)}
		}, delivery.Retry, ClassNetwork, "connection closed by the receiver", 0},
		{"name does not resolve", func(t *testing.T) setup {
			c := newClient(t, ca, Options{Resolver: dns.resolver()})
			return setup{c: c, req: newRequest("https://missing.errata.test:8443/")}
		}, delivery.Retry, ClassNetwork, "dns: no such host missing.errata.test", 0},
		{"name resolving to loopback, at dial time", func(t *testing.T) setup {
			rc := newReceiver(t, ca, func(w http.ResponseWriter, r *http.Request) {})
			c := newClient(t, ca, Options{Resolver: dns.resolver()})
			return setup{c: c, req: newRequest("https://loopback.errata.test:" + rc.port() + "/"), after: untouched(rc)}
		}, delivery.Retry, ClassBlockedAddress, "host loopback.errata.test resolves to loopback address 127.0.0.1", 0},
		{"loopback literal without AllowPrivate", func(t *testing.T) setup {
			rc := newReceiver(t, ca, func(w http.ResponseWriter, r *http.Request) {})
			return setup{c: newClient(t, ca, Options{}), req: newRequest(rc.URL), after: untouched(rc)}
		}, delivery.Retry, ClassBlockedAddress, "127.0.0.1", 0},
		{"DNS rebinding after the URL check", func(t *testing.T) setup {
			rc := newReceiver(t, ca, func(w http.ResponseWriter, r *http.Request) {})
			opts := Options{Resolver: dns.resolver()}
			u := "https://rebind.errata.test:" + rc.port() + "/"
			if err := CheckURL(context.Background(), u, opts); err != nil {
				t.Fatalf("CheckURL(%q) = %v, want nil: the first answer is public", u, err)
			}
			return setup{c: newClient(t, ca, opts), req: newRequest(u), after: untouched(rc)}
		}, delivery.Retry, ClassBlockedAddress, "loopback address 127.0.0.1", 0},
		{"redirect to a private address is not followed", func(t *testing.T) setup {
			target := newReceiver(t, ca, func(w http.ResponseWriter, r *http.Request) {})
			rc := newReceiver(t, ca, func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, "https://127.0.0.1:"+target.port()+"/admin", http.StatusTemporaryRedirect)
			})
			return setup{c: newClient(t, ca, Options{AllowPrivate: true}), req: newRequest(rc.URL), after: untouched(target)}
		}, delivery.GiveUp, ClassHTTPStatus, "HTTP 307 (redirects are not followed)", 307},
		{"redirect to the metadata service is not followed", func(t *testing.T) setup {
			rc := newReceiver(t, ca, func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, "http://169.254.169.254/latest/meta-data/", http.StatusFound)
			})
			return setup{c: newClient(t, ca, Options{AllowPrivate: true}), req: newRequest(rc.URL)}
		}, delivery.GiveUp, ClassHTTPStatus, "HTTP 302", 302},
		{"stored URL breaks a rule", func(t *testing.T) setup {
			return setup{c: newClient(t, ca, Options{AllowPrivate: true}), req: newRequest("http://127.0.0.1:8443/")}
		}, delivery.GiveUp, ClassInvalidURL, "must use https", 0},
		{"port rule holds with AllowPrivate", func(t *testing.T) setup {
			return setup{c: newClient(t, ca, Options{AllowPrivate: true}), req: newRequest("https://127.0.0.1:80/")}
		}, delivery.GiveUp, ClassInvalidURL, "port 80 is not allowed", 0},
		{"no signing secret", func(t *testing.T) setup {
			req := newRequest("https://127.0.0.1:8443/")
			req.Secrets = nil
			return setup{c: newClient(t, ca, Options{AllowPrivate: true}), req: req}
		}, delivery.GiveUp, ClassInvalidRequest, "signing secret", 0},
		{"caller cancels", func(t *testing.T) setup {
			var rc *receiver
			rc = newReceiver(t, ca, func(w http.ResponseWriter, r *http.Request) { rc.stall(r) })
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(100*time.Millisecond, cancel)
			return setup{c: newClient(t, ca, Options{AllowPrivate: true}), req: newRequest(rc.URL), ctx: ctx}
		}, delivery.Retry, ClassCanceled, "canceled", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := tt.setup(t)
			if s.ctx == nil {
				s.ctx = context.Background()
			}
			res := s.c.Send(s.ctx, s.req)
			if res.Outcome != tt.outcome || res.ErrorClass != tt.class || res.HTTPStatus != tt.status {
				t.Errorf("Send() = %v %q %d (%q), want %v %q %d", res.Outcome, res.ErrorClass, res.HTTPStatus, res.Error, tt.outcome, tt.class, tt.status)
			}
			if !strings.Contains(res.Error, tt.wantError) {
				t.Errorf("Send().Error = %q, want it to contain %q", res.Error, tt.wantError)
			}
			if strings.Contains(res.Error, string(testSecret)) || len(res.Error) > 200 {
				t.Errorf("Send().Error = %q: leaks the secret or is not short", res.Error)
			}
			if res.Duration <= 0 || res.Duration > 3*time.Second {
				t.Errorf("Send().Duration = %v, want a short positive time", res.Duration)
			}
			if s.after != nil {
				s.after(t)
			}
		})
	}
}
