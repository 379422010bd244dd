// Package app wires the store, the services and the HTTP server together and
// runs them: ordered start, ordered shutdown.
package app

import (
	"context"
	"crypto/rand"
	"errors"
	"log/slog"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/errata-dev/errata/internal/auth"
	"github.com/errata-dev/errata/internal/clientip"
	"github.com/errata-dev/errata/internal/cluster"
	"github.com/errata-dev/errata/internal/config"
	"github.com/errata-dev/errata/internal/httpserver"
	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/intake"
	"github.com/errata-dev/errata/internal/lifecycle"
	"github.com/errata-dev/errata/internal/mail"
	"github.com/errata-dev/errata/internal/metrics"
	"github.com/errata-dev/errata/internal/notify"
	"github.com/errata-dev/errata/internal/notify/delivery"
	"github.com/errata-dev/errata/internal/notify/digest"
	"github.com/errata-dev/errata/internal/notify/webhook"
	"github.com/errata-dev/errata/internal/org"
	"github.com/errata-dev/errata/internal/otlp"
	"github.com/errata-dev/errata/internal/process"
	"github.com/errata-dev/errata/internal/queue"
	"github.com/errata-dev/errata/internal/ratelimit"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/symbolicate"
	"github.com/errata-dev/errata/internal/tickets"
)

// Options are everything App needs.
type Options struct {
	Store config.Store
	Serve config.Serve
	Log   *slog.Logger
	// Argon2 overrides the password hashing cost (tests use cheap ones).
	Argon2 auth.Argon2
	// Now is the one clock of every service (default time.Now): tests set
	// it instead of sleeping past a boundary.
	Now func() time.Time
}

// App is a running Errata process.
type App struct {
	opts Options
	log  *slog.Logger
	DB   *store.DB
	Auth *auth.Service
	Orgs *org.Service
	// HTTP is the process's HTTP server, with every transport mounted.
	HTTP *httpserver.Server

	Metrics   *metrics.Metrics
	Monitor   *queue.Monitor
	Committer *queue.Committer
	Processor *process.Processor
	// symbolicator maps processing's JavaScript frames; uploads make it forget its misses.
	symbolicator *symbolicate.Symbolicator
	// memory is the budget of request bodies being decoded, which open
	// connections are charged to as well.
	memory *intake.Budget
	// Notify owns channels and their deliveries; its engine attempts them.
	Notify *notify.Service
	// Digests owns digest schedules; started, it is the digest scheduler.
	Digests *digest.Service
	// GRPC is the OTLP/gRPC server, nil when ERRATA_GRPC_ADDR is off or
	// the process has no api role.
	GRPC *otlp.GRPCServer
	// Member is this process in the cluster of processes sharing the
	// database: heartbeat, the scheduler lease, peer counts.
	Member *cluster.Member

	retention *retention
	running   lifecycle.Group // the services Start started
	ops       http.Handler    // what a process without the api role serves
	started   bool
	grpcAddr  atomic.Pointer[string]
	stopping  atomic.Bool
}

// OpenStore opens and migrates the configured database.
func OpenStore(ctx context.Context, cfg config.Store, log *slog.Logger) (*store.DB, error) {
	db, err := store.Open(ctx, store.Options{URL: cfg.DatabaseURL, DataDir: cfg.DataDir})
	if err != nil {
		return nil, err
	}
	n, err := db.Migrate(ctx)
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	if n > 0 {
		log.Info("database migrated", "dialect", db.Dialect(), "migrations", n)
	}
	return db, nil
}

// New opens the store and builds every service.
func New(ctx context.Context, opts Options) (*App, error) {
	log := opts.Log
	if log == nil {
		log = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	db, err := OpenStore(ctx, opts.Store, log)
	if err != nil {
		return nil, err
	}
	a := &App{opts: opts, log: log, DB: db}
	if err := a.build(ctx); err != nil {
		_ = db.Close()
		return nil, err
	}
	a.warnAutoJoin(ctx)
	return a, nil
}

// warnAutoJoin says when an ERRATA_OIDC_AUTO_JOIN entry names an
// organization that does not exist: its domain's users would join nothing,
// silently (ParseAutoJoin checked the entry's form, not the database).
func (a *App) warnAutoJoin(ctx context.Context) {
	for _, e := range a.opts.Serve.OIDCAutoJoin {
		j, err := config.ParseAutoJoin(e)
		if err != nil {
			continue
		}
		if _, err := a.DB.Read().OrgByID(ctx, j.OrgID); errors.Is(err, store.ErrNotFound) {
			a.log.Warn("ERRATA_OIDC_AUTO_JOIN names an organization that does not exist: users of its domain join nothing", "domain", j.Domain, "org_id", j.OrgID)
		}
	}
}

func (a *App) build(ctx context.Context) error {
	cfg := a.opts.Serve
	sender, err := mailSender(cfg)
	if err != nil {
		return err
	}
	now := a.opts.Now
	a.Metrics = metrics.New()
	a.DB.BoundRequests(cfg.DBTimeout)
	a.DB.WarnSlowWrites(store.SlowWrites{Threshold: cfg.SlowTxWarn, Logger: a.log, OnSlow: a.Metrics.SlowWrites.Inc})
	var lead []string
	if cfg.Has(config.RoleScheduler) {
		lead = []string{cluster.SchedulerLease}
	}
	ingestLimiter := ratelimit.New(cfg.IngestRateLimit, cfg.IngestRateBurst)
	sentryLimiter := ratelimit.New(cfg.SentryRateLimit, cfg.SentryRateBurst)
	callers := ratelimit.New(cfg.APIRateLimit, cfg.APIRateBurst) // the management API's, per caller
	a.Member = cluster.New(a.DB, cluster.Options{Roles: cfg.Roles, Lead: lead, Now: now, Logger: a.log,
		OnPeers: func(peers map[string]int) {
			// Limits are the installation's: each live api process
			// enforces its share (docs/scaling.md).
			n := max(peers[config.RoleAPI], 1)
			ingestLimiter.Share(n)
			sentryLimiter.Share(n)
			callers.Share(n)
			a.Auth.ShareLimits(n)
		}})
	leads := func() bool { return a.Member.Leads(cluster.SchedulerLease) }
	// Invitation emails go through the delivery engine (durable, retried),
	// so notify is built before org.
	a.Notify = notify.New(a.DB, notify.Options{AppURL: cfg.AppURL, Webhook: webhook.Options{AllowPrivate: cfg.WebhookAllowPrivate}, Mail: sender,
		Delivery: delivery.Options{Waits: cfg.WebhookRetryWaits, Lease: cfg.DeliveryLease, Observe: a.Metrics.ObserveDelivery}, Logger: a.log, Now: now})
	a.Digests = digest.New(a.DB, a.Notify, digest.Options{AppURL: cfg.AppURL, Leads: leads, Now: now, Logger: a.log})
	keep := store.DefaultRetention
	keep.Records = time.Duration(cfg.RetentionDays) * 24 * time.Hour
	a.retention = &retention{db: a.DB, keep: keep, leads: leads, now: now, log: a.log, every: time.Hour}
	a.Orgs = org.New(a.DB, org.Options{DefaultPlan: cfg.DefaultPlan, AppURL: cfg.AppURL, Mailer: a.Notify, Logger: a.log, Now: now})
	a.Auth = auth.New(a.DB, a.Orgs, auth.Options{OpenSignup: cfg.Signup == "open", Argon2: a.opts.Argon2, Logger: a.log, Now: now,
		Mailer: a.Notify, AppURL: cfg.AppURL})
	key, err := a.cursorKey(ctx)
	if err != nil {
		return err
	}
	clientIP := clientip.New(cfg.TrustedPrefixes).WithIPv6Prefix(cfg.IPv6Prefix)
	a.Monitor = queue.NewMonitor(a.DB, a.DB.Dir(), int64(cfg.MaxBacklogBytes), int64(cfg.MinFreeDisk), a.log)
	a.Monitor.Poll(ctx)
	spike := tickets.DefaultSpikeRule
	spike.Min, spike.Factor = cfg.SpikeMin, cfg.SpikeFactor
	a.symbolicator = symbolicate.New(a.DB, int64(cfg.SourcemapCache))
	foldEvery := cfg.CountsLag
	if foldEvery == 0 {
		foldEvery = -1 // process.Options: never defer to a later fold
	}
	a.Processor = process.New(a.DB, process.Options{InfoWindow: cfg.InfoWindow, Lease: cfg.WorkerLease, Samples: cfg.GroupSamples, FoldEvery: foldEvery,
		Spike: spike, Logger: a.log, Now: now, Observe: a.Metrics.ObserveProcessed, OnSetAside: a.Metrics.FailedBatches.Inc,
		OnTickets: a.Notify.OnTickets, AfterTickets: a.Notify.AfterCommit,
		Symbolicate: a.symbolicator.Event})
	a.Committer = queue.NewCommitter(a.DB, queue.Options{Observe: func(d time.Duration, batches, events int, err error) {
		a.Metrics.ObserveCommit(d, batches, events, err)
		if err == nil {
			a.Processor.Wake()
		}
	}, DiskAllows: a.Monitor.DiskAllows})
	a.memory = intake.NewBudget(int64(cfg.IngestMemory), time.Second)
	in := &intake.Intake{
		Auth: a.Auth, Limiter: ingestLimiter, Callers: callers, ClientIP: clientIP, Now: now,
		Monitor: a.Monitor, Committer: a.Committer, Metrics: a.Metrics,
		Memory:  a.memory,
		Decoder: &ingest.Decoder{Redact: ingest.NewRedactor(cfg.RedactKeys)},
	}
	sentryIn := in.WithLimiter(sentryLimiter)
	sentryIn.Events = ingestLimiter // their events count as /v1/ingest's do (CONTRACT 8)
	if cfg.GRPCAddr != "off" && cfg.Has(config.RoleAPI) {
		a.GRPC = otlp.NewGRPCServer(in, a.log, otlp.GRPCOptions{ReadTimeout: cfg.ReadTimeout})
	}
	a.registerGauges()
	a.ops = httpserver.Ops(a.Metrics.Handler(), a.ready, a.log, cfg.DocsURL)
	return a.buildHTTP(httpTransports{cursorKey: key, clientIP: clientIP, callers: callers, ingest: in, sentry: sentryIn})
}

// mailSender is the SMTP sender of ERRATA_SMTP_URL, or nil without one.
func mailSender(cfg config.Serve) (*mail.Sender, error) {
	if cfg.SMTPURL == "" {
		return nil, nil
	}
	return mail.New(cfg.SMTPURL, cfg.MailFrom)
}

// cursorKey is the key list cursors are signed with: made once, kept in
// the database so that every process and restart shares it.
func (a *App) cursorKey(ctx context.Context) ([]byte, error) {
	return a.DB.Setting(ctx, "cursor_key", func() ([]byte, error) {
		b := make([]byte, 32)
		_, err := rand.Read(b)
		return b, err
	})
}

// ready reports whether the process can take traffic.
func (a *App) ready(ctx context.Context) error {
	if a.stopping.Load() {
		return errors.New("shutting down")
	}
	if a.Monitor != nil && a.Monitor.LowDisk() {
		// The heartbeat's small write may still fit in the WAL while
		// every batch and most changes are refused.
		return errors.New("the data directory's free space is under ERRATA_MIN_FREE_DISK")
	}
	return a.DB.Ready(ctx)
}

func (a *App) registerGauges() {
	m := a.Monitor
	a.Metrics.Gauge("errata_ingest_backlog_batches", "Accepted batches not yet processed.", func() float64 { return float64(m.Stats().Batches) })
	a.Metrics.Gauge("errata_ingest_backlog_events", "Accepted events not yet processed.", func() float64 { return float64(m.Stats().Events) })
	a.Metrics.Gauge("errata_ingest_backlog_bytes", "Bytes of accepted batches not yet processed.", func() float64 { return float64(m.Stats().Bytes) })
	a.Metrics.Gauge("errata_ingest_memory_connections", "Open connections charged to the memory budget of request bodies (ERRATA_INGEST_MEMORY), 20 KiB each, at most three quarters of it.",
		func() float64 { return float64(a.memory.Connections()) })
	a.Metrics.Gauge("errata_ingest_memory_awaiting_messages", "OTLP/gRPC exports holding room in the memory budget for a message whose prefix has arrived and whose rest has not.",
		func() float64 { return float64(a.memory.Awaiting()) })
	if a.GRPC != nil {
		a.Metrics.Gauge("errata_ingest_grpc_calls_awaiting_message", "Admitted OTLP/gRPC exports waiting, with no memory reserved, for their message to begin to arrive.",
			func() float64 { return float64(a.GRPC.AwaitingMessage()) })
	}
	a.Metrics.CounterFunc("errata_ingest_memory_preempted_total", "OTLP/gRPC exports refused UNAVAILABLE because their message had not arrived 500 ms after they reserved room for it while other requests waited for that room.",
		func() float64 { return float64(a.memory.Preempted()) })
	a.Metrics.Gauge("errata_ingest_failed_batches", "Batches set aside after failing to process five times (errata queue failed lists them).", func() float64 { return float64(m.Stats().Failed) })
	a.Metrics.Gauge("errata_ingest_processing_lag_seconds", "Age of the oldest unprocessed batch.", func() float64 { return m.Stats().Lag.Seconds() })
	a.Metrics.Gauge("errata_delivery_pending", "Deliveries waiting for an attempt or a retry.", func() float64 {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		n, _ := a.DB.Read().CountPendingDeliveries(ctx)
		return float64(n)
	})
	if m.WatchesDisk() { // absent on PostgreSQL rather than a made-up value
		a.Metrics.Gauge("errata_data_dir_free_bytes", "Free bytes in the SQLite data directory.", func() float64 { return float64(m.Stats().FreeDisk) })
	}
}
