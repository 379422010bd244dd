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
	// BaseMinute is the count of the minute of Since that came before it
	// (events in the window count from Since on).
	BaseMinute int64 `json:"base_minute,omitempty"`
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
	r.Since, r.BaseCount = now, g.EventCount
	if r.Window > 0 {
		minute := now.Truncate(time.Minute)
		n, err := c.GroupCountBetween(ctx, g.ID, minute, minute.Add(time.Minute))
		if err != nil {
			return err
		}
		r.BaseMinute = n
	}
	return c.ClearIgnoreUsers(ctx, g.ID)
}

// IgnoreBatch is what a batch brought an ignored group: its receipt time,
// its events by receipt minute (not yet in the store's counts) and the
// distinct user ids of its events.
type IgnoreBatch struct {
	At      time.Time
	Minutes map[int64]int
	Users   []string
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
		return windowMet(ctx, c, g.ID, r, b)
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

// windowMet counts the events of the rule's window up to the batch (the
// stored minute counts since the rule began, less the events of its first
// minute that came before it, plus the batch's own).
func windowMet(ctx context.Context, c *store.Conn, groupID string, r *IgnoreRule, b IgnoreBatch) (bool, error) {
	end := b.At.Truncate(time.Minute).Add(time.Minute)
	from := end.Add(-r.Window)
	since := r.Since.Truncate(time.Minute)
	if from.Before(since) {
		from = since
	}
	n, err := c.GroupCountBetween(ctx, groupID, from, end)
	if err != nil {
		return false, err
	}
	if !from.After(since) {
		n -= r.BaseMinute
	}
	for m, k := range b.Minutes {
		if !time.UnixMilli(m).Before(from) {
			n += int64(k)
		}
	}
	return n >= r.Events, nil
}
