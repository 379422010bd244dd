package metrics_test

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/metrics"
	"github.com/errata-dev/errata/internal/otlp"
	"github.com/errata-dev/errata/internal/store"
)

// scrape returns the text exposition of m.
func scrape(t *testing.T, m *metrics.Metrics) string {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	b, err := io.ReadAll(rec.Result().Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestLabelledCountersStartAtZero: before anything happens, every known
// route × reason and delivery event × outcome has its series at 0. The
// label values are those the transports and the delivery engine use.
func TestLabelledCountersStartAtZero(t *testing.T) {
	t.Parallel()
	got := scrape(t, metrics.New())
	reasons := []string{metrics.RefusedUnauthorized, metrics.RefusedRateLimited, metrics.RefusedBacklog, metrics.RefusedDisk,
		metrics.RefusedMediaType, metrics.RefusedEncoding, metrics.RefusedTooLarge, metrics.RefusedMalformed,
		metrics.RefusedInvalid, metrics.RefusedShutdown, metrics.RefusedInternal}
	var want []string
	for _, route := range []string{metrics.RouteIngest, otlp.RouteHTTP, otlp.RouteGRPC, metrics.RouteSentry} {
		want = append(want,
			`errata_ingest_accepted_events_total{route="`+route+`"} 0`,
			`errata_ingest_accepted_batches_total{route="`+route+`"} 0`)
		for _, reason := range reasons {
			want = append(want, `errata_ingest_refused_requests_total{reason="`+reason+`",route="`+route+`"} 0`)
		}
	}
	for _, event := range []string{store.EventTicket, store.EventDigest, store.EventTest, store.EventInvitation} {
		for _, outcome := range []string{store.OutcomeDelivered, store.OutcomeRetry, store.OutcomeFailed} {
			want = append(want, `errata_delivery_attempts_total{event="`+event+`",outcome="`+outcome+`"} 0`)
		}
	}
	for _, typ := range []string{"session", "sessions", "client_report", "transaction", "span", "attachment", "check_in", "profile", "replay_event", "other"} {
		want = append(want, `errata_sentry_items_dropped_total{type="`+typ+`"} 0`)
	}
	want = append(want, `errata_sentry_items_malformed_total 0`)
	for _, line := range want {
		if !strings.Contains(got, "\n"+line+"\n") {
			t.Errorf("/metrics lacks %s", line)
		}
	}
}

// TestDroppedSentryItemsBounded: a dropped item of a type a client made up
// counts as other, so that clients cannot add series.
func TestDroppedSentryItemsBounded(t *testing.T) {
	t.Parallel()
	m := metrics.New()
	m.DroppedSentryItems("session", 2)
	m.DroppedSentryItems("made_up_type_42", 1)
	m.DroppedSentryItems("made_up_type_43", 1)
	got := scrape(t, m)
	for _, line := range []string{`errata_sentry_items_dropped_total{type="session"} 2`, `errata_sentry_items_dropped_total{type="other"} 2`} {
		if !strings.Contains(got, "\n"+line+"\n") {
			t.Errorf("/metrics lacks %s", line)
		}
	}
	if strings.Contains(got, "made_up") {
		t.Error("a made-up item type became a label value")
	}
}
