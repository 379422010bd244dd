package app_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/errata-dev/errata/internal/apitest"
	"github.com/errata-dev/errata/internal/config"
	"github.com/errata-dev/errata/internal/store"
)

// exposition is one scrape of /metrics: the value of every series of
// Errata's own (name{labels}), and the type of every family.
type exposition struct {
	series map[string]string
	types  map[string]string
}

func scrape(t *testing.T, s *apitest.Server) exposition {
	t.Helper()
	r := s.Do(apitest.Request{Method: "GET", Path: "/metrics"}).Expect(t, 200, "")
	e := exposition{series: map[string]string{}, types: map[string]string{}}
	for line := range strings.Lines(string(r.Body)) {
		line = strings.TrimSpace(line)
		if typ, ok := strings.CutPrefix(line, "# TYPE "); ok {
			if f := strings.Fields(typ); len(f) == 2 {
				e.types[f[0]] = f[1]
			}
			continue
		}
		if i := strings.LastIndexByte(line, ' '); i > 0 && strings.HasPrefix(line, "errata_") {
			e.series[line[:i]] = line[i+1:]
		}
	}
	return e
}

// family is the metric name of a series.
func family(series string) string {
	name, _, _ := strings.Cut(series, "{")
	return name
}

// TestMetricsScrape scrapes /metrics of a real server on both databases:
// one naming scheme, no made-up free-disk reading on PostgreSQL, and every
// labelled counter series there from the start, so that traffic on every
// ingestion route (REST, OTLP/HTTP, OTLP/gRPC, Sentry; accepted and
// refused, with items of every fate) adds no series, only counts.
func TestMetricsScrape(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		before := scrape(t, s)
		subsystems := []string{"errata_ingest_", "errata_process_", "errata_delivery_", "errata_data_dir_", "errata_sentry_", "errata_db_"}
		for name := range before.types {
			if !strings.HasPrefix(name, "errata_") {
				continue
			}
			known := false
			for _, p := range subsystems {
				known = known || strings.HasPrefix(name, p)
			}
			if !known {
				t.Errorf("%s is not named errata_<subsystem>_… with a subsystem of %v", name, subsystems)
			}
		}
		if _, ok := before.types["errata_delivery_pending"]; !ok {
			t.Errorf("/metrics lacks errata_delivery_pending")
		}
		free, ok := before.series["errata_data_dir_free_bytes"]
		switch s.App.DB.Dialect() {
		case store.SQLite:
			if !ok || free == "-1" || free == "0" {
				t.Errorf("errata_data_dir_free_bytes = %q (present %t), want the free bytes of the data directory", free, ok)
			}
		case store.Postgres:
			if ok {
				t.Errorf("errata_data_dir_free_bytes = %s on PostgreSQL, want no such series", free)
			}
		}
		for _, zero := range []string{
			`errata_ingest_refused_requests_total{reason="unauthorized",route="otlp_grpc"}`,
			`errata_ingest_accepted_events_total{route="ingest"}`,
			`errata_delivery_attempts_total{event="digest",outcome="retry"}`,
			`errata_ingest_accepted_events_total{route="sentry"}`,
			`errata_sentry_items_dropped_total{type="other"}`,
			`errata_sentry_items_malformed_total`,
			`errata_db_slow_writes_total`,
		} {
			if v := before.series[zero]; v != "0" {
				t.Errorf("%s = %q before any traffic, want 0", zero, v)
			}
		}

		sendOnEveryRoute(t, s)
		after := scrape(t, s)
		for series := range after.series {
			if _, ok := before.series[series]; !ok && after.types[family(series)] == "counter" {
				t.Errorf("%s appeared with traffic; its labels must start at zero", series)
			}
		}
		for series, want := range map[string]string{
			`errata_ingest_accepted_events_total{route="ingest"}`:                                     "1",
			`errata_ingest_accepted_events_total{route="otlp_http"}`:                                  "1",
			`errata_ingest_accepted_events_total{route="otlp_grpc"}`:                                  "1",
			`errata_ingest_refused_requests_total{reason="unauthorized",route="ingest"}`:              "1",
			`errata_ingest_refused_requests_total{reason="unsupported_media_type",route="otlp_http"}`: "1",
			`errata_ingest_refused_requests_total{reason="unauthorized",route="otlp_grpc"}`:           "1",
			`errata_ingest_accepted_events_total{route="sentry"}`:                                     "1",
			`errata_ingest_refused_requests_total{reason="unauthorized",route="sentry"}`:              "1",
			`errata_sentry_items_dropped_total{type="session"}`:                                       "1",
			`errata_sentry_items_dropped_total{type="other"}`:                                         "1",
			`errata_sentry_items_malformed_total`:                                                     "1",
		} {
			if got := after.series[series]; got != want {
				t.Errorf("%s = %q after the traffic, want %s", series, got, want)
			}
		}
	}, apitest.WithGRPC)
}

// sendOnEveryRoute sends one accepted and one refused request on each
// ingestion route.
func sendOnEveryRoute(t *testing.T, s *apitest.Server) {
	t.Helper()
	tok := s.SignUp(t, "ops@example.com").Token
	prj := s.CreateProject(t, tok, s.CreateOrg(t, tok, "Acme"), "web")
	_, key := s.CreateKey(t, tok, prj)
	batch := `{"service":"web","events":[{"message":"boom"}]}`
	s.Do(apitest.Request{Method: "POST", Path: "/v1/ingest", Token: key, Body: batch}).Expect(t, 202, "")
	s.Do(apitest.Request{Method: "POST", Path: "/v1/ingest", Token: "svc_live_nope_nope", Body: batch}).Expect(t, 401, "")

	logs := plog.NewLogs()
	logs.ResourceLogs().AppendEmpty().ScopeLogs().AppendEmpty().LogRecords().AppendEmpty().Body().SetStr("boom")
	req := plogotlp.NewExportRequestFromLogs(logs)
	body, err := req.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	s.Do(apitest.Request{Method: "POST", Path: "/v1/logs", Token: key, Body: body}).Expect(t, 200, "")
	s.Do(apitest.Request{Method: "POST", Path: "/v1/logs", Token: key, Body: body, Headers: map[string]string{"Content-Type": "text/plain"}}).Expect(t, 415, "")

	cc, err := grpc.NewClient(s.GRPCAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	client := plogotlp.NewGRPCClient(cc)
	if _, err := client.Export(metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+key), req); err != nil {
		t.Fatalf("gRPC export: %v", err)
	}
	if _, err := client.Export(ctx, req); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("gRPC export without a key: %v, want Unauthenticated", err)
	}

	// Sentry: an event, a session, an item of a made-up type and a
	// malformed item in one envelope; then one without a key.
	number := int64(s.Do(apitest.Request{Method: "GET", Path: "/v1/projects/" + prj, Token: tok}).Expect(t, 200, "").JSON(t)["number"].(float64))
	envelope := "{}\n" + `{"type":"event"}` + "\n" + `{"message":"boom"}` + "\n" + `{"type":"session"}` + "\n{}\n" +
		`{"type":"made_up"}` + "\n{}\n" + "not a header\n{}\n"
	path := "/api/" + strconv.FormatInt(number, 10) + "/envelope/"
	s.Do(apitest.Request{Method: "POST", Path: path + "?sentry_key=" + key, Body: envelope}).Expect(t, 200, "")
	s.Do(apitest.Request{Method: "POST", Path: path, Body: envelope}).Expect(t, 403, "")
}

// TestSlowWritesCounted: with ERRATA_SLOW_TX_WARN below any write's hold,
// the writes of a sign-up are counted in errata_db_slow_writes_total.
func TestSlowWritesCounted(t *testing.T) {
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		s.SignUp(t, "slow@example.com")
		n, err := strconv.ParseFloat(scrape(t, s).series["errata_db_slow_writes_total"], 64)
		if err != nil || n < 1 {
			t.Errorf("errata_db_slow_writes_total = %v (%v), want the sign-up's writes counted", n, err)
		}
	}, func(c *config.Serve) { c.SlowTxWarn = time.Nanosecond })
}
