package tickets

import (
	"testing"
	"time"
)

func TestReleaseOrder(t *testing.T) {
	t0 := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	o := releaseOrder{seen: map[string]time.Time{"alpha": t0, "bravo": t0.Add(time.Hour), "1.2.0": t0.Add(2 * time.Hour), "zeta": t0.Add(3 * time.Hour),
		"1.10": t0.Add(4 * time.Hour), "1.2": t0.Add(5 * time.Hour), "2024.01.05": t0.Add(6 * time.Hour), "2024.01.04": t0.Add(7 * time.Hour)}}
	for _, tc := range []struct {
		a, base string
		newer   bool
	}{
		{"1.10.0", "1.9.0", true}, {"1.9.0", "1.10.0", false}, {"v1.10.0", "1.9.0", true}, {"1.9.0", "v1.9.0", false},
		{"1.2.0-rc.1", "1.2.0", false}, {"1.2.0", "1.2.0-rc.1", true}, {"1.2.0", "1.2.0", false},
		{"bravo", "alpha", true}, {"alpha", "bravo", false}, {"zeta", "1.2.0", true}, {"alpha", "1.2.0", false},
		{"new", "bravo", true},   // first seen by this batch
		{"new", "unseen", false}, // the base release is not seen yet: everything came before it
		{"alpha", "unseen", false}, {"", "alpha", false},
		// Not SemVer 2.0.0 (two parts, leading zeros): first-seen order,
		// though a lenient parser would read 1.2 as 1.2.0.
		{"1.10", "1.2", false}, {"1.2", "1.10", true}, {"2024.01.04", "2024.01.05", true}, {"1.2", "1.2.0", true},
		{"1.0.0+build.7", "1.0.0", false}, {"1.0.0-alpha.1", "1.0.0-alpha", true}, {"1.0.0-alpha.beta", "1.0.0-alpha.1", true},
	} {
		if got := o.newer(tc.a, tc.base); got != tc.newer {
			t.Errorf("newer(%q, %q) = %v, want %v", tc.a, tc.base, got, tc.newer)
		}
	}
}

func TestWindows(t *testing.T) {
	for in, want := range map[string]time.Duration{"30m": 30 * time.Minute, "1h": time.Hour, "24h": 24 * time.Hour, "7d": 7 * 24 * time.Hour} {
		got, err := ParseWindow(in)
		if err != nil || got != want {
			t.Errorf("ParseWindow(%q) = %v, %v; want %v", in, got, err, want)
		}
		if back := FormatWindow(got); back != in && !(in == "24h" && back == "1d") {
			t.Errorf("FormatWindow(%v) = %q, want %q", got, back, in)
		}
	}
	for _, bad := range []string{"", "h", "0h", "-1h", "1 hour", "8d", "169h", "1w", "1.5h", "200000d", "9223372036854775807m"} {
		if _, err := ParseWindow(bad); err == nil {
			t.Errorf("ParseWindow(%q) accepted", bad)
		}
	}
}

func TestIgnoreInputRule(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	later, earlier := now.Add(time.Hour), now.Add(-time.Hour)
	if r, err := (IgnoreInput{}).Rule("ignore.", now); r != nil || err != nil {
		t.Errorf("no condition = %v, %v; want forever (nil)", r, err)
	}
	r, err := IgnoreInput{Events: 5, Window: "1h"}.Rule("ignore.", now)
	if err != nil || r.Events != 5 || r.Window != time.Hour {
		t.Errorf("events in a window = %+v, %v", r, err)
	}
	if p := r.Public(); p["events"] != int64(5) || p["window"] != "1h" || len(p) != 2 {
		t.Errorf("public = %v", p)
	}
	for _, bad := range []IgnoreInput{{Events: 1, Users: 1}, {Until: &later, Events: 1}, {Window: "1h"}, {Until: &earlier}, {Events: -1}, {Users: MaxIgnoreCount + 1}} {
		if _, err := bad.Rule("ignore.", now); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	if got := ParseIgnoreRule(r.encode()); got == nil || got.Events != 5 || got.Window != time.Hour {
		t.Errorf("encode round trip = %+v", got)
	}
	if (&IgnoreRule{}).encode() != "" || ParseIgnoreRule("") != nil || ParseIgnoreRule("{bad") != nil {
		t.Error("an empty rule must encode to nothing and nothing must parse to nil")
	}
}

// TestWindowSlides: "N events within a window" counts the last window up
// to each batch, not the calendar minutes it falls in; events received
// before the rule began do not count, and a rule read back keeps its
// counts.
func TestWindowSlides(t *testing.T) {
	at := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	batch := func(s string, n int) IgnoreBatch {
		return IgnoreBatch{At: at(s), Arrivals: map[int64]int{at(s).UnixMilli(): n}}
	}
	for _, tc := range []struct {
		name    string
		events  int64
		window  time.Duration
		batches []IgnoreBatch
		met     []bool
	}{
		{"across a minute's start", 2, time.Minute,
			[]IgnoreBatch{batch("2026-11-29T11:57:55Z", 1), batch("2026-11-29T11:58:05Z", 1)}, []bool{false, true}},
		{"61 seconds apart", 2, time.Minute,
			[]IgnoreBatch{batch("2026-11-29T12:00:30Z", 1), batch("2026-11-29T12:01:31.5Z", 1)}, []bool{false, false}},
		{"old events leave the window", 3, time.Minute,
			[]IgnoreBatch{batch("2026-11-29T12:00:00Z", 2), batch("2026-11-29T12:01:10Z", 1), batch("2026-11-29T12:01:20Z", 1), batch("2026-11-29T12:01:30Z", 1)},
			[]bool{false, false, false, true}},
		{"before the rule", 2, time.Hour,
			[]IgnoreBatch{batch("2026-11-29T11:59:59Z", 5), batch("2026-11-29T12:30:00Z", 1), batch("2026-11-29T12:59:00Z", 1)}, []bool{false, false, true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &IgnoreRule{Events: tc.events, Window: tc.window, Since: at("2026-11-29T11:57:00Z")}
			if tc.name == "before the rule" {
				r.Since = at("2026-11-29T12:00:00Z")
			}
			for i, b := range tc.batches {
				if got := windowMet(r, b); got != tc.met[i] {
					t.Errorf("batch %d at %s: met = %v, want %v (recent %v)", i, b.At.Format(time.RFC3339), got, tc.met[i], r.Recent)
				}
				r = ParseIgnoreRule(r.encode()) // as stored between batches
			}
		})
	}
	if got := windowSlot(7 * 24 * time.Hour); got != int64(7*24*time.Hour/time.Millisecond)/windowSlots {
		t.Errorf("a week's slot = %d ms", got)
	}
}
