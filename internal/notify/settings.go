package notify

import (
	"context"
	"errors"
	"time"

	"github.com/errata-dev/errata/internal/audit"
	"github.com/errata-dev/errata/internal/notify/schedule"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/store"
)

// Settings are a project's notification settings as the API shows them.
type Settings struct {
	Digest schedule.Digest
	// NextDigestAt is the next scheduled digest (zero: none scheduled).
	NextDigestAt time.Time
	// PeriodStart is where the next digest's period starts.
	PeriodStart time.Time
}

func toDigest(st store.NotificationSettings) schedule.Digest {
	return schedule.Digest{Enabled: st.DigestEnabled, Frequency: st.Frequency, Hour: st.Hour, Weekday: st.Weekday, Timezone: st.Timezone}
}

func (s *Service) settingsOf(st store.NotificationSettings) Settings {
	out := Settings{Digest: toDigest(st), PeriodStart: st.PeriodStart, NextDigestAt: st.NextDigestAt}
	if out.NextDigestAt.IsZero() && st.DigestEnabled {
		out.NextDigestAt, _ = out.Digest.Next(s.now())
	}
	return out
}

// NotificationSettings returns a project's settings (the defaults, daily at
// 09:00 UTC, until changed).
func (s *Service) NotificationSettings(ctx context.Context, projectID string) (Settings, error) {
	st, err := s.db.Read().NotificationSettingsOf(ctx, projectID)
	if err != nil {
		return Settings{}, err
	}
	return s.settingsOf(st), nil
}

// PutNotificationSettings validates and stores a project's digest schedule
// and schedules its next digest.
func (s *Service) PutNotificationSettings(ctx context.Context, projectID string, d schedule.Digest) (Settings, error) {
	if err := d.Validate(); err != nil {
		return Settings{}, problem.New("validation-failed", err.Error())
	}
	now := s.now()
	var out store.NotificationSettings
	err := s.db.Tx(ctx, func(c *store.Conn) error {
		st, err := c.NotificationSettingsOf(ctx, projectID)
		if err != nil {
			return err
		}
		st.DigestEnabled, st.Frequency, st.Hour, st.Weekday, st.Timezone = d.Enabled, d.Frequency, d.Hour, d.Weekday, d.Timezone
		if st.NextDigestAt, err = d.Next(now); err != nil {
			return err
		}
		st.UpdatedAt = now
		out = st
		if err := c.PutNotificationSettings(ctx, st); err != nil {
			return err
		}
		p, err := c.ProjectByID(ctx, projectID)
		if err != nil {
			return err
		}
		return audit.Record(ctx, c, audit.Entry{OrgID: p.OrgID, Action: "notification_settings.updated", Target: projectID,
			Data: map[string]any{"digest": map[string]any{"enabled": d.Enabled, "frequency": d.Frequency, "hour": d.Hour, "weekday": d.Weekday, "timezone": d.Timezone}}, At: now})
	})
	if err != nil {
		return Settings{}, err
	}
	s.wakeScheduler()
	return s.settingsOf(out), nil
}

// DigestNowLimit bounds "send the digest now" (CONTRACT 8): once per
// project per 10 minutes, counted in the database. Scheduled digests are
// not counted.
var DigestNowLimit = store.Window{Span: 10 * time.Minute, Max: 1}

// QuotaDigestNow names the quota of DigestNowLimit in the store, whose
// subject is the project.
const QuotaDigestNow = "digests-now"

// SendDigest sends the digest of the period since the last one now, even
// when the period brought nothing, and starts the next period at its end.
// Past DigestNowLimit it is 429 and nothing is sent.
func (s *Service) SendDigest(ctx context.Context, projectID string) (Digest, error) {
	now := s.now()
	var d Digest
	err := s.db.Tx(ctx, func(c *store.Conn) error {
		p, err := c.ProjectByID(ctx, projectID)
		if err != nil {
			return err
		}
		ok, wait, err := c.TakeQuota(ctx, QuotaDigestNow, projectID, now, DigestNowLimit)
		if err != nil {
			return err
		}
		if !ok {
			return problem.Newf("rate-limited", "this project's digest was sent on demand less than %d minutes ago; retry in %d seconds",
				int(DigestNowLimit.Span.Minutes()), seconds(wait)).RetryAfter(wait)
		}
		st, err := c.LockNotificationSettings(ctx, projectID, now)
		if err != nil {
			return err
		}
		if d, _, err = s.buildDigest(ctx, c, p, st.Timezone, st.PeriodStart, now, now); err != nil {
			return err
		}
		if err := s.sendDigest(ctx, c, p, d, now); err != nil {
			return err
		}
		st.PeriodStart, st.UpdatedAt = now, now
		return c.PutNotificationSettings(ctx, st)
	})
	if err != nil {
		return Digest{}, err
	}
	s.AfterCommit()
	return d, nil
}

// Scheduler is the digest scheduler as a service of its own (the scheduler
// role runs it; the delivery engine is the worker role's).
type Scheduler struct{ s *Service }

// Scheduler returns the service's digest scheduler.
func (s *Service) Scheduler() Scheduler { return Scheduler{s} }

// Start runs the digest scheduler until Stop.
func (sc Scheduler) Start() { sc.s.StartScheduler() }

// Stop stops the digest scheduler.
func (sc Scheduler) Stop() { sc.s.StopScheduler() }

// StartScheduler runs the digest scheduler until StopScheduler.
func (s *Service) StartScheduler() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); s.schedule(ctx) }()
	s.stopSched = func() { cancel(); <-done }
}

// StopScheduler stops the digest scheduler.
func (s *Service) StopScheduler() {
	if s.stopSched != nil {
		s.stopSched()
		s.stopSched = nil
	}
}

func (s *Service) wakeScheduler() {
	select {
	case s.schedWake <- struct{}{}:
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
		case <-s.schedWake:
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
			dg, ok, err := s.buildDigest(ctx, c, p, st.Timezone, st.PeriodStart, end, now)
			if err != nil {
				return err
			}
			if ok { // an empty period is not sent; the next one covers it
				if err := s.sendDigest(ctx, c, p, dg, now); err != nil {
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
		s.AfterCommit()
	}
	if errors.Is(err, context.Canceled) {
		return false, nil
	}
	return did, err
}
