package schedule_test

import (
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/notify/schedule"
)

// TestNextYear iterates Next through 2026 in each zone and checks that runs
// strictly increase, that no local day (daily, weekly) or wall-clock hour
// (hourly) is skipped or served twice, and the exact number of runs.
func TestNextYear(t *testing.T) {
	t.Parallel()
	zones := []struct {
		name string
		// hourly runs in 2026: one per local wall-clock hour, so 8760 less
		// the spring hour that resolves onto 03:00; the repeated fall hour
		// adds none.
		hourly int
	}{
		{"UTC", 8760},
		{"Asia/Kolkata", 8760},
		{"America/New_York", 8759},
		{"Europe/Berlin", 8759},
		{"Australia/Lord_Howe", 8760}, // half-hour shifts never collapse or repeat a :00
	}
	for _, z := range zones {
		for _, d := range []struct {
			digest schedule.Digest
			runs   int
		}{
			{schedule.Digest{Frequency: "daily", Hour: 2, Timezone: z.name}, 365},
			{schedule.Digest{Frequency: "daily", Hour: 1, Timezone: z.name}, 365},
			{schedule.Digest{Frequency: "daily", Hour: 0, Timezone: z.name}, 365},
			{schedule.Digest{Frequency: "daily", Hour: 23, Timezone: z.name}, 365},
			{schedule.Digest{Frequency: "weekly", Hour: 2, Weekday: "sunday", Timezone: z.name}, 52},
			{schedule.Digest{Frequency: "weekly", Hour: 9, Weekday: "thursday", Timezone: z.name}, 53},
			{schedule.Digest{Frequency: "hourly", Timezone: z.name}, z.hourly},
		} {
			t.Run(z.name+"/"+d.digest.Frequency, func(t *testing.T) {
				t.Parallel()
				runs := year(t, d.digest)
				if len(runs) != d.runs {
					t.Fatalf("%+v: %d runs in 2026, want %d", d.digest, len(runs), d.runs)
				}
				checkRuns(t, d.digest, runs)
			})
		}
	}
}

// year returns the runs of d whose local date is in 2026, in local time.
func year(t *testing.T, d schedule.Digest) []time.Time {
	t.Helper()
	loc, err := time.LoadLocation(d.Timezone)
	if err != nil {
		t.Fatal(err)
	}
	end := time.Date(2027, 1, 1, 0, 0, 0, 0, loc)
	var runs []time.Time
	for at := time.Date(2026, 1, 1, 0, 0, 0, 0, loc).Add(-time.Nanosecond); ; {
		next, err := d.Next(at)
		if err != nil {
			t.Fatalf("Next(%s): %v", at, err)
		}
		if !next.After(at) {
			t.Fatalf("Next(%s) = %s, not strictly after", at, next)
		}
		if !next.Before(end) {
			return runs
		}
		runs = append(runs, next.In(loc))
		at = next
	}
}

// checkRuns checks that each run is where the schedule says, or right
// after a gap, and that consecutive runs are one period apart give or take
// a daylight-saving shift.
func checkRuns(t *testing.T, d schedule.Digest, runs []time.Time) {
	t.Helper()
	seen := map[string]bool{}
	for i, r := range runs {
		key := r.Format("2006-01-02")
		if d.Frequency == "hourly" {
			key = r.Format("2006-01-02T15")
		}
		if seen[key] {
			t.Errorf("two runs in local slot %s (run %d: %s)", key, i, r)
		}
		seen[key] = true
		_, offset := r.Zone()
		_, before := r.Add(-time.Nanosecond).Zone()
		atGap := offset != before // the first instant after a transition
		if !atGap && (r.Minute() != 0 || (d.Frequency != "hourly" && r.Hour() != d.Hour)) {
			t.Errorf("run %d at %s, want minute 0 and hour %d", i, r, d.Hour)
		}
		if d.Frequency == "weekly" && r.Weekday().String() != title(d.Weekday) {
			t.Errorf("run %d on %s, want %s", i, r.Weekday(), d.Weekday)
		}
		if i == 0 {
			continue
		}
		gap := r.Sub(runs[i-1])
		lo, hi := periods[d.Frequency][0], periods[d.Frequency][1]
		if gap < lo || gap > hi {
			t.Errorf("runs %d and %d are %s apart (%s, %s)", i-1, i, gap, runs[i-1], r)
		}
	}
}

// periods bounds the time between consecutive runs: one period, stretched
// or shrunk by at most a daylight-saving shift.
var periods = map[string][2]time.Duration{
	"hourly": {30 * time.Minute, 2 * time.Hour},
	"daily":  {22 * time.Hour, 26 * time.Hour},
	"weekly": {7*24*time.Hour - 2*time.Hour, 7*24*time.Hour + 2*time.Hour},
}

func title(s string) string {
	if s == "" {
		return s
	}
	return string(s[0]-'a'+'A') + s[1:]
}
