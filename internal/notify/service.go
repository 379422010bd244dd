// Package notify tells people about tickets: a project's channels (signed
// webhooks, in Errata's JSON or a chat tool's format, and email), each with
// filters choosing the tickets it is sent, the queuing of their deliveries,
// previews, and system emails (an invitation's). Deliveries are enqueued in
// the transaction that creates what they deliver, so none is lost; the
// delivery engine (notify/delivery) attempts them at least once through
// this package's senders, which render chat messages and emails from the
// stored notification. Digests (notify/digest) are queued through it too.
package notify

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/errata-dev/errata/internal/mail"
	"github.com/errata-dev/errata/internal/notify/delivery"
	"github.com/errata-dev/errata/internal/notify/webhook"
	"github.com/errata-dev/errata/internal/store"
)

// Limits of CONTRACT 5.
const (
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
	// Delivery configures the delivery engine (its Now and Logger default
	// to these).
	Delivery delivery.Options
	Now      func() time.Time
	Logger   *slog.Logger
}

// Service owns channels and queues their deliveries; its engine attempts
// them.
type Service struct {
	db     *store.DB
	opts   Options
	client *webhook.Client
	engine *delivery.Engine
	// queued is set when this process queued a delivery that the engine
	// has not been told about yet.
	queued atomic.Bool

	// keyMu guards key, the unsubscribe key once read (unsubscribeKey).
	keyMu sync.Mutex
	key   []byte
}

// New returns the service.
func New(db *store.DB, opts Options) *Service {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	s := &Service{db: db, opts: opts, client: webhook.NewClient(opts.Webhook)}
	eo := opts.Delivery
	if eo.Now == nil {
		eo.Now = opts.Now
	}
	if eo.Logger == nil {
		eo.Logger = opts.Logger
	}
	s.engine = delivery.New(db, s.sender, eo)
	return s
}

// Engine is the delivery engine, a service of the worker role.
func (s *Service) Engine() *delivery.Engine { return s.engine }

// DeliverDue attempts every delivery due now, one at a time (Engine's
// DeliverDue). Tests and tools use it with an injected clock.
func (s *Service) DeliverDue(ctx context.Context) (int, error) { return s.engine.DeliverDue(ctx) }

// Close releases the HTTP client's idle connections.
func (s *Service) Close() { s.client.Close() }

func (s *Service) now() time.Time { return s.opts.Now().UTC().Truncate(time.Millisecond) }

// Wake tells the engine that deliveries were queued.
func (s *Service) Wake() { s.engine.Wake() }

// AfterCommit wakes the engine if a transaction that just committed queued
// deliveries (process.Options.AfterTickets).
func (s *Service) AfterCommit() {
	if s.queued.Swap(false) {
		s.Wake()
	}
}
