package sentryhttp_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/config"
)

// stallKeyless opens n connections that each send the headers of a keyless
// envelope announcing a body of declared bytes, and nothing else (the
// attack of issue 21, item 1), then n more every 100 ms, as the attacker
// reopens the ones the server gives up on, until stop is closed. Every
// connection is closed when the test ends.
func stallKeyless(t *testing.T, serverURL string, number int64, n, declared int, stop <-chan struct{}) {
	t.Helper()
	addr := strings.TrimPrefix(serverURL, "http://")
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	open := func() {
		for range n {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			_, _ = fmt.Fprintf(c, "POST /api/%d/envelope/ HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-sentry-envelope\r\nContent-Length: %d\r\n\r\n", number, declared)
		}
	}
	open()
	go func() {
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				open()
			}
		}
	}()
}

// TestKeylessStallStarvesNoOne: keyless connections that announce 20 MiB
// envelopes and send nothing, 35 and then more as the attacker reopens them
// (before CONTRACT 8 each reserved its 20 MiB, and those waiting for room
// queued ahead of everyone else), leave another organization's REST, OTLP
// and Sentry ingestion succeeding, over real sockets.
func TestKeylessStallStarvesNoOne(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		tenant := s.AddMember(t, w.token, w.orgID, "tenant@example.com", "viewer")
		org := s.CreateOrg(t, tenant.Token, "Tenant")
		projectID, number := createProject(t, s, tenant.Token, org, "api")
		_, key := s.CreateKey(t, tenant.Token, projectID)

		stop := make(chan struct{})
		defer close(stop)
		stallKeyless(t, s.URL, w.number, 35, 20<<20, stop)
		time.Sleep(300 * time.Millisecond) // the server is reading every stalled body now

		logs := `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"severityText":"ERROR","body":{"stringValue":"otlp under attack"}}]}]}]}`
		sends := map[string]func() int{
			"REST": func() int {
				return s.Do(apitest.Request{Method: "POST", Path: "/v1/ingest", Token: key, Body: map[string]any{"service": "api",
					"events": []any{map[string]any{"message": "rest under attack", "level": "error"}}}}).Status
			},
			"OTLP": func() int {
				return s.Do(apitest.Request{Method: "POST", Path: "/v1/logs", Token: key, Body: []byte(logs),
					Headers: map[string]string{"Content-Type": "application/json"}}).Status
			},
			"Sentry": func() int {
				return w.send(t, withKey(fmt.Sprintf("/api/%d/envelope/", number), key), eventEnvelope("", "sentry under attack")).status
			},
		}
		for round := range 3 {
			var mu sync.Mutex
			var wg sync.WaitGroup
			got := map[string]int{}
			for name, send := range sends {
				wg.Add(1)
				go func() {
					defer wg.Done()
					status := send()
					mu.Lock()
					got[name] = status
					mu.Unlock()
				}()
			}
			wg.Wait()
			for name, status := range got {
				if status/100 != 2 {
					t.Errorf("round %d: the other tenant's %s ingestion answered %d under the keyless stall, want success", round, name, status)
				}
			}
		}
	})
}

// gzipped compresses b.
func gzipped(t *testing.T, b []byte) []byte {
	t.Helper()
	var z bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
	if _, err := zw.Write(b); err != nil {
		t.Fatal(err)
	}
	_ = zw.Close()
	return z.Bytes()
}

// TestKeylessHead: an envelope authenticated by its header's DSN is read
// and kept, plain or gzip, its first line read before the rest; a first
// line of more than 64 KiB cannot authenticate (403, the one key text), so
// a keyless gzip body whose first line inflates to more than the 100 MiB
// limit is refused after 64 KiB of it, not inflated to the limit first
// (413); nested Content-Encodings are 400 on every ingestion route.
func TestKeylessHead(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		head := fmt.Sprintf(`{"dsn":%q}`, w.dsn)
		event := `{"level":"error","message":%q}`
		w.send(t, w.envelopePath, envelope(head, "event", fmt.Sprintf(event, "keyless plain"))).expect(t, http.StatusOK)
		w.send(t, w.envelopePath, gzipped(t, envelope(head, "event", fmt.Sprintf(event, "keyless gzip"))), "Content-Encoding", "gzip").expect(t, http.StatusOK)
		// An item larger than the first read and a header line over several reads.
		long := fmt.Sprintf(`{"dsn":%q,"sdk":{"name":%q}}`, w.dsn, strings.Repeat("s", 10<<10))
		w.send(t, w.envelopePath, envelope(long, "event", fmt.Sprintf(event, "keyless long "+strings.Repeat("m", 300<<10)))).expect(t, http.StatusOK)

		bomb := gzipped(t, append([]byte(`{"dsn":"`+w.dsn+`","pad":"`), bytes.Repeat([]byte("a"), 101<<20)...))
		start := time.Now()
		w.send(t, w.envelopePath, bomb, "Content-Encoding", "gzip").expect(t, http.StatusForbidden)
		t.Logf("keyless gzip bomb (%d bytes, a 101 MiB first line) refused in %s", len(bomb), time.Since(start))
		// Over 64 KiB of first line: no authentication, even with a valid DSN first.
		refused := w.send(t, w.envelopePath, envelope(fmt.Sprintf(`{"dsn":%q,"pad":%q}`, w.dsn, strings.Repeat("p", 64<<10)), "event", "{}")).expect(t, http.StatusForbidden)
		// A keyless request spends a token of its address's bucket, and says so.
		if refused.header.Get("RateLimit-Remaining") == "" {
			t.Errorf("keyless 403 without RateLimit-* headers: %v", refused.header)
		}
		// A store request without a key has nowhere to carry one.
		store := w.send(t, w.storePath, []byte(fmt.Sprintf(event, "keyless store"))).expect(t, http.StatusForbidden)
		// Every answer to a keyless request carries its address's bucket.
		for _, a := range []*answer{store,
			w.send(t, w.envelopePath, []byte("{}"), "Content-Encoding", "compress").expect(t, http.StatusUnsupportedMediaType),
			w.send(t, w.envelopePath, []byte("{}"), "Content-Encoding", "gzip, gzip").expect(t, http.StatusBadRequest)} {
			if a.header.Get("RateLimit-Remaining") == "" || a.header.Get("RateLimit-Limit") == "" {
				t.Errorf("keyless %d without RateLimit-* headers: %v", a.status, a.header)
			}
		}

		twice := gzipped(t, gzipped(t, envelope(head, "event", fmt.Sprintf(event, "nested"))))
		w.send(t, w.envelopePath, twice, "Content-Encoding", "gzip, gzip").expect(t, http.StatusBadRequest)
		w.send(t, withKey(w.envelopePath, w.key), twice, "Content-Encoding", "gzip,gzip").expect(t, http.StatusBadRequest)
		// Any number of known codings is nested, never an unsupported one.
		w.send(t, withKey(w.envelopePath, w.key), twice, "Content-Encoding", "gzip, br, deflate, zstd").expect(t, http.StatusBadRequest)
		w.send(t, w.envelopePath, twice, "Content-Encoding", "gzip, br, deflate, zstd").expect(t, http.StatusBadRequest)
		// CONTRACT 6's order: an unsupported coding in the list is 415, a
		// declared length over 20 MiB 413, and only then nested 400.
		w.send(t, withKey(w.envelopePath, w.key), twice, "Content-Encoding", "gzip, compress").expect(t, http.StatusUnsupportedMediaType)
		w.send(t, withKey(w.envelopePath, w.key), bytes.Repeat([]byte("x"), 21<<20), "Content-Encoding", "gzip, gzip").expect(t, http.StatusRequestEntityTooLarge)
		// Two header lines are the same list as one (RFC 9110, 5.3): refused
		// as nested, even on a body compressed once, which reading only the
		// first line would accept.
		once := gzipped(t, envelope(head, "event", fmt.Sprintf(event, "two lines")))
		w.send(t, withKey(w.envelopePath, w.key), once, "Content-Encoding", "gzip", "Content-Encoding", "gzip").expect(t, http.StatusBadRequest)
		w.send(t, withKey(w.storePath, w.key), gzipped(t, []byte(fmt.Sprintf(event, "two lines store"))),
			"Content-Type", "application/json", "Content-Encoding", "gzip", "Content-Encoding", "identity", "Content-Encoding", "gzip").expect(t, http.StatusBadRequest)
		for _, path := range []string{"/v1/ingest", "/v1/logs"} {
			r := s.Do(apitest.Request{Method: "POST", Path: path, Token: w.key, Body: gzipped(t, gzipped(t, []byte("{}"))),
				Headers: map[string]string{"Content-Type": "application/json", "Content-Encoding": "gzip, gzip"}})
			if r.Status != http.StatusBadRequest {
				t.Errorf("%s with Content-Encoding gzip, gzip: %d, want 400: %s", path, r.Status, r.Body)
			}
			two := w.send(t, path, gzipped(t, []byte(`{"events":[{"timestamp":"2026-11-28T10:00:00Z","level":"error","message":"two lines"}]}`)), "Authorization", "Bearer "+w.key, "Content-Type", "application/json",
				"Content-Encoding", "gzip", "Content-Encoding", "gzip")
			if two.status != http.StatusBadRequest {
				t.Errorf("%s with two Content-Encoding: gzip lines: %d, want 400: %s", path, two.status, two.body)
			}
		}

		groups := w.groups(t)
		for _, title := range []string{"keyless plain", "keyless gzip"} {
			if _, ok := groups[title]; !ok {
				t.Errorf("no group %q; groups %v", title, keys(groups))
			}
		}
		if len(groups) != 3 {
			t.Errorf("groups %v, want the three keyless events", keys(groups))
		}
	})
}

// TestKeylessAddressLimit: requests without a key outside their body take
// from the caller address's bucket (ERRATA_API_RATE_LIMIT) before any byte
// of the body is read: past it, 429 with Retry-After and X-Sentry-Rate-Limits.
func TestKeylessAddressLimit(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		refused := 0
		for range 30 {
			a := w.send(t, w.envelopePath, envelope(`{"dsn":"http://nokey@example.com/1"}`, "event", "{}"))
			if a.status == http.StatusTooManyRequests {
				refused++
				if a.header.Get("Retry-After") == "" || a.header.Get("X-Sentry-Rate-Limits") == "" {
					t.Errorf("429 without Retry-After or X-Sentry-Rate-Limits: %v", a.header)
				}
				continue
			}
			if a.status != http.StatusForbidden {
				t.Fatalf("keyless request: %d, want 403 or 429: %s", a.status, a.body)
			}
		}
		if refused == 0 {
			t.Error("30 keyless requests from one address within a burst of 20: none refused")
		}
	}, func(c *config.Serve) { c.APIRateLimit, c.APIRateBurst = 0.1, 20 })
}

// TestKeylessBadKeyPaysOnce: a keyless envelope whose DSN names the project
// with a key that is not one takes one token of its address's bucket, not
// one before its first line and another at the key's refusal.
func TestKeylessBadKeyPaysOnce(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		dsn := fmt.Sprintf(`{"dsn":"http://svc_live_notakey@example.com/%d"}`, w.number)
		remaining := func() int {
			a := w.send(t, w.envelopePath, envelope(dsn, "event", "{}"))
			if a.status != http.StatusForbidden {
				t.Fatalf("keyless request with a bad key: %d, want 403: %s", a.status, a.body)
			}
			n, err := strconv.Atoi(a.header.Get("RateLimit-Remaining"))
			if err != nil {
				t.Fatalf("RateLimit-Remaining = %q", a.header.Get("RateLimit-Remaining"))
			}
			return n
		}
		first := remaining()
		if second := remaining(); second != first-1 {
			t.Fatalf("RateLimit-Remaining %d then %d: a request took %d tokens, want 1", first, second, first-second)
		}
	}, func(c *config.Serve) { c.APIRateLimit, c.APIRateBurst = 0.001, 50 })
}

// TestKeylessDecoderWithinAnAddressShare: a keyless body in a coding whose
// decoder needs more memory than one address's unauthenticated share (br's
// 17 MiB, zstd's 9 MiB, with the default budget) is read as sent before it
// is decoded, so connections that send a few bytes of one and stall hold
// those bytes, not a decoder: meanwhile keyless envelopes in every coding
// CONTRACT 6 lists are accepted. Before, one such stalled connection held
// the whole keyless share and every other keyless envelope waited, then
// got 503 (and for a while br and zstd were 415 without a key outside the
// body).
func TestKeylessDecoderWithinAnAddressShare(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		head := fmt.Sprintf(`{"dsn":%q}`, w.dsn)
		body := envelope(head, "event", `{"level":"error","message":"keyless compressed"}`)
		coded := map[string][]byte{"": body}
		var br bytes.Buffer
		bw := brotli.NewWriterLevel(&br, 11)
		_, _ = bw.Write(body)
		_ = bw.Close()
		coded["br"] = br.Bytes()
		zw, _ := zstd.NewWriter(nil)
		coded["zstd"] = zw.EncodeAll(body, nil)
		var gz bytes.Buffer
		gw := gzip.NewWriter(&gz)
		_, _ = gw.Write(body)
		_ = gw.Close()
		coded["gzip"] = gz.Bytes()
		// 40 stalled br and zstd bodies and 3 gzip ones: before, the
		// first line's decoder asked for nearly the whole keyless share,
		// and 132 KiB held by others (33 first reads, or two gzip
		// decoders) made every keyless br envelope wait 1 s, then 503.
		for i := 0; i < 43; i++ {
			coding := []string{"br", "zstd"}[i%2]
			if i >= 40 {
				coding = "gzip"
			}
			c, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "http://"))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			// The headers and a few bytes of the body, then nothing.
			_, _ = fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-sentry-envelope\r\nContent-Encoding: %s\r\nContent-Length: 100000\r\n\r\n", w.envelopePath, coding)
			_, _ = c.Write(coded[coding][:10])
		}
		time.Sleep(200 * time.Millisecond) // the server is reading every stalled body now
		for _, coding := range []string{"br", "zstd", "gzip", ""} {
			headers := []string{}
			if coding != "" {
				headers = []string{"Content-Encoding", coding}
			}
			w.send(t, w.envelopePath, coded[coding], headers...).expect(t, http.StatusOK)
			w.send(t, withKey(w.envelopePath, w.key), coded[coding], headers...).expect(t, http.StatusOK)
		}
	})
}

// TestKeylessFloodStarvesNoOtherAddress: one address sends 40 keyless br
// bodies at once whose first line never comes (4 MiB of zeros declaring
// brotli's largest window); meanwhile another address's keyless br and
// zstd envelopes are accepted. Before, each first line's decoder took
// nearly the whole keyless share, so one decode ran at a time across the
// server and the other address's envelopes waited 1 s, then got 503; now
// an address decodes one first line at a time, counted at most a third of
// the share.
func TestKeylessFloodStarvesNoOtherAddress(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		var bomb bytes.Buffer
		bw := brotli.NewWriterOptions(&bomb, brotli.WriterOptions{Quality: 1, LGWin: 24})
		_, _ = bw.Write(make([]byte, 4<<20))
		_ = bw.Close()
		body := envelope(fmt.Sprintf(`{"dsn":%q}`, w.dsn), "event", `{"level":"error","message":"beside a flood"}`)
		var br bytes.Buffer
		vw := brotli.NewWriterLevel(&br, 11)
		_, _ = vw.Write(body)
		_ = vw.Close()
		zw, _ := zstd.NewWriter(nil)
		coded := map[string][]byte{"br": br.Bytes(), "zstd": zw.EncodeAll(body, nil)}

		other := &http.Client{Transport: &http.Transport{DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}}).DialContext}}
		stop := make(chan struct{})
		var flood sync.WaitGroup
		for range 40 {
			flood.Add(1)
			go func() {
				defer flood.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					req, _ := http.NewRequest(http.MethodPost, s.URL+w.envelopePath, bytes.NewReader(bomb.Bytes()))
					req.Header.Set("Content-Encoding", "br")
					if res, err := http.DefaultClient.Do(req); err == nil {
						_, _ = io.Copy(io.Discard, res.Body)
						_ = res.Body.Close()
					}
				}
			}()
		}
		defer func() { close(stop); flood.Wait() }()
		time.Sleep(300 * time.Millisecond) // the flood is decoding now
		for round := range 3 {
			for _, coding := range []string{"br", "zstd"} {
				req, _ := http.NewRequest(http.MethodPost, s.URL+w.envelopePath, bytes.NewReader(coded[coding]))
				req.Header.Set("Content-Encoding", coding)
				res, err := other.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(res.Body)
				_ = res.Body.Close()
				if res.StatusCode != http.StatusOK {
					t.Errorf("round %d: another address's keyless %s envelope beside the flood = %d %s, want 200", round, coding, res.StatusCode, b)
				}
			}
		}
	})
}
