// Package notify tells people about tickets: a project's channels (signed
// webhooks, in Errata's JSON or a chat tool's format, and email), each with
// filters choosing the tickets it is sent, a durable delivery engine with
// retries and channel health, scheduled digests, and system emails (an
// invitation's). Deliveries are enqueued in the transaction that creates
// what they deliver, so none is lost; the engine attempts them at least
// once, rendering chat messages and emails from the stored notification.
package notify

import (
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/errata-dev/errata/internal/mail"
	"github.com/errata-dev/errata/internal/notify/webhook"
	"github.com/errata-dev/errata/internal/store"
)

// DefaultWaits are the waits after failed attempts (spec 6.4).
var DefaultWaits = []time.Duration{time.Minute, 5 * time.Minute, 15 * time.Minute, time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour}

// Limits of spec 6.4 and CONTRACT 5.
const (
	MaxAttempts     = 8
	MaxRetryAfter   = 12 * time.Hour
	RotationOverlap = 24 * time.Hour
	TestInterval    = time.Minute
)

// Options configure the notification service.
type Options struct {
	// AppURL is the dashboard's address, for links.
	AppURL string
	// Webhook configures URL checks and the HTTP client.
	Webhook webhook.Options
	// Mail sends email; nil makes every email delivery fail with a clear
	// reason (ERRATA_SMTP_URL unset).
	Mail *mail.Sender
	// Waits are the seven waits between attempts (default DefaultWaits).
	Waits []time.Duration
	// Jitter spreads each wait by up to this fraction either way (default 0.1).
	Jitter float64
	// PerChannel is the most attempts in flight to one channel (default 8).
	PerChannel int
	// Leads, when set, says whether this process may run the digest
	// scheduler now (it holds the scheduler lease of the cluster): only one
	// process at a time sends scheduled digests.
	Leads func() bool
	// Workers is the most attempts in flight in all (default 64).
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

// Service owns channels, their deliveries and digests.
type Service struct {
	db     *store.DB
	opts   Options
	client *webhook.Client
	wake   chan struct{}
	// queued is set when this process queued a delivery that the engine
	// has not been told about yet.
	queued atomic.Bool
	stop   func()

	schedWake chan struct{}
	stopSched func()

	// keyMu guards key, the unsubscribe key once read (unsubscribeKey).
	keyMu sync.Mutex
	key   []byte
}

// New returns the service.
func New(db *store.DB, opts Options) *Service {
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
		opts.Workers = 64
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
	return &Service{db: db, opts: opts, client: webhook.NewClient(opts.Webhook), wake: make(chan struct{}, 1), schedWake: make(chan struct{}, 1)}
}

// Close releases the HTTP client's idle connections.
func (s *Service) Close() { s.client.Close() }

func (s *Service) now() time.Time { return s.opts.Now().UTC().Truncate(time.Millisecond) }

// Wake tells the engine that deliveries were queued.
func (s *Service) Wake() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// AfterCommit wakes the engine if a transaction that just committed queued
// deliveries (process.Options.AfterTickets).
func (s *Service) AfterCommit() {
	if s.queued.Swap(false) {
		s.Wake()
	}
}

// wait is the jittered wait after the given failed attempt (1-based).
func (s *Service) wait(attempt int64) time.Duration {
	w := s.opts.Waits[attempt-1]
	j := 1 + s.opts.Jitter*(2*rand.Float64()-1)
	return time.Duration(float64(w) * j)
}
