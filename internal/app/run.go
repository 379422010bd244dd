package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"golang.org/x/net/netutil"
	"google.golang.org/grpc"

	"github.com/errata-dev/errata/internal/config"
	"github.com/errata-dev/errata/internal/lifecycle"
)

// services are the background services of the process's roles, in the
// order they start:
//   - every role: the cluster membership (heartbeat, leases, peers) and the
//     backlog monitor (back-pressure, and gauges every process reports);
//   - api: the queue's group committer (its requests' 202s wait on it);
//   - worker: the queue consumers, then the delivery engine;
//   - scheduler: the digest scheduler and retention, which run only while
//     this process holds the scheduler lease.
func (a *App) services() []lifecycle.Named {
	cfg := a.opts.Serve
	out := []lifecycle.Named{{Name: "cluster", Service: a.Member}, {Name: "monitor", Service: a.Monitor}}
	if cfg.Has(config.RoleAPI) {
		out = append(out, lifecycle.Named{Name: "committer", Service: a.Committer})
	}
	if cfg.Has(config.RoleWorker) {
		out = append(out, lifecycle.Named{Name: "processor", Service: a.Processor}, lifecycle.Named{Name: "delivery engine", Service: a.Notify.Engine()})
	}
	if cfg.Has(config.RoleScheduler) {
		out = append(out, lifecycle.Named{Name: "digest scheduler", Service: a.Digests}, lifecycle.Named{Name: "retention", Service: a.retention})
	}
	return out
}

// Start starts the background services of the process's roles. Run calls
// it; tests that serve the app themselves call it too.
func (a *App) Start(ctx context.Context) error {
	if a.started {
		return nil
	}
	if a.opts.Serve.Has(config.RoleWorker) && a.DB.SingleProcess() {
		// One process owns the file: the leases of a dead predecessor are void.
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
	if err := a.running.Start(ctx, a.services()...); err != nil {
		return err
	}
	a.started = true
	return nil
}

// stopServices stops what Start started, in the reverse order. The
// committer stops after the servers (every 202 was committed before its
// request finished), the consumers finish the batches in hand, the engine
// the attempts in flight; pending work waits in the store.
func (a *App) stopServices() {
	if !a.started {
		return
	}
	a.running.Stop()
	a.started = false
}

// Run serves until ctx is cancelled, then shuts down in order: stop taking
// requests and finish those in flight, stop the background services,
// close the store. Every process listens on ERRATA_ADDR: the api role
// serves the API, the dashboard and the ingestion routes there; every role
// serves /healthz, /readyz and /metrics.
func (a *App) Run(ctx context.Context, ready func(addr net.Addr)) error {
	cfg := a.opts.Serve
	if cfg.WebhookAllowPrivate {
		a.log.Warn("ERRATA_WEBHOOK_ALLOW_PRIVATE is on: webhooks may reach private and loopback addresses; never use this in production")
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return listenError(cfg.Addr, err, "--addr", "ERRATA_ADDR", "")
	}
	var gln net.Listener
	if a.GRPC != nil {
		if gln, err = net.Listen("tcp", cfg.GRPCAddr); err != nil {
			_ = ln.Close()
			return listenError(cfg.GRPCAddr, err, "--grpc-addr", "ERRATA_GRPC_ADDR", "; off disables OTLP/gRPC")
		}
	}
	if err := a.Start(ctx); err != nil {
		_ = ln.Close()
		if gln != nil {
			_ = gln.Close()
		}
		return err
	}
	// Open connections are charged to the memory budget of request bodies
	// (intake.Budget.Listener), so that stalled connections and bodies
	// together stay within it.
	ln = a.memory.Listener(netutil.LimitListener(ln, cfg.MaxConnections))
	var handler http.Handler = a.HTTP
	if !cfg.Has(config.RoleAPI) {
		handler = a.ops
	}
	// ReadTimeout covers the whole request, headers and body: a client
	// that stalls mid-body loses its connection instead of holding it. On
	// a kept-alive connection Go starts it only once the next request's
	// first four bytes came, and waits for those as long as IdleTimeout:
	// at most ReadTimeout too, so that a request begun with fewer bytes is
	// cut as soon.
	srv := &http.Server{Handler: handler, ReadTimeout: cfg.ReadTimeout, ReadHeaderTimeout: min(10*time.Second, cfg.ReadTimeout),
		IdleTimeout: min(2*time.Minute, cfg.ReadTimeout), ErrorLog: slog.NewLogLogger(a.log.Handler(), slog.LevelWarn)}
	errc := make(chan error, 2)
	if gln != nil {
		gln = a.memory.Listener(netutil.LimitListener(gln, cfg.MaxConnections))
		addr := gln.Addr().String()
		a.grpcAddr.Store(&addr) // before the log line and ready below
		go func() { errc <- a.GRPC.Serve(gln) }()
	}
	go func() { errc <- srv.Serve(ln) }()
	a.log.Info("errata serving", "roles", cfg.Roles, "addr", ln.Addr().String(), "grpc_addr", a.GRPCAddr(), "base_url", cfg.BaseURL,
		"database", a.DB.Dialect(), "process_id", a.Member.ID())
	if ready != nil {
		ready(ln.Addr())
	}

	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-errc:
	}
	a.log.Info("shutting down", "roles", cfg.Roles)
	a.stopping.Store(true)
	sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	grpcDone := a.stopGRPC(sctx)
	if err := srv.Shutdown(sctx); err != nil {
		a.log.Warn("HTTP shutdown incomplete", "err", err)
	}
	<-grpcDone
	cancel()
	a.stopServices()
	a.closeAll()
	a.log.Info("stopped")
	if serveErr != nil && !errors.Is(serveErr, http.ErrServerClosed) && !errors.Is(serveErr, grpc.ErrServerStopped) {
		return serveErr
	}
	return nil
}

// Close stops what runs and releases the store, for tests and commands that
// did not Run.
func (a *App) Close() error {
	if a.GRPC != nil {
		a.GRPC.Stop()
	}
	a.stopServices()
	return a.closeAll()
}

// closeAll closes what the services left open: idle webhook connections,
// the store.
func (a *App) closeAll() error {
	a.Notify.Close()
	if a.Auth != nil {
		a.Auth.Close() // audit notes written in the background
	}
	err := a.DB.Close()
	if err != nil {
		a.log.Warn("closing the store", "err", err)
	}
	return err
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

// ErrBadAddress marks a listen address that cannot name a local address:
// its host does not resolve or is not an address (a bad setting, exit 2),
// unlike an address in use or a port refused (exit 1).
var ErrBadAddress = errors.New("bad listen address")

// listenError says which setting names the address; the command line adds
// the environment variable to a bad setting's flag itself.
func listenError(addr string, err error, flag, env, more string) error {
	var dnsErr *net.DNSError
	var addrErr *net.AddrError
	// A name that does not exist is a bad setting; a resolver that timed
	// out or failed for now (the network not up yet) is not.
	if errors.As(err, &dnsErr) && dnsErr.IsNotFound || errors.As(err, &addrErr) {
		return badAddress{fmt.Errorf("%s: cannot listen on %s: %w%s", flag, addr, err, more)}
	}
	return fmt.Errorf("listen on %s: %w (the address is set by %s / %s%s)", addr, err, env, flag, more)
}

// badAddress is a listen error that is ErrBadAddress.
type badAddress struct{ error }

func (e badAddress) Unwrap() error      { return e.error }
func (badAddress) Is(target error) bool { return target == ErrBadAddress }
