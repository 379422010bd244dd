package webhook

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptrace"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"code.dny.dev/ssrf"

	"github.com/errata-dev/errata/internal/notify/delivery"
)

func TestSendReusesConnectionsUpToMaxConnAge(t *testing.T) {
	t.Parallel()
	ca := newTestCA(t)
	rc := newReceiver(t, ca, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	const age = 400 * time.Millisecond
	c := newClient(t, ca, Options{AllowPrivate: true, MaxConnAge: age})
	send := func() {
		t.Helper()
		if res := c.Send(context.Background(), newRequest(rc.URL)); res.Outcome != delivery.Delivered {
			t.Fatalf("Send() = %+v, want delivered", res)
		}
	}

	// Quick sends share one connection. At most 2 are tolerated: net/http
	// declines to pool a connection whose request write it has not seen
	// finish within 50ms, which a loaded race-detector run can hit.
	const quick = 5
	for range quick {
		send()
	}
	if n := rc.conns.Load(); n > 2 {
		t.Fatalf("%d quick sends used %d connections, want 1 reused", quick, n)
	}

	// Keep the connection busy (never idle long) for four ages: only the age
	// cap can make the client dial again, about once per age (each new
	// connection is dialed a send or so after the previous one expired).
	sends := int64(quick)
	start := rc.conns.Load()
	for deadline := time.Now().Add(4 * age); time.Now().Before(deadline); sends++ {
		send()
		time.Sleep(20 * time.Millisecond)
	}
	if n := rc.conns.Load() - start; n < 3 {
		t.Errorf("over %v of traffic the client dialed %d new connections, want at least 3 (one per %v)", 4*age, n, age)
	}
	if n := rc.conns.Load(); n > sends/4 {
		t.Errorf("%d connections for %d sends: keep-alive is not working", n, sends)
	}
	// The receiver sees a request some time after the client checked its
	// connection's age: a loaded machine can stall that for a while, so
	// the bound is twice the age, well under the four ages a connection
	// without the cap would live.
	if oldest := rc.oldestRequest(); oldest > 2*age {
		t.Errorf("a request arrived on a connection %v old, want at most about %v", oldest, age)
	}
	// A refused pooled connection wrote nothing: every send reached the
	// receiver exactly once.
	if hits := rc.hits.Load(); hits != sends {
		t.Errorf("receiver got %d requests for %d sends, want equal", hits, sends)
	}

	before := rc.conns.Load()
	time.Sleep(age + 50*time.Millisecond)
	send()
	if n := rc.conns.Load(); n != before+1 {
		t.Errorf("after idling past MaxConnAge: %d connections, want a new checked dial (%d)", n, before+1)
	}
}

// A 10 MiB answer is read only up to MaxResponseBody: Send stays quick and
// small. Not parallel, so the allocation count is this test's own.
func TestSendReadsAtMostMaxResponseBody(t *testing.T) {
	ca := newTestCA(t)
	var written atomic.Int64
	rc := newReceiver(t, ca, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "10485760")
		chunk := []byte(strings.Repeat("x", 32<<10))
		for range 320 {
			n, err := w.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
	})
	c := newClient(t, ca, Options{AllowPrivate: true})
	c.Send(context.Background(), newRequest(rc.URL)) // warm up: TLS and pools

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res := c.Send(context.Background(), newRequest(rc.URL))
	runtime.ReadMemStats(&after)
	if res.Outcome != delivery.Delivered || res.HTTPStatus != 200 {
		t.Errorf("Send() = %+v, want delivered 200", res)
	}
	if res.Duration > time.Second {
		t.Errorf("Send() took %v with a 10 MiB answer, want well under a second", res.Duration)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("Send() allocated %d bytes with a 10 MiB answer, want under 1 MiB", alloc)
	}
	rc.Close() // waits for the handlers
	if w := written.Load(); w >= 10<<20 {
		t.Errorf("receiver managed to write %d bytes over two sends, want the client to stop reading early", w)
	}
}

// The dial-time check: every socket is judged before it connects, whatever
// resolved the address.
func TestControl(t *testing.T) {
	t.Parallel()
	tests := []struct {
		allowPrivate bool
		network      string
		address      string
		wantErr      error // nil: allowed
	}{
		{false, "tcp4", "93.184.215.14:443", nil},
		{false, "tcp4", "93.184.215.14:8443", nil},
		{false, "tcp6", "[2606:4700:4700::1111]:443", nil},
		{false, "tcp4", "93.184.215.14:80", errBlocked},
		{false, "tcp4", "93.184.215.14:1023", errBlocked},
		{false, "tcp4", "127.0.0.1:8443", ssrf.ErrProhibitedIP},
		{false, "tcp4", "10.0.0.5:443", ssrf.ErrProhibitedIP},
		{false, "tcp4", "169.254.169.254:443", ssrf.ErrProhibitedIP},
		{false, "tcp4", "100.64.0.1:443", ssrf.ErrProhibitedIP},
		{false, "tcp6", "[::1]:443", ssrf.ErrProhibitedIP},
		{false, "tcp6", "[::ffff:127.0.0.1]:443", ssrf.ErrProhibitedIP},
		{false, "tcp6", "[fd00::1]:443", ssrf.ErrProhibitedIP},
		{false, "udp4", "93.184.215.14:443", ssrf.ErrProhibitedNetwork},
		{true, "tcp4", "127.0.0.1:8443", nil},
		{true, "tcp4", "10.0.0.5:443", nil},
		{true, "tcp4", "127.0.0.1:80", errBlocked},
		{true, "tcp4", "127.0.0.1:22", errBlocked},
	}
	for _, tt := range tests {
		c := NewClient(Options{AllowPrivate: tt.allowPrivate})
		err := c.control(tt.network, tt.address, nil)
		var b *blockedError
		switch {
		case tt.wantErr == nil && err != nil:
			t.Errorf("control(%s, %s, AllowPrivate=%v) = %v, want allowed", tt.network, tt.address, tt.allowPrivate, err)
		case tt.wantErr != nil && !errors.As(err, &b):
			t.Errorf("control(%s, %s, AllowPrivate=%v) = %v, want a blocked-address error", tt.network, tt.address, tt.allowPrivate, err)
		case tt.wantErr != nil && tt.wantErr != errBlocked && !errors.Is(err, tt.wantErr):
			t.Errorf("control(%s, %s) = %v, want %v", tt.network, tt.address, err, tt.wantErr)
		}
	}
}

// errBlocked marks a TestControl case refused by our own port rule.
var errBlocked = errors.New("blocked by the port rule")

func TestRetryAfter(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		in   string
		want time.Duration
	}{
		{"", 0},
		{"0", 0},
		{" 120 ", 120 * time.Second},
		{"43200", 12 * time.Hour},
		{"43201", 12 * time.Hour},
		{"-5", 0},
		{"1.5", 0},
		{"Sun, 01 Mar 2026 12:01:30 GMT", 90 * time.Second},
		{"Sunday, 01-Mar-26 12:01:30 GMT", 90 * time.Second},
		{"Sun Mar  1 12:01:30 2026", 90 * time.Second},
		{"Sun, 01 Mar 2026 11:00:00 GMT", 0},
		{"Tue, 03 Mar 2026 12:00:00 GMT", 12 * time.Hour},
		{"tomorrow", 0},
	}
	for _, tt := range tests {
		if got := retryAfter(tt.in, now); got != tt.want {
			t.Errorf("retryAfter(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestRedact(t *testing.T) {
	t.Parallel()
	got := redact("bad key "+string(testSecret)+" here", [][]byte{oldSecret, testSecret, []byte("x")})
	if want := "bad key [redacted] here"; got != want {
		t.Errorf("redact() = %q, want %q", got, want)
	}
}

// A pooled connection is refused when too old or idle for too long; a fresh
// one never is (it was just checked, and net/http would not retry it).
func TestRefuseIfExpired(t *testing.T) {
	t.Parallel()
	c := NewClient(Options{MaxConnAge: time.Second})
	tests := []struct {
		name    string
		dialed  time.Duration // ago
		reused  bool
		idle    time.Duration
		refused bool
	}{
		{"young and busy", 100 * time.Millisecond, true, 0, false},
		{"older than MaxConnAge", 1100 * time.Millisecond, true, 0, true},
		{"idle too long", 100 * time.Millisecond, true, maxIdleReuse, true},
		{"fresh dial, even if old", 2 * time.Second, false, 0, false},
	}
	for _, tt := range tests {
		cn := &conn{dialedAt: time.Now().Add(-tt.dialed)}
		c.refuseIfExpired(httptrace.GotConnInfo{Conn: cn, Reused: tt.reused, IdleTime: tt.idle})
		if got := cn.expired.Load(); got != tt.refused {
			t.Errorf("%s: refused = %v, want %v", tt.name, got, tt.refused)
		}
		if !tt.refused {
			continue
		}
		if n, err := cn.Write([]byte("x")); n != 0 || !errors.Is(err, errConnExpired) {
			t.Errorf("%s: Write on a refused connection = %d, %v, want 0, errConnExpired", tt.name, n, err)
		}
	}
}
