package tickets

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/store"
)

// ReasonUnignored is the reason of the ticket an ignored group opens when
// its ignore condition is met (CONTRACT 8); it is notified like a
// regression.
const ReasonUnignored = "unignored"

// Bounds of an ignore condition.
const (
	MaxIgnoreCount  = 1_000_000
	MaxIgnoreWindow = 7 * 24 * time.Hour
)

// IgnoreRule is the condition of an ignored group (at most one of Until,
// Events (with or without Window) and Users; none is forever) with the
// figures processing keeps to test it: a batch costs no scan of the
// group's events.
type IgnoreRule struct {
	Until  *time.Time    `json:"until,omitempty"`
	Events int64         `json:"events,omitempty"`
	Window time.Duration `json:"window,omitempty"`
	Users  int64         `json:"users,omitempty"`

	// Since is when the group was ignored.
	Since time.Time `json:"since"`
	// BaseCount is the group's event count when it was ignored.
	BaseCount int64 `json:"base_count,omitempty"`
	// Recent is what a window rule counts: the group's events received
	// since Since and within the last Window, as [start (Unix ms), events]
	// slots of windowSlot(Window), oldest first.
	Recent [][2]int64 `json:"recent,omitempty"`
	// SeenUsers is the distinct user ids seen since Since.
	SeenUsers int64 `json:"seen_users,omitempty"`
}

// Forever reports whether the rule has no condition.
func (r IgnoreRule) Forever() bool { return r.Until == nil && r.Events == 0 && r.Users == 0 }

// Public is the condition as the API shows it: {"until"}, {"events"},
// {"events", "window"} or {"users"}; empty for forever.
func (r IgnoreRule) Public() map[string]any {
	out := map[string]any{}
	switch {
	case r.Until != nil:
		out["until"] = r.Until.UTC().Format("2006-01-02T15:04:05.000Z") // the interface's timestamps: milliseconds, Z
	case r.Events > 0:
		out["events"] = r.Events
		if r.Window > 0 {
			out["window"] = FormatWindow(r.Window)
		}
	case r.Users > 0:
		out["users"] = r.Users
	}
	return out
}

// ParseIgnoreRule reads a group's stored rule; "" (or a rule that does not
// read) is nil.
func ParseIgnoreRule(s string) *IgnoreRule {
	if s == "" {
		return nil
	}
	var r IgnoreRule
	if json.Unmarshal([]byte(s), &r) != nil {
		return nil
	}
	return &r
}

// setRule sets g's ignore condition (nil clears it) and the time
// DueIgnores looks for.
func setRule(g *store.Group, r *IgnoreRule) {
	g.IgnoreRule, g.IgnoreUntil = r.encode(), nil
	if r != nil && r.Until != nil {
		u := *r.Until
		g.IgnoreUntil = &u
	}
}

func (r *IgnoreRule) encode() string {
	if r == nil || r.Forever() {
		return ""
	}
	b, _ := json.Marshal(r)
	return string(b)
}

// IgnoreInput is an ignore condition as a person gives it.
type IgnoreInput struct {
	Until  *time.Time
	Events int64
	Window string
	Users  int64
}

// Rule checks the input (422 naming the field under prefix, e.g.
// "ignore.") and returns its rule, nil for forever.
func (in IgnoreInput) Rule(prefix string, now time.Time) (*IgnoreRule, error) {
	n := 0
	for _, set := range []bool{in.Until != nil, in.Events != 0, in.Users != 0} {
		if set {
			n++
		}
	}
	switch {
	case n > 1:
		return nil, problem.Newf("validation-failed", "%s: give at most one of until, events (with or without window) and users", strings.TrimSuffix(prefix, "."))
	case in.Window != "" && in.Events == 0:
		return nil, problem.Newf("validation-failed", "%swindow: a window goes with events", prefix)
	case in.Events < 0 || in.Events > MaxIgnoreCount:
		return nil, problem.Newf("validation-failed", "%sevents: must be 1 to %d", prefix, MaxIgnoreCount)
	case in.Users < 0 || in.Users > MaxIgnoreCount:
		return nil, problem.Newf("validation-failed", "%susers: must be 1 to %d", prefix, MaxIgnoreCount)
	case in.Until != nil && !in.Until.After(now):
		return nil, problem.Newf("validation-failed", "%suntil: must be in the future", prefix)
	case n == 0:
		return nil, nil
	}
	r := &IgnoreRule{Events: in.Events, Users: in.Users}
	if in.Until != nil {
		u := in.Until.UTC().Truncate(time.Millisecond)
		r.Until = &u
	}
	if in.Window != "" {
		w, err := ParseWindow(in.Window)
		if err != nil {
			return nil, problem.Newf("validation-failed", "%swindow: %v", prefix, err)
		}
		r.Window = w
	}
	return r, nil
}

// ParseWindow reads a window: a whole number of minutes, hours or days
// ("30m", "1h", "7d"), from 1 minute to 7 days.
func ParseWindow(s string) (time.Duration, error) {
	if len(s) < 2 {
		return 0, fmt.Errorf("%q is not a window such as 30m, 1h or 7d", s)
	}
	n, err := strconv.Atoi(s[:len(s)-1])
	unit := map[byte]time.Duration{'m': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour}[s[len(s)-1]]
	if err != nil || unit == 0 || n <= 0 {
		return 0, fmt.Errorf("%q is not a window such as 30m, 1h or 7d", s)
	}
	if time.Duration(n) > MaxIgnoreWindow/unit { // checked before multiplying, which could wrap
		return 0, fmt.Errorf("%q is longer than 7 days", s)
	}
	w := time.Duration(n) * unit
	if w > MaxIgnoreWindow {
		return 0, fmt.Errorf("%q is longer than 7 days", s)
	}
	return w, nil
}

// FormatWindow writes a window as ParseWindow reads it.
func FormatWindow(d time.Duration) string {
	switch {
	case d%(24*time.Hour) == 0:
		return strconv.FormatInt(int64(d/(24*time.Hour)), 10) + "d"
	case d%time.Hour == 0:
		return strconv.FormatInt(int64(d/time.Hour), 10) + "h"
	}
	return strconv.FormatInt(int64(d/time.Minute), 10) + "m"
}

// start fills the figures of a rule taking effect at now on g.
func (r *IgnoreRule) start(ctx context.Context, c *store.Conn, g store.Group, now time.Time) error {
	r.Since, r.BaseCount, r.Recent = now, g.EventCount, nil
	return c.ClearIgnoreUsers(ctx, g.ID)
}

// IgnoreBatch is what a batch brought an ignored group: its receipt time,
// its events by receipt time (Unix ms) and the distinct user ids of its
// events.
type IgnoreBatch struct {
	At       time.Time
	Arrivals map[int64]int
	Users    []string
}

// Met reports whether an ignored group's condition is met once the batch's
// events are added (g.EventCount already counts them). It keeps the
// rule's figures in g.
func Met(ctx context.Context, c *store.Conn, g *store.Group, b IgnoreBatch) (bool, error) {
	r := ParseIgnoreRule(g.IgnoreRule)
	if r == nil {
		return false, nil
	}
	switch {
	case r.Until != nil:
		return !b.At.Before(*r.Until), nil
	case r.Events > 0 && r.Window == 0:
		return g.EventCount-r.BaseCount >= r.Events, nil
	case r.Events > 0:
		met := windowMet(r, b)
		setRule(g, r)
		return met, nil
	case r.Users > 0:
		added, err := c.AddIgnoreUsers(ctx, g.ID, b.Users)
		if err != nil || added == 0 {
			return false, err
		}
		r.SeenUsers += added
		setRule(g, r)
		return r.SeenUsers >= r.Users, nil
	}
	return false, nil
}

// windowSlots is how many slots a window's counts are kept in: the count
// of "N events within a window" is exact to a 120th of the window (to the
// second for windows up to two minutes), whatever the calendar.
const windowSlots = 120

// windowSlot is the width of a window's slots, in milliseconds.
func windowSlot(window time.Duration) int64 {
	return max(int64(window/windowSlots/time.Millisecond), 1000)
}

// windowMet adds the batch's events received since the rule began to the
// rule's recent counts, drops the slots that ended before the last Window
// (up to the batch's receipt), and reports whether the events left reach
// Events: a sliding window, so that two events ten seconds apart are within
// a minute even when a minute begins between them.
func windowMet(r *IgnoreRule, b IgnoreBatch) bool {
	slot := windowSlot(r.Window)
	since := r.Since.UnixMilli()
	for at, n := range b.Arrivals {
		if at >= since {
			r.addRecent(at-at%slot, int64(n))
		}
	}
	from := b.At.Add(-r.Window).UnixMilli()
	kept := r.Recent[:0]
	var n int64
	for _, s := range r.Recent {
		if s[0]+slot > from {
			kept = append(kept, s)
			n += s[1]
		}
	}
	r.Recent = kept
	return n >= r.Events
}

// addRecent adds n events to the slot starting at start, keeping the
// slots in order.
func (r *IgnoreRule) addRecent(start, n int64) {
	i := len(r.Recent)
	for i > 0 && r.Recent[i-1][0] >= start {
		if r.Recent[i-1][0] == start {
			r.Recent[i-1][1] += n
			return
		}
		i--
	}
	r.Recent = append(r.Recent, [2]int64{})
	copy(r.Recent[i+1:], r.Recent[i:])
	r.Recent[i] = [2]int64{start, n}
}
