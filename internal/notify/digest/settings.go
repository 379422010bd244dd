package digest

import (
	"context"
	"math"
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
				int(DigestNowLimit.Span.Minutes()), int(math.Ceil(wait.Seconds()))).RetryAfter(wait)
		}
		st, err := c.LockNotificationSettings(ctx, projectID, now)
		if err != nil {
			return err
		}
		if d, _, err = s.build(ctx, c, p, st.Timezone, st.PeriodStart, now, now); err != nil {
			return err
		}
		if err := s.send(ctx, c, p, d, now); err != nil {
			return err
		}
		st.PeriodStart, st.UpdatedAt = now, now
		return c.PutNotificationSettings(ctx, st)
	})
	if err != nil {
		return Digest{}, err
	}
	s.notify.AfterCommit()
	return d, nil
}
