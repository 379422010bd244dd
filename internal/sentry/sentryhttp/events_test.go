package sentryhttp_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/config"
)

// TestSentryEventsTakeIngestTokens: the Sentry routes' events take tokens
// from the project's /v1/ingest bucket (ERRATA_INGEST_RATE_LIMIT), one per
// 1,000 events of a request (CONTRACT 8), besides their own request
// bucket: with a bucket of 3, an envelope of 1,000 log records and two
// events pass, the next event is 429 with Retry-After and
// X-Sentry-Rate-Limits, and so is /v1/ingest; an envelope without events
// takes nothing.
func TestSentryEventsTakeIngestTokens(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		path := withKey(w.envelopePath, w.key)
		records := make([]string, 1000)
		for i := range records {
			records[i] = fmt.Sprintf(`{"level":"error","body":"record %d"}`, i)
		}
		w.send(t, path, envelope("{}", "log", `{"items":[`+strings.Join(records, ",")+`]}`)).expect(t, http.StatusOK)
		w.send(t, path, eventEnvelope("", "second")).expect(t, http.StatusOK)
		w.send(t, withKey(w.storePath, w.key), []byte(`{"message":"third"}`)).expect(t, http.StatusOK)
		a := w.send(t, path, eventEnvelope("", "fourth")).expect(t, http.StatusTooManyRequests)
		if a.header.Get("Retry-After") == "" || !strings.HasSuffix(a.header.Get("X-Sentry-Rate-Limits"), "::project") {
			t.Errorf("429 headers %v, want Retry-After and X-Sentry-Rate-Limits", a.header)
		}
		w.send(t, path, envelope("{}", "session", `{"sid":"7c4e1f2a","status":"ok"}`)).expect(t, http.StatusOK)
		r := s.Do(apitest.Request{Method: "POST", Path: "/v1/ingest", Token: w.key, Body: map[string]any{"service": "shop",
			"events": []any{map[string]any{"message": "rest", "level": "error"}}}})
		if r.Status != http.StatusTooManyRequests {
			t.Errorf("/v1/ingest after the Sentry routes spent the bucket: %d, want 429", r.Status)
		}
		// Another project's bucket is its own.
		w.send(t, withKey(fmt.Sprintf("/api/%d/envelope/", w.otherNumber), w.otherKey), eventEnvelope("", "other")).expect(t, http.StatusOK)
		if got := w.metric(t, `errata_ingest_refused_requests_total{reason="rate_limited",route="sentry"}`); got != "1" {
			t.Errorf("Sentry requests refused for the rate limit: %s, want 1", got)
		}
	}, func(c *config.Serve) { c.IngestRateLimit, c.IngestRateBurst = 0.001, 3 })
}

// TestSentryLogRecordsPastOneBatch: a log item becomes one event per
// record (CONTRACT 7), past the 1,000 of one batch too: 2,500 records are
// 2,500 events, committed together, and take three tokens of the
// project's /v1/ingest bucket, so that the next event is refused.
func TestSentryLogRecordsPastOneBatch(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := newWorld(t, s)
		path := withKey(w.envelopePath, w.key)
		records := make([]string, 2500)
		for i := range records {
			records[i] = fmt.Sprintf(`{"level":"info","body":"record %d"}`, i)
		}
		w.send(t, path, envelope("{}", "log", `{"items":[`+strings.Join(records, ",")+`]}`)).expect(t, http.StatusOK)
		if got := w.metric(t, `errata_ingest_accepted_events_total{route="sentry"}`); got != "2500" {
			t.Errorf("accepted events %s, want 2500", got)
		}
		w.send(t, path, eventEnvelope("", "past three tokens")).expect(t, http.StatusTooManyRequests)
	}, func(c *config.Serve) { c.IngestRateLimit, c.IngestRateBurst = 0.001, 3 })
}
