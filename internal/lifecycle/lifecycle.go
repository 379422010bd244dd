// Package lifecycle is the one shape of a process's background services
// (river's startstop): Start(ctx) error starts a service, at most once while
// it runs, and Stop ends it, waiting until its work in hand is finished. A
// service embeds Base, which makes both idempotent and gives it a stopped
// channel.
package lifecycle

import (
	"context"
	"sync"
)

// Service is a background part of a process. Start returns once the service
// runs (an error when it could not start); the service runs until Stop, not
// until Start's ctx ends, so that a process stops its services in its own
// order. Stop returns once the service's goroutines have ended; calling it
// on a service that does not run does nothing.
type Service interface {
	Start(ctx context.Context) error
	Stop()
}

// Base makes a service's Start and Stop idempotent. A service's Start calls
// StartInit and, when told to start, runs its goroutines under the context
// returned, calling the stopped function once they have all ended (or at
// once when starting failed). Base's Stop cancels that context and waits.
type Base struct {
	mu      sync.Mutex
	running bool
	cancel  context.CancelFunc
	stopped chan struct{}
}

// StartInit begins a start: it returns the context the service's work runs
// under (ctx's values, ended by Stop only), whether to start (false when the
// service already runs), and the function to call once the work has ended.
func (b *Base) StartInit(ctx context.Context) (context.Context, bool, func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.running {
		return ctx, false, nil
	}
	run, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stopped := make(chan struct{})
	b.running, b.cancel, b.stopped = true, cancel, stopped
	var once sync.Once
	return run, true, func() {
		once.Do(func() {
			b.mu.Lock()
			if b.stopped == stopped {
				b.running = false
			}
			b.mu.Unlock()
			cancel()
			close(stopped)
		})
	}
}

// Stop ends the service's context and waits for its work to end. It does
// nothing when the service does not run.
func (b *Base) Stop() {
	b.mu.Lock()
	if !b.running {
		b.mu.Unlock()
		return
	}
	cancel, stopped := b.cancel, b.stopped
	b.mu.Unlock()
	cancel()
	<-stopped
}

// Stopped is closed when the service's last run has ended; it is closed
// already for a service never started.
func (b *Base) Stopped() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stopped == nil {
		b.stopped = make(chan struct{})
		close(b.stopped)
	}
	return b.stopped
}

// Named is a service with the name its process's log lines use.
type Named struct {
	Name string
	Service
}

// Group starts services in order and stops them in the reverse order.
type Group struct {
	started []Named
}

// Start starts each service in order. When one fails, those already started
// are stopped in the reverse order and its error is returned, naming it.
func (g *Group) Start(ctx context.Context, services ...Named) error {
	for _, s := range services {
		if err := s.Start(ctx); err != nil {
			g.Stop()
			return &StartError{Name: s.Name, Err: err}
		}
		g.started = append(g.started, s)
	}
	return nil
}

// Stop stops the services Start started, last first.
func (g *Group) Stop() {
	for i := len(g.started) - 1; i >= 0; i-- {
		g.started[i].Stop()
	}
	g.started = nil
}

// StartError is a service that failed to start.
type StartError struct {
	Name string
	Err  error
}

func (e *StartError) Error() string { return "start " + e.Name + ": " + e.Err.Error() }

// Unwrap is the service's error.
func (e *StartError) Unwrap() error { return e.Err }
