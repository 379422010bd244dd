package httpapi

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/errata-dev/errata/internal/notify/digest"
	"github.com/errata-dev/errata/internal/notify/schedule"
	"github.com/errata-dev/errata/internal/store"
)

// SettingsView is a project's notification settings (CONTRACT 5).
type SettingsView struct {
	Digest       DigestSchedule `json:"digest"`
	NextDigestAt *Timestamp     `json:"next_digest_at" nullable:"true" doc:"When the next scheduled digest is due (UTC); null when digests are off"`
	PeriodStart  Timestamp      `json:"period_start" doc:"Start of the next digest's period: the end of the last one, or the project's creation"`
}

// DigestSchedule is when digests go out.
type DigestSchedule struct {
	Enabled   bool   `json:"enabled"`
	Frequency string `json:"frequency" enum:"hourly,daily,weekly"`
	Hour      int    `json:"hour" minimum:"0" maximum:"23" doc:"Local hour of the day (daily and weekly)"`
	Weekday   string `json:"weekday,omitempty" enum:"monday,tuesday,wednesday,thursday,friday,saturday,sunday" doc:"Day of a weekly digest"`
	Timezone  string `json:"timezone" doc:"IANA time zone the hour and weekday are in, e.g. Europe/Berlin"`
}

func settingsView(st digest.Settings) SettingsView {
	d := st.Digest
	v := SettingsView{Digest: DigestSchedule{d.Enabled, d.Frequency, d.Hour, d.Weekday, d.Timezone}, PeriodStart: ts(st.PeriodStart)}
	if d.Enabled && !st.NextDigestAt.IsZero() {
		v.NextDigestAt = tsPtr(&st.NextDigestAt)
	}
	return v
}

func (s *Server) getSettings(ctx context.Context, in *ProjectPath) (*struct{ Body SettingsView }, error) {
	st, err := s.digests.NotificationSettings(ctx, in.ProjectID)
	if err != nil {
		return nil, err
	}
	return &struct{ Body SettingsView }{settingsView(st)}, nil
}

// DigestScheduleInput is DigestSchedule as a request: hour may be left out
// (0) for hourly digests.
type DigestScheduleInput struct {
	Enabled   bool   `json:"enabled"`
	Frequency string `json:"frequency" enum:"hourly,daily,weekly"`
	Hour      int    `json:"hour,omitempty" minimum:"0" maximum:"23" doc:"Local hour of the day (daily and weekly); default 0"`
	Weekday   string `json:"weekday,omitempty" enum:"monday,tuesday,wednesday,thursday,friday,saturday,sunday" doc:"Day of a weekly digest"`
	Timezone  string `json:"timezone" doc:"IANA time zone the hour and weekday are in, e.g. Europe/Berlin"`
}

func (s *Server) putSettings(ctx context.Context, in *struct {
	ProjectPath
	Body struct {
		Digest DigestScheduleInput `json:"digest"`
	}
}) (*struct{ Body SettingsView }, error) {
	d := in.Body.Digest
	st, err := s.digests.PutNotificationSettings(ctx, in.ProjectID, schedule.Digest{Enabled: d.Enabled, Frequency: d.Frequency, Hour: d.Hour, Weekday: d.Weekday, Timezone: d.Timezone})
	if err != nil {
		return nil, err
	}
	return &struct{ Body SettingsView }{settingsView(st)}, nil
}

// DigestOutput is one digest: the `digest` object of the digest body.
type DigestOutput struct{ Body digest.Digest }

func (s *Server) sendDigest(ctx context.Context, in *ProjectPath) (*DigestOutput, error) {
	d, err := s.digests.SendDigest(ctx, in.ProjectID)
	if err != nil {
		return nil, err
	}
	return &DigestOutput{d}, nil
}

func (s *Server) listDigests(ctx context.Context, in *struct {
	ProjectPath
	ListParams
}) (*struct{ Body *Page[digest.Digest] }, error) {
	var bad error
	page, err := list(s, "digests:"+in.ProjectID, in.ListParams, func(before string, limit int) ([]store.Digest, error) {
		return s.db.Read().ListDigests(ctx, in.ProjectID, before, limit)
	}, func(d store.Digest) string { return d.ID }, func(d store.Digest) digest.Digest {
		var v digest.Digest
		if err := json.Unmarshal(d.Body, &v); err != nil && bad == nil {
			bad = fmt.Errorf("httpapi: stored digest %s: %w", d.ID, err)
		}
		return v
	})
	if err == nil {
		err = bad
	}
	return &struct{ Body *Page[digest.Digest] }{page}, err
}
