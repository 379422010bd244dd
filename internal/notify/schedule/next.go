package schedule

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/robfig/cron/v3"
)

// Next returns the first run strictly after after, in UTC. It does not look
// at Enabled: whether to send is the caller's decision.
//
// The schedule is parsed by robfig/cron as "CRON_TZ=<zone> 0 <hour> * * <dow>",
// but the runs are not taken from its SpecSchedule.Next: across
// daylight-saving changes that skips a run whose local time falls in the gap
// and fires twice for one falling in the repeated hour. Instead the parsed
// fields are matched against each local calendar day and every matching
// wall-clock time is resolved to one instant (see resolve).
func (d Digest) Next(after time.Time) (time.Time, error) {
	s, err := d.cron()
	if err != nil {
		return time.Time{}, err
	}
	t := next(s, after)
	if t.IsZero() {
		return time.Time{}, fmt.Errorf("schedule: no run found after %s", after.UTC().Format(time.RFC3339))
	}
	return t, nil
}

// cron parses d into a cron schedule in d's zone.
func (d Digest) cron() (*cron.SpecSchedule, error) {
	if err := d.Validate(); err != nil {
		return nil, fmt.Errorf("schedule: %w", err)
	}
	hour, dow := strconv.Itoa(d.Hour), "*"
	switch d.Frequency {
	case Hourly:
		hour = "*"
	case Weekly:
		dow = strconv.Itoa(int(weekdays[d.Weekday]))
	}
	s, err := cron.ParseStandard(fmt.Sprintf("CRON_TZ=%s 0 %s * * %s", d.Timezone, hour, dow))
	if err != nil {
		return nil, fmt.Errorf("schedule: parse: %w", err)
	}
	spec, ok := s.(*cron.SpecSchedule)
	if !ok {
		return nil, errors.New("schedule: parse: not a cron spec")
	}
	return spec, nil
}

// next scans local calendar days from the day before after's local date
// (a run resolved forward out of a gap may land on the following day) and
// returns the first resolved run after after, or the zero time. Resolution
// never moves a later wall time before an earlier one, so the first match
// in wall-clock order is the earliest instant, and a skipped time that
// resolves onto the next run's instant is not counted twice.
func next(s *cron.SpecSchedule, after time.Time) time.Time {
	loc := s.Location
	y, m, d := after.In(loc).Date()
	for i := -1; i <= 8; i++ {
		day := time.Date(y, m, d+i, 0, 0, 0, 0, time.UTC) // civil date arithmetic only
		if !has(s.Month, int(day.Month())) || !has(s.Dom, day.Day()) || !has(s.Dow, int(day.Weekday())) {
			continue
		}
		for h := range 24 {
			if !has(s.Hour, h) {
				continue
			}
			for mi := range 60 {
				if !has(s.Minute, mi) {
					continue
				}
				if t := resolve(day, h, mi, loc); t.After(after) {
					return t.UTC()
				}
			}
		}
	}
	return time.Time{}
}

func has(bits uint64, n int) bool { return bits&(1<<uint(n)) != 0 }

// resolve returns the instant the local wall time day h:mi stands for in
// loc: itself when it occurs once, its first occurrence when the clock went
// back over it, and the end of the gap (the first instant after it) when
// the clock jumped over it. time.Date alone guarantees none of this: for a
// repeated time it picks either occurrence, and for a skipped one it
// shifts by the gap's length.
func resolve(day time.Time, h, mi int, loc *time.Location) time.Time {
	want := time.Date(day.Year(), day.Month(), day.Day(), h, mi, 0, 0, time.UTC)
	t := time.Date(day.Year(), day.Month(), day.Day(), h, mi, 0, 0, loc)
	got := wall(t)
	switch {
	case got.Equal(want):
		return first(t, want)
	case got.After(want): // t was pushed past the transition
		if start, _ := t.ZoneBounds(); !start.IsZero() {
			return start
		}
	default: // t was pulled back before the transition
		if _, end := t.ZoneBounds(); !end.IsZero() {
			return end
		}
	}
	return t
}

// first returns the earliest instant showing want, which t shows: when
// the offset before t's zone period was larger, the same wall time may have
// occurred before the clock went back.
func first(t, want time.Time) time.Time {
	start, _ := t.ZoneBounds()
	if start.IsZero() {
		return t
	}
	_, off := t.Zone()
	_, prev := start.Add(-time.Nanosecond).Zone()
	if prev <= off {
		return t
	}
	if e := t.Add(-time.Duration(prev-off) * time.Second); e.Before(start) && wall(e).Equal(want) {
		return e
	}
	return t
}

// wall returns t's local date and clock as a UTC time, for comparing wall
// times without zones.
func wall(t time.Time) time.Time {
	y, m, d := t.Date()
	h, mi, s := t.Clock()
	return time.Date(y, m, d, h, mi, s, t.Nanosecond(), time.UTC)
}
