package delivery

import (
	"context"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/errata-dev/errata/internal/lifecycle"
	"github.com/errata-dev/errata/internal/store"
)

// DefaultWaits are the waits after failed attempts (spec 6.4).
var DefaultWaits = []time.Duration{time.Minute, 5 * time.Minute, 15 * time.Minute, time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour}

// Limits of spec 6.4.
const (
	MaxAttempts   = 8
	MaxRetryAfter = 12 * time.Hour
)

// Send makes one attempt at a claimed delivery. A Cancel or Drop outcome
// says it made none (the channel no longer takes deliveries, or is gone).
type Send func(ctx context.Context, d store.Delivery) Result

// DefaultWorkers bounds the attempts in flight in all: receivers that do
// not answer hold PerChannel each until their 10 s time-out, so 64 (the
// first default) let eight of them delay every other channel's deliveries
// by up to 10 s. An attempt waiting on a receiver costs a goroutine and a
// connection, so the bound is set where 64 such receivers are needed.
const DefaultWorkers = 512

// Options configure the engine.
type Options struct {
	// Waits are the seven waits between attempts (default DefaultWaits).
	Waits []time.Duration
	// Jitter spreads each wait by up to this fraction either way (default 0.1).
	Jitter float64
	// PerChannel is the most attempts in flight to one channel (default 8).
	PerChannel int
	// Workers is the most attempts in flight in all (default DefaultWorkers).
	Workers int
	// Lease is how long a claimed delivery stays with this process (default 2m).
	Lease time.Duration
	// Idle is the longest sleep before looking for work that another
	// process queued (default 5s); this process's own work wakes it at once.
	Idle time.Duration
	// Observe, if set, is told about every recorded attempt.
	Observe func(event, outcome string, d time.Duration)
	Now     func() time.Time
	Logger  *slog.Logger
}

// Engine attempts due deliveries: one loop claims them, at most PerChannel
// attempts run per channel at once, the rest of a busy channel waits in
// memory (at most PerChannel), and a committer writes finished attempts in
// groups.
type Engine struct {
	db *store.DB
	// newSend returns the sender of a run; it may keep what it reads (a
	// channel) for at most keep.
	newSend func(keep time.Duration) Send
	opts    Options
	wake    chan struct{}
	lifecycle.Base
}

// New returns an engine attempting deliveries with the senders newSend
// returns; Start runs it.
func New(db *store.DB, newSend func(keep time.Duration) Send, opts Options) *Engine {
	if len(opts.Waits) != MaxAttempts-1 {
		opts.Waits = DefaultWaits
	}
	if opts.Jitter <= 0 {
		opts.Jitter = 0.1
	}
	if opts.PerChannel <= 0 {
		opts.PerChannel = 8
	}
	if opts.Workers <= 0 {
		opts.Workers = DefaultWorkers
	}
	if opts.Lease <= 0 {
		opts.Lease = 2 * time.Minute
	}
	if opts.Idle <= 0 {
		opts.Idle = 5 * time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Engine{db: db, newSend: newSend, opts: opts, wake: make(chan struct{}, 1)}
}

// Wake tells the engine that deliveries were queued.
func (s *Engine) Wake() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *Engine) now() time.Time { return s.opts.Now().UTC().Truncate(time.Millisecond) }

// attempt makes one attempt at a claimed delivery and decides what comes
// next.
func (s *Engine) attempt(ctx context.Context, d store.Delivery, send Send) result {
	at := s.now()
	r := send(ctx, d)
	if r.Outcome == Cancel || r.Outcome == Drop {
		return result{d: d, o: r.Outcome}
	}
	return result{d: d, a: s.Judge(d, at, r), o: r.Outcome}
}

// Observed tells Options.Observe of an attempt made outside the engine's
// loop (a channel test), so that /metrics counts every attempt.
func (s *Engine) Observed(event, outcome string, d time.Duration) {
	if s.opts.Observe != nil && outcome != "" {
		s.opts.Observe(event, outcome, d)
	}
}

// Judge turns an attempt's result into the attempt record and the
// delivery's next step: delivered, a retry the jittered wait (or a longer
// Retry-After, up to 12 h) after the attempt ended, or given up.
func (s *Engine) Judge(d store.Delivery, at time.Time, r Result) store.Attempt {
	a := store.Attempt{DeliveryID: d.ID, Series: d.Series, At: at, HTTPStatus: r.HTTPStatus, ErrorClass: r.ErrorClass, Error: r.Error, Duration: r.Duration}
	n := d.Attempts + 1
	switch {
	case r.Outcome == Delivered:
		a.Outcome = store.OutcomeDelivered
	case r.Outcome == Retry && n < MaxAttempts:
		a.Outcome = store.OutcomeRetry
		wait := s.wait(n)
		if ra := min(r.RetryAfter, MaxRetryAfter); ra > wait {
			wait = ra
		}
		// The wait follows the failure, not the attempt's start: an
		// attempt that timed out after 10 s must not eat 10 s of it.
		next := at.Add(r.Duration).Add(wait).Truncate(time.Millisecond)
		a.NextRetryAt = &next
	default:
		a.Outcome = store.OutcomeFailed
	}
	return a
}

// wait is the jittered wait after the given failed attempt (1-based).
func (s *Engine) wait(attempt int64) time.Duration {
	w := s.opts.Waits[attempt-1]
	j := 1 + s.opts.Jitter*(2*rand.Float64()-1)
	return time.Duration(float64(w) * j)
}
