package sentryhttp_test

import (
	"bytes"
	"compress/gzip"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/config"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
	"github.com/errata-dev/errata/internal/testproxy"
)

// TestSentryLimits checks the limits of CONTRACT 7: 1 MiB per event or
// log item, 20 MiB on the wire, 100 MiB decompressed, each 413; an
// encoding Errata cannot decode is 415; a dropped item may be larger than
// 1 MiB.
func TestSentryLimits(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		path := withKey(w.envelopePath, w.key)
		big := `{"message":"` + strings.Repeat("x", 1<<20) + `"}`
		w.send(t, path, envelope("{}", "event", big)).expect(t, http.StatusRequestEntityTooLarge)
		w.send(t, path, envelope("{}", "log", `{"items":[{"body":"`+strings.Repeat("x", 1<<20)+`"}]}`)).expect(t, http.StatusRequestEntityTooLarge)
		w.send(t, withKey(w.storePath, w.key), []byte(big)).expect(t, http.StatusRequestEntityTooLarge)
		// The detail names the item.
		a := w.send(t, path, envelope("{}", "event", `{"message":"ok"}`, "log", `{"items":[{"body":"`+strings.Repeat("x", 1<<20)+`"}]}`)).
			expect(t, http.StatusRequestEntityTooLarge)
		if d := a.json(t)["detail"].(string); !strings.Contains(d, "item 1 (log)") {
			t.Errorf("413 detail %q does not name the item", d)
		}
		// An attachment of 2 MiB is dropped, and its event kept.
		// 1 MiB per item, whatever its type (CONTRACT 7): an attachment over
		// it refuses the envelope, one of exactly 1 MiB does not.
		w.send(t, path, envelope(`{"event_id":"5a1b2c3d4e5f60718293a4b5c6d7e8f9"}`, "attachment", strings.Repeat("a", 1<<20+1), "event", `{"message":"with a too big attachment"}`)).
			expect(t, http.StatusRequestEntityTooLarge)
		a = w.send(t, path, envelope(`{"event_id":"5a1b2c3d4e5f60718293a4b5c6d7e8f9"}`, "attachment", strings.Repeat("a", 1<<20), "event", `{"message":"with a big attachment"}`)).
			expect(t, http.StatusOK)
		if a.json(t)["id"] != "5a1b2c3d4e5f60718293a4b5c6d7e8f9" {
			t.Errorf("answer %s, want the envelope's event id", a.body)
		}

		wire := make([]byte, 20<<20+1)
		w.send(t, path, wire).expect(t, http.StatusRequestEntityTooLarge)
		var z bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&z, gzip.BestCompression)
		zeros := make([]byte, 1<<20)
		for i := 0; i < 101; i++ {
			_, _ = zw.Write(zeros)
		}
		_ = zw.Close()
		a = w.send(t, path, z.Bytes(), "Content-Encoding", "gzip").expect(t, http.StatusRequestEntityTooLarge)
		if d := a.json(t)["detail"].(string); !strings.Contains(d, "100 MiB") {
			t.Errorf("decompressed limit detail %q, want it to name 100 MiB", d)
		}
		w.send(t, path, eventEnvelope("", "m"), "Content-Encoding", "compress").expect(t, http.StatusUnsupportedMediaType)
		w.send(t, path, []byte("not gzip"), "Content-Encoding", "gzip").expect(t, http.StatusBadRequest)

		groups := w.groups(t)
		if _, ok := groups["with a big attachment"]; !ok {
			t.Error("the event beside a 1 MiB attachment was not kept")
		}
		if _, ok := groups["with a too big attachment"]; ok {
			t.Error("the event of a refused envelope was kept")
		}
		for reason, want := range map[string]string{"payload_too_large": "7", "unsupported_encoding": "1", "malformed_body": "1"} {
			if got := w.metric(t, `errata_ingest_refused_requests_total{reason="`+reason+`",route="sentry"}`); got != want {
				t.Errorf("refused %s counted %s, want %s", reason, got, want)
			}
		}
	})
}

// retryAfterRe is X-Sentry-Rate-Limits as relay writes it for a limit on
// every category of a project: "<seconds>::project".
var retryAfterRe = regexp.MustCompile(`^([0-9]+)::project$`)

// TestSentryRateLimit checks the Sentry endpoints' own per-project limit
// (ERRATA_SENTRY_RATE_LIMIT and _BURST): past the burst, 429 with
// Retry-After and X-Sentry-Rate-Limits, which SDKs read to back off; the
// project's REST ingest limit is separate, and another project is not
// limited.
func TestSentryRateLimit(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		path := withKey(w.envelopePath, w.key)
		for i := 0; i < 3; i++ {
			w.send(t, path, eventEnvelope("", "within the burst")).expect(t, http.StatusOK)
		}
		a := w.send(t, path, eventEnvelope("", "past the burst")).expect(t, http.StatusTooManyRequests)
		ra, err := strconv.Atoi(a.header.Get("Retry-After"))
		if err != nil || ra < 1 {
			t.Fatalf("Retry-After %q, want whole seconds", a.header.Get("Retry-After"))
		}
		m := retryAfterRe.FindStringSubmatch(a.header.Get("X-Sentry-Rate-Limits"))
		if m == nil || m[1] != strconv.Itoa(ra) {
			t.Errorf("X-Sentry-Rate-Limits %q, want %d::project", a.header.Get("X-Sentry-Rate-Limits"), ra)
		}
		// The REST route has its own bucket.
		s.Do(apitest.Request{Method: "POST", Path: "/v1/ingest", Token: w.key, Body: map[string]any{"service": "api", "events": []any{map[string]any{"level": "error", "message": "rest"}}}}).
			Expect(t, http.StatusAccepted, "")
		w.send(t, withKey("/api/"+strconv.FormatInt(w.otherNumber, 10)+"/envelope/", w.otherKey), eventEnvelope("", "other project")).expect(t, http.StatusOK)
		if got := w.metric(t, `errata_ingest_refused_requests_total{reason="rate_limited",route="sentry"}`); got != "1" {
			t.Errorf("rate-limited Sentry requests counted %q, want 1", got)
		}
	}, func(c *config.Serve) { c.SentryRateLimit, c.SentryRateBurst = 0.001, 3 })
}

// TestSentryBackPressure checks that a project over its backlog limit is
// answered 503 with Retry-After in Sentry's shape, before its body is read.
func TestSentryBackPressure(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		path := withKey(w.envelopePath, w.key)
		w.send(t, path, eventEnvelope("", "fills the backlog")).expect(t, http.StatusOK) // nothing processes it (role api)
		a := w.send(t, path, eventEnvelope("", "refused")).expect(t, http.StatusServiceUnavailable)
		if a.header.Get("Retry-After") == "" {
			t.Error("503 without Retry-After")
		}
	}, func(c *config.Serve) { c.MaxBacklogBytes = 1 })
}

// TestSentryDatabaseOutage cuts PostgreSQL away: a Sentry request answers
// 503 with Retry-After in Sentry's shape (SDKs keep the event and resend),
// never 500 or 200, and is accepted again once the database is back.
func TestSentryDatabaseOutage(t *testing.T) {
	dbURL := storetest.URL(t, store.Postgres)
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := testproxy.Start(t, u.Host)
	s := apitest.StartOn(t, proxy.URL(t, dbURL))
	w := newWorld(t, s)
	path := withKey(w.envelopePath, w.key)
	w.send(t, path, eventEnvelope("", "before the outage")).expect(t, http.StatusOK)
	proxy.Cut()
	a := w.send(t, path, eventEnvelope("", "during the outage")).expect(t, http.StatusServiceUnavailable)
	if a.header.Get("Retry-After") == "" {
		t.Error("503 without Retry-After")
	}
	proxy.Restore()
	deadline := time.Now().Add(30 * time.Second)
	for {
		a := w.send(t, path, eventEnvelope("", "after the outage"))
		if a.status == http.StatusOK {
			break
		}
		if a.status != http.StatusServiceUnavailable || time.Now().After(deadline) {
			t.Fatalf("after the database came back: %d %s", a.status, a.body)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestSentryKeyOfAnotherProjectTellsNothing: a valid key of another
// project, sent to this project's path while its own project is past its
// rate limit, is answered as an unknown key is (CONTRACT 7): 403 with the
// caller's address's RateLimit-* headers and no Retry-After, and it spends
// nothing of its project's bucket.
func TestSentryKeyOfAnotherProjectTellsNothing(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		other := withKey("/api/"+strconv.FormatInt(w.otherNumber, 10)+"/envelope/", w.otherKey)
		w.send(t, other, eventEnvelope("", "within the burst")).expect(t, http.StatusOK)
		// Sent to the wrong project, the key spends nothing of its bucket.
		for i := 0; i < 3; i++ {
			w.send(t, withKey(w.envelopePath, w.otherKey), eventEnvelope("", "wrong project")).expect(t, http.StatusForbidden)
		}
		w.send(t, other, eventEnvelope("", "the burst's second")).expect(t, http.StatusOK)
		w.send(t, other, eventEnvelope("", "past the burst")).expect(t, http.StatusTooManyRequests)

		unknown := w.send(t, withKey(w.envelopePath, "svc_live_01jdunknownkey000000000000_abcdefghijklmnopqrstuvwxyz234567"), eventEnvelope("", "m")).expect(t, http.StatusForbidden)
		for _, tt := range []struct {
			name    string
			path    string
			headers []string
		}{
			{"query", withKey(w.envelopePath, w.otherKey), nil},
			{"header", w.envelopePath, []string{"X-Sentry-Auth", authHeader(w.otherKey)}},
		} {
			a := w.send(t, tt.path, eventEnvelope("", "m"), tt.headers...).expect(t, http.StatusForbidden)
			if ra := a.header.Get("Retry-After"); ra != "" {
				t.Errorf("%s: Retry-After %q on a key of another project: it tells the key is valid and its project limited", tt.name, ra)
			}
			if got, want := a.header.Get("RateLimit-Limit"), unknown.header.Get("RateLimit-Limit"); got != want || got == "" {
				t.Errorf("%s: RateLimit-Limit %q, want the address's %q as for an unknown key", tt.name, got, want)
			}
			if a.header.Get("X-Sentry-Rate-Limits") != "" {
				t.Errorf("%s: X-Sentry-Rate-Limits %q on a 403", tt.name, a.header.Get("X-Sentry-Rate-Limits"))
			}
		}
	}, func(c *config.Serve) {
		c.SentryRateLimit, c.SentryRateBurst, c.APIRateLimit, c.APIRateBurst = 0.001, 2, 100, 1000
	})
}
