package digest

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/errata-dev/errata/internal/lifecycle"
	"github.com/errata-dev/errata/internal/notify"
	"github.com/errata-dev/errata/internal/store"
)

// Options configure the digest service.
type Options struct {
	// AppURL is the dashboard's address, for links.
	AppURL string
	// Leads, when set, says whether this process may run the scheduler now
	// (it holds the scheduler lease of the cluster): only one process at a
	// time sends scheduled digests.
	Leads  func() bool
	Now    func() time.Time
	Logger *slog.Logger
}

// Service owns the projects' digest schedules and sends their digests
// through notify. Started, it is the digest scheduler (the scheduler
// role's service): it sends scheduled digests until Stop.
type Service struct {
	db     *store.DB
	notify *notify.Service
	opts   Options
	wake   chan struct{}
	lifecycle.Base
}

// New returns the service; Start runs the scheduler.
func New(db *store.DB, n *notify.Service, opts Options) *Service {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	return &Service{db: db, notify: n, opts: opts, wake: make(chan struct{}, 1)}
}

func (s *Service) now() time.Time { return s.opts.Now().UTC().Truncate(time.Millisecond) }

// Start runs the digest scheduler until Stop.
func (s *Service) Start(ctx context.Context) error {
	ctx, ok, stopped := s.StartInit(ctx)
	if !ok {
		return nil
	}
	ctx = store.AsWork(ctx) // a connection gone silent does not stop digests for good
	go func() { defer stopped(); s.schedule(ctx) }()
	return nil
}

// RunDigests sends the digests due now; it returns how many projects it
// handled (scheduled or sent). Tests use it with an injected clock.
func (s *Service) RunDigests(ctx context.Context) (int, error) {
	if _, err := s.db.Write().EnsureNotificationSettings(ctx, s.now()); err != nil {
		return 0, err
	}
	n := 0
	for {
		did, err := s.runDueDigest(ctx)
		if err != nil || !did {
			return n, err
		}
		n++
	}
}

func (s *Service) wakeScheduler() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// leaderPoll is how often a scheduler that does not hold the scheduler
// lease checks whether it holds it now.
const leaderPoll = 2 * time.Second

// schedule sends due digests, then sleeps until the next one is due, a
// setting changes, or a minute passes (projects created meanwhile).
func (s *Service) schedule(ctx context.Context) {
	for ctx.Err() == nil {
		if s.opts.Leads != nil && !s.opts.Leads() {
			// Another process runs the periodic jobs; look again soon, in
			// case it dies.
			t := time.NewTimer(leaderPoll)
			select {
			case <-ctx.Done():
			case <-t.C:
			}
			t.Stop()
			continue
		}
		if _, err := s.db.Write().EnsureNotificationSettings(ctx, s.now()); err != nil && ctx.Err() == nil {
			s.opts.Logger.Warn("scheduling digests", "err", err)
		}
		for ctx.Err() == nil {
			did, err := s.runDueDigest(ctx)
			if err != nil {
				if ctx.Err() == nil {
					s.opts.Logger.Error("sending a scheduled digest", "err", err)
				}
				break
			}
			if !did {
				break
			}
		}
		wait := time.Minute
		if next, ok, err := s.db.Read().NextDigestDue(ctx); err == nil && ok {
			if d := next.Sub(s.now()); d < wait {
				wait = max(d, 10*time.Millisecond)
			}
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
		case <-s.wake:
		case <-t.C:
		}
		t.Stop()
	}
}

// runDueDigest handles one due project in one transaction: schedules it if
// it was not scheduled yet, otherwise sends its digest when the period
// brought something, and moves the period on.
func (s *Service) runDueDigest(ctx context.Context) (bool, error) {
	now := s.now()
	did, queued := false, false
	err := s.db.Tx(ctx, func(c *store.Conn) error {
		due, err := c.DueDigests(ctx, now, 1)
		if err != nil || len(due) == 0 {
			return err
		}
		did = true
		st := due[0]
		d := toDigest(st)
		if !st.NextDigestAt.IsZero() && st.DigestEnabled {
			p, err := c.ProjectByID(ctx, st.ProjectID)
			if err != nil {
				return err
			}
			end := st.NextDigestAt
			dg, ok, err := s.build(ctx, c, p, st.Timezone, st.PeriodStart, end, now)
			if err != nil {
				return err
			}
			if ok { // an empty period is not sent; the next one covers it
				if err := s.send(ctx, c, p, dg, now); err != nil {
					return err
				}
				queued = true
				st.PeriodStart = end
			}
		}
		next, err := d.Next(now)
		if err != nil {
			// A zone that no longer loads: try again in an hour rather
			// than spin.
			s.opts.Logger.Warn("digest schedule", "project_id", st.ProjectID, "err", err)
			next = now.Add(time.Hour)
		}
		st.NextDigestAt, st.UpdatedAt = next, now
		return c.PutNotificationSettings(ctx, st)
	})
	if queued {
		s.notify.AfterCommit()
	}
	if errors.Is(err, context.Canceled) {
		return false, nil
	}
	return did, err
}
