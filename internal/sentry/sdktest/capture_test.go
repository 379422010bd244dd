// Package sdktest runs real Sentry SDKs (sentry-go, and @sentry/node under
// node) against a loopback server, checks what internal/sentry makes of what
// they send, and with -update stores the envelopes they sent, bytes as
// received, as golden files of internal/sentry. It is its own Go module so
// that the SDK stays out of the main module's dependencies.
package sdktest

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/sentry"
)

var update = flag.Bool("update", false, "store the captured envelopes under internal/sentry/testdata/sdk")

// testKey is the DSN key the SDKs are given; it has the shape of an Errata
// API key, which the JavaScript SDK accepts only if it matches \w+.
const testKey = "svc_live_01jdsentrytestkey0000000000_abcdefghijklmnopqrstuvwxyz234567"

// request is one request an SDK sent.
type request struct {
	Path     string
	Query    string
	Encoding string // Content-Encoding
	Type     string // Content-Type
	Auth     string // X-Sentry-Auth
	Body     []byte // as received
	Env      *sentry.Envelope
	Result   sentry.Result
}

// itemTypes lists the item types of the request's envelope.
func (r *request) itemTypes() []string {
	var out []string
	for _, it := range r.Env.Items {
		out = append(out, it.Type)
	}
	return out
}

func (r *request) has(typ string) bool {
	for _, it := range r.Env.Items {
		if it.Type == typ {
			return true
		}
	}
	return false
}

// capture is a loopback server that answers as Errata will: decompress,
// parse, map, answer {"id": …}.
type capture struct {
	t   *testing.T
	srv *httptest.Server
	mu  sync.Mutex
	got []*request
}

func startCapture(t *testing.T) *capture {
	c := &capture{t: t}
	c.srv = httptest.NewServer(http.HandlerFunc(c.serve))
	t.Cleanup(c.srv.Close)
	return c
}

// DSN is the DSN of project 42 on the capture server.
func (c *capture) DSN() string {
	return "http://" + testKey + "@" + strings.TrimPrefix(c.srv.URL, "http://") + "/42"
}

func (c *capture) serve(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(io.LimitReader(r.Body, sentry.MaxBodyBytes+1))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req := &request{Path: r.URL.Path, Query: r.URL.RawQuery, Encoding: r.Header.Get("Content-Encoding"),
		Type: r.Header.Get("Content-Type"), Auth: r.Header.Get("X-Sentry-Auth"), Body: raw}
	env, err := decode(r.URL.Path, req.Encoding, req.Type, raw)
	if err != nil {
		c.t.Errorf("%s %s (%s): %v", r.Method, r.URL.Path, req.Encoding, err)
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req.Env = env
	req.Result = sentry.Map(env, sentry.Options{Service: "shop", ReceivedAt: time.Now()})
	c.mu.Lock()
	c.got = append(c.got, req)
	c.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	if req.Result.EventID == "" {
		io.WriteString(w, "{}")
		return
	}
	json.NewEncoder(w).Encode(map[string]string{"id": req.Result.EventID})
}

// decode runs the steps an Errata handler runs before Map.
func decode(path, encoding, contentType string, raw []byte) (*sentry.Envelope, error) {
	rd, err := sentry.Decompressor(encoding, bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	body, err := io.ReadAll(io.LimitReader(rd, sentry.MaxDecodedBytes+1))
	if err != nil {
		return nil, err
	}
	if strings.HasSuffix(path, "/store/") {
		return sentry.ParseStore(contentType, body)
	}
	return sentry.ParseEnvelope(body)
}

// requests returns what was received so far.
func (c *capture) requests() []*request {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*request(nil), c.got...)
}

// find returns the requests whose envelope holds an item of type typ.
func (c *capture) find(typ string) []*request {
	var out []*request
	for _, r := range c.requests() {
		if r.has(typ) {
			out = append(out, r)
		}
	}
	return out
}

// store writes a request's body, as received, to the golden directory of
// internal/sentry when -update is given; the file's extension names its
// Content-Encoding.
func store(t *testing.T, name string, r *request) {
	t.Helper()
	if !*update {
		return
	}
	ext := ".envelope"
	switch r.Encoding {
	case "":
	case "gzip":
		ext += ".gz"
	default:
		t.Fatalf("store %s: no file extension for Content-Encoding %q", name, r.Encoding)
	}
	dir := filepath.Join("..", "testdata", "sdk")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+ext), r.Body, 0o644); err != nil {
		t.Fatal(err)
	}
}

// one returns the only event of a request, failing the test otherwise.
func one(t *testing.T, what string, reqs []*request) *request {
	t.Helper()
	if len(reqs) != 1 {
		var desc []string
		for _, r := range reqs {
			desc = append(desc, fmt.Sprint(r.itemTypes()))
		}
		t.Fatalf("%s: got %d requests %v, want 1", what, len(reqs), desc)
	}
	if n := len(reqs[0].Result.Events); n != 1 {
		t.Fatalf("%s: got %d events, want 1 (malformed: %+v)", what, n, reqs[0].Result.Malformed)
	}
	return reqs[0]
}
