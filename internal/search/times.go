package search

import (
	"errors"
	"strconv"
	"strings"
	"time"
)

var errTime = errors.New("not a time: use RFC 3339 (2026-11-28T09:00:00Z), a date (2026-11-28) or a relative time (-30m, -24h, -7d)")

// parseTime reads a time term's value into From (and Until for Eq).
// Without an operator a relative time means "since then" (last_seen:-24h
// is the last 24 hours), a date means that day (UTC) and an instant means
// that millisecond.
func parseTime(t *Term, now time.Time) error {
	v := t.Value
	if d, ok := relative(v); ok {
		t.From = now.Add(-d)
		if t.Op == Eq {
			t.Op = Ge
		}
		return nil
	}
	if day, err := time.Parse(time.DateOnly, v); err == nil {
		t.From, t.Until = day, day.Add(24*time.Hour)
		return nil
	}
	// RFC 3339 lets "t" and "z" be lower case, and a space (in a quoted
	// value) stand for the T; Go's layout takes only "T" and "Z".
	if len(v) > 10 && v[10] == ' ' {
		v = v[:10] + "T" + v[11:]
	}
	at, err := time.Parse(time.RFC3339Nano, strings.ToUpper(v))
	if err != nil {
		return errTime
	}
	t.From = at.UTC().Truncate(time.Millisecond)
	t.Until = t.From.Add(time.Millisecond)
	return nil
}

// relative reads -<n><unit> with unit s, m, h, d or w.
func relative(v string) (time.Duration, bool) {
	if len(v) < 3 || v[0] != '-' {
		return 0, false
	}
	n, err := strconv.ParseInt(v[1:len(v)-1], 10, 64)
	if err != nil || n < 0 || n > 100*365*24*3600 {
		return 0, false
	}
	unit := map[byte]time.Duration{'s': time.Second, 'm': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour, 'w': 7 * 24 * time.Hour}[v[len(v)-1]]
	if unit == 0 || time.Duration(n) > (1<<62)/unit {
		return 0, false
	}
	return time.Duration(n) * unit, true
}
