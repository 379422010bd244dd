package loadgen

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// The attacks of issue 21 (CONTRACT 8, "Hostile input, round three") on the
// Sentry routes, which read a body before its key is known when the key is
// in the envelope's header.
const (
	// AttackKeylessStall opens Connections connections that each send the
	// headers of a keyless POST /api/<number>/envelope/ announcing a 20 MiB
	// body, and then nothing, dialing each again whenever the server closes
	// it, until Duration: before round three each reserved its 20 MiB of
	// ERRATA_INGEST_MEMORY up front, and 35 of them, kept open, made every
	// tenant's ingestion answer 503.
	AttackKeylessStall = "keyless-stall"
	// AttackNestedEncoding makes Concurrency POSTs at a time of a body
	// compressed three times over (Content-Encoding: gzip, gzip, gzip), a
	// few hundred bytes that inflate to BombBytes (100 MiB), to Path: a
	// keyless Sentry envelope by default, or /v1/ingest or /v1/logs with
	// Key.
	AttackNestedEncoding = "nested-encoding"
	// AttackKeylessBomb makes Concurrency keyless POST
	// /api/<number>/envelope/ at a time, each a gzip body whose first line
	// (where the DSN would be) inflates to BombBytes (95 MiB).
	AttackKeylessBomb = "keyless-bomb"
)

// Defaults of the keyless attacks.
const (
	defaultKeylessStallConns = 300
	keylessDeclaredBytes     = 20 << 20
	defaultKeylessCalls      = 20
	defaultNestedBytes       = 100 << 20
	defaultKeylessBombBytes  = 95 << 20
)

// sentryPath is the envelope route of project number (1 when not given:
// a keyless attack needs no project of its own).
func sentryPath(number int64) string {
	return "/api/" + strconv.FormatInt(max(number, 1), 10) + "/envelope/"
}

// keylessStallKind is the stalled keyless envelope of AttackKeylessStall.
func keylessStallKind(c *AttackConfig, addr, host string) connKind {
	return connKind{name: "keyless-envelope", addr: addr, stall: "POST " + sentryPath(c.Number) + " HTTP/1.1\r\nHost: " + host +
		"\r\nContent-Type: application/x-sentry-envelope\r\nContent-Length: " + strconv.Itoa(keylessDeclaredBytes) + "\r\n\r\n"}
}

// validateKeyless fills in the defaults of the keyless attacks.
func (c *AttackConfig) validateKeyless() error {
	switch c.Attack {
	case AttackKeylessStall:
		c.Connections = max(c.Connections, 0)
		if c.Connections == 0 {
			c.Connections = defaultKeylessStallConns
		}
		if c.Duration == 0 {
			c.Duration = defaultBombDuration // its connections are reopened until then
		}
	case AttackNestedEncoding, AttackKeylessBomb:
		if c.Concurrency == 0 {
			c.Concurrency = defaultKeylessCalls
		}
		if c.BombBytes == 0 {
			c.BombBytes = defaultNestedBytes
			if c.Attack == AttackKeylessBomb {
				c.BombBytes = defaultKeylessBombBytes
			}
		}
		if c.Duration == 0 {
			c.Duration = defaultBombDuration
		}
		if c.Path == "" || c.Attack == AttackKeylessBomb {
			c.Path = sentryPath(c.Number)
		}
		if !strings.HasPrefix(c.Path, "/api/") && c.Path != "/v1/ingest" && c.Path != "/v1/logs" {
			return fmt.Errorf("--path must be a Sentry envelope path, /v1/ingest or /v1/logs, got %q", c.Path)
		}
		if !strings.HasPrefix(c.Path, "/api/") && c.Key == "" {
			return fmt.Errorf("--attack %s to %s needs --key: without one the body is never read", c.Attack, c.Path)
		}
	}
	return nil
}

// bodyBomb posts one prepared body over and over: the nested encoding and
// the keyless first-line bombs.
type bodyBomb struct {
	c        *AttackConfig
	body     []byte
	encoding string
	client   *http.Client
}

func newBodyBomb(c *AttackConfig) *bodyBomb {
	b := &bodyBomb{c: c, client: &http.Client{Timeout: c.Timeout, Transport: &http.Transport{MaxIdleConnsPerHost: c.Concurrency}}}
	switch c.Attack {
	case AttackNestedEncoding:
		raw := bytes.Repeat([]byte{'A'}, c.BombBytes)
		b.body, b.encoding = gzipTimes(raw, 3), "gzip, gzip, gzip"
	case AttackKeylessBomb:
		head := `{"dsn":"http://` + BogusKey + `@127.0.0.1/` + strconv.FormatInt(max(c.Number, 1), 10) + `","pad":"`
		raw := append([]byte(head), bytes.Repeat([]byte{'A'}, max(0, c.BombBytes-len(head)))...)
		b.body, b.encoding = gzipTimes(raw, 1), "gzip"
	}
	return b
}

// gzipTimes compresses b n times over.
func gzipTimes(b []byte, n int) []byte {
	for range n {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		_, _ = zw.Write(b) // writes to a bytes.Buffer do not fail
		_ = zw.Close()
		b = buf.Bytes()
	}
	return b
}

func (b *bodyBomb) run(ctx, attack context.Context) (attackResult, error) {
	// The Sentry route is attacked without a key (Key is the probed
	// tenant's); /v1/ingest and /v1/logs with it.
	target := joinURL(b.c.URL, b.c.Path)
	sentry := strings.HasPrefix(b.c.Path, "/api/")
	reqs := flood(ctx, attack, b.c.Concurrency, func(ctx context.Context, _ int) string {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(b.body))
		if err != nil {
			return "bad request"
		}
		req.Header.Set("Content-Encoding", b.encoding)
		if sentry {
			req.Header.Set("Content-Type", "application/x-sentry-envelope")
		} else {
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+b.c.Key)
		}
		resp, err := b.client.Do(req)
		if err != nil {
			return netError(err)
		}
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		_ = resp.Body.Close()
		return strconv.Itoa(resp.StatusCode)
	})
	reqs.BodyBytes, reqs.InflatedBytes = int64(len(b.body)), int64(b.c.BombBytes)
	return attackResult{requests: reqs}, nil
}
