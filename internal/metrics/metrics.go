// Package metrics holds Errata's own Prometheus metrics, served at
// GET /metrics in the Prometheus text format.
package metrics

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Refusal reasons, the values of the reason label of
// errata_ingest_refused_requests_total.
const (
	RefusedUnauthorized = "unauthorized"
	RefusedRateLimited  = "rate_limited"
	RefusedBacklog      = "backlog"
	// RefusedProjectBacklog: the project's own unprocessed backlog is over
	// the limit (one project cannot make the others wait).
	RefusedProjectBacklog = "project_backlog"
	RefusedDisk           = "disk"
	// RefusedMemory: the memory budget of bodies being decoded stayed spent.
	RefusedMemory = "memory"
	// RefusedUnavailable: the database could not be reached.
	RefusedUnavailable = "unavailable"
	RefusedMediaType   = "unsupported_media_type"
	RefusedEncoding    = "unsupported_encoding"
	RefusedTooLarge    = "payload_too_large"
	RefusedMalformed   = "malformed_body"
	RefusedInvalid     = "validation_failed"
	RefusedShutdown    = "shutting_down"
	RefusedInternal    = "internal"
)

// Ingestion routes, the values of the route label of the ingest counters.
const (
	RouteIngest   = "ingest"    // POST /v1/ingest
	RouteOTLPHTTP = "otlp_http" // POST /v1/logs
	RouteOTLPGRPC = "otlp_grpc" // OTLP/gRPC LogsService/Export
	RouteSentry   = "sentry"    // POST /api/{number}/envelope/ and /store/
)

// SentryItemOther is the type label of dropped Sentry items whose type is
// not in SentryItemTypes: clients choose item types, and a label value per
// made-up type would let them grow the metrics without bound.
const SentryItemOther = "other"

// SentryItemTypes are the Sentry item types Errata accepts and drops, the
// values of the type label of errata_sentry_items_dropped_total.
var SentryItemTypes = [...]string{"transaction", "session", "sessions", "client_report", "attachment", "span", "check_in",
	"profile", "profile_chunk", "replay_event", "replay_recording", "replay_video", "user_report", "feedback", "statsd",
	"metric_buckets", "trace_metric", SentryItemOther}

// The label values every labelled counter starts with, at zero, so that a
// dashboard or an alert on a rate sees a series before the first event. A
// new route, reason, delivery event or outcome is added here.
var (
	routes  = [...]string{RouteIngest, RouteOTLPHTTP, RouteOTLPGRPC, RouteSentry}
	reasons = [...]string{RefusedUnauthorized, RefusedRateLimited, RefusedBacklog, RefusedProjectBacklog, RefusedDisk, RefusedMemory,
		RefusedUnavailable, RefusedMediaType, RefusedEncoding, RefusedTooLarge, RefusedMalformed, RefusedInvalid, RefusedShutdown, RefusedInternal}
	deliveryEvents   = [...]string{"ticket", "digest", "test", "invitation", "confirmation"} // store.Event*
	deliveryOutcomes = [...]string{"delivered", "retry", "failed"}                           // store.Outcome*
)

// Metrics are the collectors the rest of the code updates.
type Metrics struct {
	reg *prometheus.Registry

	AcceptedEvents  *prometheus.CounterVec
	AcceptedBatches *prometheus.CounterVec
	Refused         *prometheus.CounterVec
	CommitSeconds   prometheus.Histogram
	CommitBatches   prometheus.Histogram
	ProcessedEvents prometheus.Counter
	ProcessSeconds  prometheus.Histogram
	// FailedBatches counts queued batches set aside after failing to
	// process five times.
	FailedBatches   prometheus.Counter
	Deliveries      *prometheus.CounterVec
	DeliverySeconds prometheus.Histogram
	// SentryDropped counts the Sentry items accepted and dropped, by type
	// (SentryItemTypes); SentryMalformed the items and log records dropped
	// because they could not be read.
	SentryDropped   *prometheus.CounterVec
	SentryMalformed prometheus.Counter
	// SlowWrites counts the writes that held the database writer longer
	// than ERRATA_SLOW_TX_WARN (store.SlowWrites).
	SlowWrites prometheus.Counter
}

// New registers every collector on a fresh registry.
func New() *Metrics {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m := &Metrics{
		reg: reg,
		AcceptedEvents: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "errata_ingest_accepted_events_total", Help: "Events accepted (durably queued), by ingestion route.",
		}, []string{"route"}),
		AcceptedBatches: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "errata_ingest_accepted_batches_total", Help: "Batches accepted (durably queued), by ingestion route.",
		}, []string{"route"}),
		Refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "errata_ingest_refused_requests_total", Help: "Ingestion requests refused, by route and reason.",
		}, []string{"route", "reason"}),
		CommitSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "errata_ingest_commit_seconds", Help: "Duration of durable queue commits (one commit may carry many batches).",
			Buckets: []float64{.0005, .001, .002, .005, .01, .02, .05, .1, .2, .5, 1, 2, 5},
		}),
		CommitBatches: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "errata_ingest_commit_batches", Help: "Batches per durable queue commit (group commit).",
			Buckets: []float64{1, 2, 4, 8, 16, 32, 64, 128, 256},
		}),
	}
	m.ProcessedEvents = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "errata_process_events_total", Help: "Events turned into groups, tickets and INFO summaries.",
	})
	m.ProcessSeconds = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "errata_process_batch_seconds", Help: "Time to process one batch, from claim to commit.",
		Buckets: []float64{.001, .002, .005, .01, .02, .05, .1, .2, .5, 1, 2, 5},
	})
	m.FailedBatches = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "errata_process_batches_set_aside_total", Help: "Queued batches set aside (failed) after their processing failed five times; errata queue failed lists them.",
	})
	m.Deliveries = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "errata_delivery_attempts_total", Help: "Webhook and email delivery attempts, by event (ticket, digest, test, invitation, confirmation) and outcome (delivered, retry, failed).",
	}, []string{"event", "outcome"})
	m.DeliverySeconds = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "errata_delivery_attempt_seconds", Help: "Duration of one delivery attempt.",
		Buckets: []float64{.005, .01, .02, .05, .1, .2, .5, 1, 2, 5, 10, 15},
	})
	reg.MustRegister(m.Deliveries, m.DeliverySeconds)
	m.SentryDropped = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "errata_sentry_items_dropped_total", Help: "Sentry envelope items accepted and dropped, by item type (sessions, client reports, transactions, …; other for unknown types).",
	}, []string{"type"})
	m.SentryMalformed = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "errata_sentry_items_malformed_total", Help: "Sentry envelope items and log records dropped because they could not be read (the rest of their envelope was accepted).",
	})
	m.SlowWrites = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "errata_db_slow_writes_total", Help: "Write transactions and statements that held the database writer (or their row locks) longer than ERRATA_SLOW_TX_WARN, each logged at WARN with its caller.",
	})
	reg.MustRegister(m.SentryDropped, m.SentryMalformed, m.SlowWrites)
	for _, typ := range SentryItemTypes {
		m.SentryDropped.WithLabelValues(typ)
	}
	reg.MustRegister(m.AcceptedEvents, m.AcceptedBatches, m.Refused, m.CommitSeconds, m.CommitBatches, m.ProcessedEvents, m.ProcessSeconds, m.FailedBatches)
	for _, route := range routes {
		m.AcceptedEvents.WithLabelValues(route)
		m.AcceptedBatches.WithLabelValues(route)
		for _, reason := range reasons {
			m.Refused.WithLabelValues(route, reason)
		}
	}
	for _, event := range deliveryEvents {
		for _, outcome := range deliveryOutcomes {
			m.Deliveries.WithLabelValues(event, outcome)
		}
	}
	return m
}

// ObserveCommit records one queue commit (queue.Options.Observe).
func (m *Metrics) ObserveCommit(d time.Duration, batches, _ int, err error) {
	if err == nil {
		m.CommitSeconds.Observe(d.Seconds())
		m.CommitBatches.Observe(float64(batches))
	}
}

// ObserveProcessed records one processed batch (process.Options.Observe).
func (m *Metrics) ObserveProcessed(events int, d time.Duration) {
	m.ProcessedEvents.Add(float64(events))
	m.ProcessSeconds.Observe(d.Seconds())
}

// ObserveDelivery records one delivery attempt (notify.Options.Observe).
func (m *Metrics) ObserveDelivery(event, outcome string, d time.Duration) {
	m.Deliveries.WithLabelValues(event, outcome).Inc()
	m.DeliverySeconds.Observe(d.Seconds())
}

// DroppedSentryItems counts n dropped Sentry items of type typ, as other
// when typ is not one of SentryItemTypes.
func (m *Metrics) DroppedSentryItems(typ string, n int) {
	label := SentryItemOther
	for _, known := range SentryItemTypes {
		if typ == known {
			label = known
			break
		}
	}
	m.SentryDropped.WithLabelValues(label).Add(float64(n))
}

// Gauge registers a gauge whose value is read from f at every scrape.
func (m *Metrics) Gauge(name, help string, f func() float64) {
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, f))
}

// CounterFunc registers a counter whose value is read from f at every
// scrape (a count kept elsewhere, never decreasing).
func (m *Metrics) CounterFunc(name, help string, f func() float64) {
	m.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help}, f))
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}
