package sentryhttp_test

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"encoding/base64"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"

	"github.com/errata-dev/errata/internal/apitest"
)

// TestSentryItems checks what becomes of an envelope's items: events and
// log records are kept, other types are accepted and counted by type in
// /metrics, a malformed item is dropped and the rest accepted, and a body
// that is not an envelope is 400.
func TestSentryItems(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		path := withKey(w.envelopePath, w.key)
		logs := `{"items":[{"timestamp":1764000000.5,"level":"info","body":"user u-1 signed in","attributes":{"sentry.message.template":{"value":"user %s signed in","type":"string"}}},` +
			`{"timestamp":1764000001,"level":"debug","body":"cache warmed"},{"timestamp":1764000002,"level":"info","body":"user u-2 signed in","attributes":{"sentry.message.template":{"value":"user %s signed in","type":"string"}}}]}`
		body := envelope(`{"event_id":"6a1b2c3d4e5f60718293a4b5c6d7e8f9","sent_at":"2026-11-24T10:00:00Z"}`,
			"session", `{"sid":"s","status":"ok"}`,
			"event", `{"event_id":"6a1b2c3d4e5f60718293a4b5c6d7e8f9","exception":{"values":[{"type":"ValueError","value":"bad cart 17","stacktrace":{"frames":[{"function":"load","filename":"cart.py","lineno":3,"in_app":true}]}}]},"platform":"python","tags":{"service":"checkout"}}`,
			"client_report", `{"discarded_events":[]}`,
			"transaction", `{"type":"transaction"}`,
			"made_up_type", `{}`,
			"log", logs)
		// A malformed item between the others: its header is not JSON.
		body = append(body, []byte("{not json\n{}\n"+`{"type":"event"}`+"\n"+`{"message":"after the malformed item","level":"warning"}`+"\n")...)
		a := w.send(t, path, body).expect(t, http.StatusOK)
		if a.json(t)["id"] != "6a1b2c3d4e5f60718293a4b5c6d7e8f9" {
			t.Errorf("answer %s, want the envelope's event id", a.body)
		}
		// Sessions alone: accepted, nothing to name.
		if a := w.send(t, path, envelope(`{}`, "sessions", `{"aggregates":[]}`)).expect(t, http.StatusOK); string(a.body) != "{}" {
			t.Errorf("sessions alone: %s, want {}", a.body)
		}
		// An event whose payload is not JSON is dropped; the envelope is kept.
		w.send(t, path, envelope(`{}`, "event", `{"message":`, "event", `{"message":"beside a broken event"}`)).expect(t, http.StatusOK)
		for _, bad := range []string{"", "not an envelope", "[1,2]\n"} {
			w.send(t, path, []byte(bad)).expect(t, http.StatusBadRequest)
		}

		groups := w.groups(t)
		for title, service := range map[string]string{"ValueError: bad cart <int>": "checkout", "after the malformed item": "shop", "beside a broken event": "shop"} {
			g, ok := groups[title]
			if !ok {
				t.Errorf("no group %q; groups %v", title, keys(groups))
			} else if g["service"] != service {
				t.Errorf("group %q: service %v, want %s", title, g["service"], service)
			}
		}
		if len(groups) != 3 {
			t.Errorf("groups %v, want 3", keys(groups))
		}
		tickets := s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.projectID + "/tickets", Token: w.token}).Expect(t, http.StatusOK, "").JSON(t)["data"].([]any)
		if len(tickets) == 0 {
			t.Error("no ticket for the new error groups")
		}
		sums := s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + w.projectID + "/info-summaries", Token: w.token}).Expect(t, http.StatusOK, "").JSON(t)["data"].([]any)
		var info, debug float64
		for _, x := range sums {
			info += x.(map[string]any)["event_count"].(float64)
			debug += x.(map[string]any)["debug_count"].(float64)
		}
		if info != 2 || debug != 1 {
			t.Errorf("INFO summaries count %v info and %v debug events, want 2 and 1", info, debug)
		}

		for series, want := range map[string]string{
			`errata_sentry_items_dropped_total{type="session"}`:                            "1",
			`errata_sentry_items_dropped_total{type="sessions"}`:                           "1",
			`errata_sentry_items_dropped_total{type="client_report"}`:                      "1",
			`errata_sentry_items_dropped_total{type="transaction"}`:                        "1",
			`errata_sentry_items_dropped_total{type="other"}`:                              "1",
			`errata_sentry_items_malformed_total`:                                          "2",
			`errata_ingest_accepted_events_total{route="sentry"}`:                          "6",
			`errata_ingest_refused_requests_total{reason="malformed_body",route="sentry"}`: "3",
		} {
			if got := w.metric(t, series); got != want {
				t.Errorf("%s = %q, want %s", series, got, want)
			}
		}
	})
}

// TestSentryEncodingsAndStore sends one event in every Content-Encoding
// SDKs use, and to the store endpoint in the forms old clients used.
func TestSentryEncodingsAndStore(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		var want []string
		for _, enc := range []string{"", "gzip", "deflate", "deflate-raw", "br", "zstd", "identity, gzip"} {
			msg := "encoded as " + enc
			if enc == "" {
				msg = "encoded as nothing"
			}
			header := enc
			if enc == "deflate-raw" {
				header = "deflate"
			}
			w.send(t, withKey(w.envelopePath, w.key), encode(t, enc, eventEnvelope("", msg)), "Content-Encoding", header).expect(t, http.StatusOK)
			want = append(want, msg)
		}
		store := withKey(w.storePath, w.key)
		w.send(t, store, []byte(`{"message":"stored as JSON"}`), "Content-Type", "application/json").expect(t, http.StatusOK)
		w.send(t, strings.Replace(store, "/store/", "/store", 1), []byte(`{"message":"stored without a slash"}`)).expect(t, http.StatusOK)
		old := base64.StdEncoding.EncodeToString(encode(t, "deflate", []byte(`{"message":"stored as raven did"}`)))
		w.send(t, w.storePath, []byte(old), "X-Sentry-Auth", authHeader(w.key)).expect(t, http.StatusOK)
		w.send(t, store, []byte("neither JSON nor base64!")).expect(t, http.StatusBadRequest)
		// An empty body is not what any encoding says (it was a panic, 500).
		for _, enc := range []string{"gzip", "br", "zstd", "deflate", "gzip,"} {
			w.send(t, withKey(w.envelopePath, w.key), nil, "Content-Encoding", enc).expect(t, http.StatusBadRequest)
			w.send(t, store, nil, "Content-Encoding", enc).expect(t, http.StatusBadRequest)
		}
		want = append(want, "stored as JSON", "stored without a slash", "stored as raven did")
		groups := w.groups(t)
		for _, title := range want {
			if _, ok := groups[title]; !ok {
				t.Errorf("no group %q; groups %v", title, keys(groups))
			}
		}
	})
}

// TestSentryNUL checks CONTRACT 7's rule end to end: U+0000 in any string
// of a Sentry event is stored as U+FFFD and never makes it unprocessable.
func TestSentryNUL(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		ev := `{"message":"nul \u0000 here","release":"r\u00001","environment":"prod\u0000","tags":{"k\u0000":"v\u0000"},"user":{"id":"u\u0000"}}`
		w.send(t, withKey(w.envelopePath, w.key), envelope("{}", "event", ev)).expect(t, http.StatusOK)
		groups := w.groups(t)
		var id string
		for title, g := range groups {
			if strings.Contains(title, "\u0000") {
				t.Errorf("title %q holds NUL", title)
			}
			if strings.Contains(title, "nul \uFFFD here") {
				id = g["id"].(string)
			}
		}
		if id == "" {
			t.Fatalf("no group titled with U+FFFD; groups %q", keys(groups))
		}
		r := s.Do(apitest.Request{Method: "GET", Path: "/v1/groups/" + id + "/events", Token: w.token}).Expect(t, http.StatusOK, "")
		if bytes.Contains(r.Body, []byte(`\u0000`)) || !bytes.Contains(r.Body, []byte("r\uFFFD1")) || !bytes.Contains(r.Body, []byte("v\uFFFD")) {
			t.Errorf("sample events keep NUL or lose the strings: %s", r.Body)
		}
		// In an exception's frames too: the rendered stack trace keeps
		// U+FFFD where U+0000 was, like every other string.
		exc := `{"platform":"python","exception":{"values":[{"type":"Key\u0000Error","value":"v\u0000al","stacktrace":{"frames":[{"filename":"app/b\u0000.py","function":"g\u0000","lineno":1,"in_app":true}]}}]}}`
		w.send(t, withKey(w.envelopePath, w.key), envelope("{}", "event", exc)).expect(t, http.StatusOK)
		for title, g := range w.groups(t) {
			if !strings.Contains(title, "Key\uFFFDError") {
				continue
			}
			r := s.Do(apitest.Request{Method: "GET", Path: "/v1/groups/" + g["id"].(string) + "/events", Token: w.token}).Expect(t, http.StatusOK, "")
			if !bytes.Contains(r.Body, []byte("app/b\uFFFD.py")) || !bytes.Contains(r.Body, []byte("in g\uFFFD")) {
				t.Errorf("the stack trace does not keep U+FFFD for U+0000 in frames: %s", r.Body)
			}
			return
		}
		t.Fatalf("no group for the exception with U+0000 in its type; groups %q", keys(w.groups(t)))
	})
}

// encode compresses b as a Content-Encoding (deflate: zlib-wrapped;
// deflate-raw: bare; a list: applied in order).
func encode(t *testing.T, enc string, b []byte) []byte {
	t.Helper()
	for _, c := range strings.Split(enc, ",") {
		var buf bytes.Buffer
		var w io.WriteCloser
		switch strings.TrimSpace(c) {
		case "", "identity":
			continue
		case "gzip":
			w = gzip.NewWriter(&buf)
		case "deflate":
			w = zlib.NewWriter(&buf)
		case "deflate-raw":
			w, _ = flate.NewWriter(&buf, flate.DefaultCompression)
		case "br":
			w = brotli.NewWriter(&buf)
		case "zstd":
			var err error
			if w, err = zstd.NewWriter(&buf); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := w.Write(b); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		b = buf.Bytes()
	}
	return b
}
