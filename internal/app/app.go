// Package app wires the store, the services and the HTTP server together and
// runs them: ordered start, ordered shutdown.
package app

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/netutil"
	"google.golang.org/grpc"

	"github.com/errata-dev/errata/internal/auth"
	"github.com/errata-dev/errata/internal/clientip"
	"github.com/errata-dev/errata/internal/config"
	"github.com/errata-dev/errata/internal/httpapi"
	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/intake"
	"github.com/errata-dev/errata/internal/mail"
	"github.com/errata-dev/errata/internal/metrics"
	"github.com/errata-dev/errata/internal/notify"
	"github.com/errata-dev/errata/internal/notify/webhook"
	"github.com/errata-dev/errata/internal/org"
	"github.com/errata-dev/errata/internal/otlp"
	"github.com/errata-dev/errata/internal/process"
	"github.com/errata-dev/errata/internal/queue"
	"github.com/errata-dev/errata/internal/ratelimit"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/tickets"
	"github.com/errata-dev/errata/internal/web"
)

// Options are everything App needs.
type Options struct {
	Store config.Store
	Serve config.Serve
	Log   *slog.Logger
	// Argon2 overrides the password hashing cost (tests use cheap ones).
	Argon2 auth.Argon2
}

// App is a running Errata process.
type App struct {
	opts Options
	log  *slog.Logger
	DB   *store.DB
	Auth *auth.Service
	Orgs *org.Service
	HTTP *httpapi.Server

	Metrics   *metrics.Metrics
	Monitor   *queue.Monitor
	Committer *queue.Committer
	Processor *process.Processor
	// Notify owns channels, deliveries and digests.
	Notify *notify.Service
	// GRPC is the OTLP/gRPC server, nil when ERRATA_GRPC_ADDR is off.
	GRPC     *grpc.Server
	grpcAddr atomic.Pointer[string]
	stopping atomic.Bool
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
	db, err := OpenStore(ctx, opts.Store, log)
	if err != nil {
		return nil, err
	}
	a := &App{opts: opts, log: log, DB: db}
	if err := a.build(ctx); err != nil {
		_ = db.Close()
		return nil, err
	}
	return a, nil
}

func (a *App) build(ctx context.Context) error {
	cfg := a.opts.Serve
	var mailer org.Mailer
	var sender *mail.Sender
	if cfg.SMTPURL != "" {
		m, err := mail.New(cfg.SMTPURL, cfg.MailFrom)
		if err != nil {
			return err
		}
		mailer, sender = m, m
	}
	a.Orgs = org.New(a.DB, org.Options{DefaultPlan: cfg.DefaultPlan, AppURL: cfg.AppURL, Mailer: mailer, Logger: a.log})
	a.Auth = auth.New(a.DB, a.Orgs, auth.Options{OpenSignup: cfg.Signup == "open", Argon2: a.opts.Argon2, Logger: a.log})
	key, err := a.DB.Setting(ctx, "cursor_key", func() ([]byte, error) {
		b := make([]byte, 32)
		_, err := rand.Read(b)
		return b, err
	})
	if err != nil {
		return err
	}
	clientIP := clientip.New(cfg.TrustedPrefixes)
	a.HTTP, err = httpapi.New(a.DB, a.Auth, a.Orgs, httpapi.Config{
		BaseURL: cfg.BaseURL, AppURL: cfg.AppURL, DocsURL: cfg.DocsURL,
		APIRateLimit: cfg.APIRateLimit, APIRateBurst: cfg.APIRateBurst, ClientIP: clientIP,
	}, key, a.log)
	if err != nil {
		return err
	}
	a.Metrics = metrics.New()
	a.Notify = notify.New(a.DB, notify.Options{AppURL: cfg.AppURL, Webhook: webhook.Options{AllowPrivate: cfg.WebhookAllowPrivate},
		Mail: sender, Waits: cfg.WebhookRetryWaits, Lease: cfg.DeliveryLease, Logger: a.log, Observe: a.Metrics.ObserveDelivery})
	a.HTTP.UseNotifier(a.Notify)
	dir := ""
	if a.DB.Dialect() == store.SQLite {
		dir = filepath.Dir(a.DB.Path())
	}
	a.Monitor = queue.NewMonitor(a.DB, dir, int64(cfg.MaxBacklogBytes), int64(cfg.MinFreeDisk), a.log)
	a.Monitor.Poll(ctx)
	spike := tickets.DefaultSpikeRule
	spike.Min, spike.Factor = cfg.SpikeMin, cfg.SpikeFactor
	a.Processor = process.New(a.DB, process.Options{InfoWindow: cfg.InfoWindow, Lease: cfg.WorkerLease, Samples: cfg.GroupSamples,
		Spike: spike, Logger: a.log, Observe: a.Metrics.ObserveProcessed, OnSetAside: a.Metrics.FailedBatches.Inc,
		OnTickets: a.Notify.OnTickets, AfterTickets: a.Notify.AfterCommit})
	a.Committer = queue.NewCommitter(a.DB, queue.Options{Observe: func(d time.Duration, batches, events int, err error) {
		a.Metrics.ObserveCommit(d, batches, events, err)
		if err == nil {
			a.Processor.Wake()
		}
	}, DiskAllows: a.Monitor.DiskAllows})
	a.Committer.Start()
	in := &intake.Intake{
		Auth: a.Auth, Limiter: ratelimit.New(cfg.IngestRateLimit, cfg.IngestRateBurst), Callers: a.HTTP.Callers(), ClientIP: clientIP,
		Monitor: a.Monitor, Committer: a.Committer, Metrics: a.Metrics,
		Memory:  intake.NewBudget(int64(cfg.IngestMemory), time.Second),
		Decoder: &ingest.Decoder{Redact: ingest.NewRedactor(cfg.RedactKeys)},
	}
	a.HTTP.MountIngest(in)
	otlp.Mount(a.HTTP, in, a.log)
	if cfg.GRPCAddr != "off" {
		a.GRPC = otlp.NewGRPCServer(in, a.log, otlp.GRPCOptions{ReadTimeout: cfg.ReadTimeout})
	}
	a.registerGauges()
	a.HTTP.MountOps(a.Metrics.Handler(), a.ready)
	if _, err := web.Mount(a.HTTP, web.Options{DB: a.DB, Auth: a.Auth, Orgs: a.Orgs, Tickets: tickets.NewService(a.DB, nil), Notify: a.Notify, BaseURL: cfg.BaseURL, Log: a.log}); err != nil {
		return err
	}
	return nil
}

// ready reports whether the process can take traffic.
func (a *App) ready(ctx context.Context) error {
	if a.stopping.Load() {
		return errors.New("shutting down")
	}
	return a.DB.Ping(ctx)
}

func (a *App) registerGauges() {
	m := a.Monitor
	a.Metrics.Gauge("errata_ingest_backlog_batches", "Accepted batches not yet processed.", func() float64 { return float64(m.Stats().Batches) })
	a.Metrics.Gauge("errata_ingest_backlog_events", "Accepted events not yet processed.", func() float64 { return float64(m.Stats().Events) })
	a.Metrics.Gauge("errata_ingest_backlog_bytes", "Bytes of accepted batches not yet processed.", func() float64 { return float64(m.Stats().Bytes) })
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

// Run serves until ctx is cancelled, then shuts down in order: stop taking
// requests and finish those in flight, stop background work, close the store.
func (a *App) Run(ctx context.Context, ready func(addr net.Addr)) error {
	cfg := a.opts.Serve
	if cfg.WebhookAllowPrivate {
		a.log.Warn("ERRATA_WEBHOOK_ALLOW_PRIVATE is on: webhooks may reach private and loopback addresses; never use this in production")
	}
	if cfg.Has(config.RoleWorker) {
		if a.DB.Dialect() == store.SQLite { // one process owns the file: leases of a dead predecessor are void
			if n, err := a.DB.Write().ReleaseLeases(ctx); err != nil {
				return err
			} else if n > 0 {
				a.log.Info("released the leases of batches in flight when the last process stopped", "batches", n)
			}
			if n, err := a.DB.Write().ReleaseDeliveryLeases(ctx); err != nil {
				return err
			} else if n > 0 {
				a.log.Info("released the leases of deliveries in flight when the last process stopped", "deliveries", n)
			}
		}
		a.Processor.Start()
		a.Notify.Start()
	}
	if cfg.Has(config.RoleScheduler) {
		a.Notify.StartScheduler()
	}
	var srv *http.Server
	errc := make(chan error, 2)
	if cfg.Has(config.RoleAPI) {
		ln, err := net.Listen("tcp", cfg.Addr)
		if err != nil {
			return fmt.Errorf("listen on %s: %w", cfg.Addr, err)
		}
		ln = netutil.LimitListener(ln, cfg.MaxConnections)
		// ReadTimeout covers the whole request, headers and body: a client
		// that stalls mid-body loses its connection instead of holding it.
		srv = &http.Server{Handler: a.HTTP, ReadTimeout: cfg.ReadTimeout, ReadHeaderTimeout: min(10*time.Second, cfg.ReadTimeout),
			IdleTimeout: 2 * time.Minute, ErrorLog: slog.NewLogLogger(a.log.Handler(), slog.LevelWarn)}
		var gln net.Listener
		if a.GRPC != nil {
			if gln, err = net.Listen("tcp", cfg.GRPCAddr); err != nil {
				_ = ln.Close()
				return fmt.Errorf("listen on %s (ERRATA_GRPC_ADDR): %w", cfg.GRPCAddr, err)
			}
			gln = netutil.LimitListener(gln, cfg.MaxConnections)
			addr := gln.Addr().String()
			a.grpcAddr.Store(&addr) // before the log line and ready below
			go func() { errc <- a.GRPC.Serve(gln) }()
		}
		go func() { errc <- srv.Serve(ln) }()
		a.log.Info("errata serving", "addr", ln.Addr().String(), "grpc_addr", a.GRPCAddr(), "base_url", cfg.BaseURL, "database", a.DB.Dialect(), "roles", cfg.Roles)
		if ready != nil {
			ready(ln.Addr())
		}
	}
	bg, stopBG := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { defer wg.Done(); a.Monitor.Run(bg, time.Second) }()
		if cfg.Has(config.RoleWorker) {
			wg.Add(1)
			go func() { defer wg.Done(); a.janitor(bg) }()
		}
		wg.Wait()
	}()

	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-errc:
	}
	a.log.Info("shutting down")
	a.stopping.Store(true)
	if srv != nil {
		sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
		grpcDone := a.stopGRPC(sctx)
		if err := srv.Shutdown(sctx); err != nil {
			a.log.Warn("HTTP shutdown incomplete", "err", err)
		}
		<-grpcDone
		cancel()
	}
	a.Committer.Stop() // every request that got a 202 (or an OTLP success) was committed before the servers stopped
	a.Processor.Stop() // finishes the batches in hand; the rest wait in the queue
	a.Notify.StopScheduler()
	a.Notify.Stop() // finishes the attempts in flight; pending deliveries wait in the store
	a.Notify.Close()
	stopBG()
	<-done
	a.Orgs.Close()
	if err := a.DB.Close(); err != nil {
		a.log.Warn("closing the store", "err", err)
	}
	a.log.Info("stopped")
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) && !errors.Is(serveErr, grpc.ErrServerStopped) {
		return serveErr
	}
	return nil
}

// ServeGRPC serves OTLP/gRPC on ln until the server stops; Run calls it,
// and tests that serve the app themselves may too.
func (a *App) ServeGRPC(ln net.Listener) error {
	addr := ln.Addr().String()
	a.grpcAddr.Store(&addr)
	return a.GRPC.Serve(ln)
}

// GRPCAddr is the address OTLP/gRPC listens on once served ("" before, or
// when it is off): with ERRATA_GRPC_ADDR=127.0.0.1:0 the port bound.
func (a *App) GRPCAddr() string {
	if p := a.grpcAddr.Load(); p != nil {
		return *p
	}
	return ""
}

// stopGRPC stops taking OTLP/gRPC calls and lets those in flight finish
// (GracefulStop), cutting them off when ctx ends. The channel closes when
// the server has stopped.
func (a *App) stopGRPC(ctx context.Context) <-chan struct{} {
	done := make(chan struct{})
	if a.GRPC == nil {
		close(done)
		return done
	}
	stopped := make(chan struct{})
	go func() { a.GRPC.GracefulStop(); close(stopped) }()
	go func() {
		defer close(done)
		select {
		case <-stopped:
		case <-ctx.Done():
			a.log.Warn("OTLP/gRPC shutdown incomplete: cutting off calls in flight")
			a.GRPC.Stop()
			<-stopped
		}
	}()
	return done
}

// Close releases the store without running (for tests and commands).
func (a *App) Close() error {
	if a.GRPC != nil {
		a.GRPC.Stop()
	}
	a.Committer.Stop()
	a.Processor.Stop()
	a.Notify.StopScheduler()
	a.Notify.Stop()
	a.Notify.Close()
	a.Orgs.Close()
	return a.DB.Close()
}

// janitor deletes expired sessions and what retention no longer keeps,
// hourly.
func (a *App) janitor(ctx context.Context) {
	t := time.NewTicker(time.Hour)
	defer t.Stop()
	keep := store.DefaultRetention
	keep.Records = time.Duration(a.opts.Serve.RetentionDays) * 24 * time.Hour
	for {
		if n, err := a.DB.Write().DeleteExpiredSessions(ctx, time.Now()); err != nil && ctx.Err() == nil {
			a.log.Warn("deleting expired sessions", "err", err)
		} else if n > 0 {
			a.log.Info("expired sessions deleted", "count", n)
		}
		if p, err := a.DB.Write().Prune(ctx, keep, time.Now()); err != nil && ctx.Err() == nil {
			a.log.Warn("pruning old data", "err", err)
		} else if p != (store.Pruned{}) {
			a.log.Info("old data pruned", "minute_counts", p.Minutes, "hour_counts", p.Hours, "tickets", p.Tickets, "info_summaries", p.Summaries,
				"digests", p.Digests, "deliveries", p.Deliveries)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
