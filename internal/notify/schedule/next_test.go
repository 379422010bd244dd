package schedule_test

import (
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/notify/schedule"
)

func TestNext(t *testing.T) {
	t.Parallel()
	daily := func(zone string, hour int) schedule.Digest {
		return schedule.Digest{Enabled: true, Frequency: "daily", Hour: hour, Weekday: "monday", Timezone: zone}
	}
	hourly := func(zone string) schedule.Digest {
		return schedule.Digest{Enabled: true, Frequency: "hourly", Hour: 9, Timezone: zone}
	}
	weekly := func(zone, day string, hour int) schedule.Digest {
		return schedule.Digest{Enabled: true, Frequency: "weekly", Hour: hour, Weekday: day, Timezone: zone}
	}
	tests := []struct {
		name  string
		d     schedule.Digest
		after string
		want  string
	}{
		// UTC and a fixed half-hour offset.
		{"utc daily later today", daily("UTC", 9), "2026-05-10T08:59:59Z", "2026-05-10T09:00:00Z"},
		{"utc daily strictly after", daily("UTC", 9), "2026-05-10T09:00:00Z", "2026-05-11T09:00:00Z"},
		{"utc daily nanosecond before", daily("UTC", 9), "2026-05-10T08:59:59.999999999Z", "2026-05-10T09:00:00Z"},
		{"utc hourly year end", hourly("UTC"), "2026-12-31T23:00:00Z", "2027-01-01T00:00:00Z"},
		{"utc weekly across year end", weekly("UTC", "monday", 9), "2026-12-28T09:00:00Z", "2027-01-04T09:00:00Z"},
		{"utc weekly same day later", weekly("UTC", "thursday", 18), "2026-01-01T10:00:00Z", "2026-01-01T18:00:00Z"},
		{"kolkata daily", daily("Asia/Kolkata", 9), "2026-06-01T00:00:00Z", "2026-06-01T03:30:00Z"},
		{"kolkata daily year end", daily("Asia/Kolkata", 9), "2026-12-31T03:30:00Z", "2027-01-01T03:30:00Z"},
		{"kolkata hourly", hourly("Asia/Kolkata"), "2026-06-01T00:00:00Z", "2026-06-01T00:30:00Z"},
		{"kolkata local date differs from utc", daily("Asia/Kolkata", 2), "2026-06-01T19:00:00Z", "2026-06-01T20:30:00Z"},
		{"new york year end", daily("America/New_York", 23), "2026-12-31T12:00:00Z", "2027-01-01T04:00:00Z"},
		{"new york weekly", weekly("America/New_York", "friday", 17), "2026-07-01T00:00:00Z", "2026-07-03T21:00:00Z"},

		// New York, spring forward 2026-03-08 02:00 EST -> 03:00 EDT (07:00Z).
		{"ny spring daily 02:00 runs after the gap", daily("America/New_York", 2), "2026-03-08T00:00:00Z", "2026-03-08T07:00:00Z"},
		{"ny spring daily 02:00 then next day", daily("America/New_York", 2), "2026-03-08T07:00:00Z", "2026-03-09T06:00:00Z"},
		{"ny spring daily 03:00 unaffected", daily("America/New_York", 3), "2026-03-08T00:00:00Z", "2026-03-08T07:00:00Z"},
		{"ny spring daily 01:00", daily("America/New_York", 1), "2026-03-08T00:00:00Z", "2026-03-08T06:00:00Z"},
		{"ny spring hourly 01:00 EST -> 03:00 EDT", hourly("America/New_York"), "2026-03-08T06:00:00Z", "2026-03-08T07:00:00Z"},
		{"ny spring hourly once at 03:00", hourly("America/New_York"), "2026-03-08T07:00:00Z", "2026-03-08T08:00:00Z"},
		{"ny spring weekly sunday 02:00", weekly("America/New_York", "sunday", 2), "2026-03-01T08:00:00Z", "2026-03-08T07:00:00Z"},
		// New York, fall back 2026-11-01 02:00 EDT -> 01:00 EST (06:00Z).
		{"ny fall daily 01:00 first occurrence", daily("America/New_York", 1), "2026-11-01T04:00:00Z", "2026-11-01T05:00:00Z"},
		{"ny fall daily 01:00 runs once", daily("America/New_York", 1), "2026-11-01T05:00:00Z", "2026-11-02T06:00:00Z"},
		{"ny fall daily 01:00 from inside the repeat", daily("America/New_York", 1), "2026-11-01T05:30:00Z", "2026-11-02T06:00:00Z"},
		{"ny fall daily 02:00", daily("America/New_York", 2), "2026-11-01T05:00:00Z", "2026-11-01T07:00:00Z"},
		{"ny fall hourly skips the repeated 01:00", hourly("America/New_York"), "2026-11-01T05:00:00Z", "2026-11-01T07:00:00Z"},
		{"ny fall weekly sunday 01:00", weekly("America/New_York", "sunday", 1), "2026-10-26T00:00:00Z", "2026-11-01T05:00:00Z"},

		// Berlin, spring forward 2026-03-29 02:00 CET -> 03:00 CEST (01:00Z).
		{"berlin spring daily 02:00", daily("Europe/Berlin", 2), "2026-03-28T12:00:00Z", "2026-03-29T01:00:00Z"},
		{"berlin spring daily 02:00 next", daily("Europe/Berlin", 2), "2026-03-29T01:00:00Z", "2026-03-30T00:00:00Z"},
		{"berlin spring hourly", hourly("Europe/Berlin"), "2026-03-29T00:00:00Z", "2026-03-29T01:00:00Z"},
		{"berlin spring hourly after gap", hourly("Europe/Berlin"), "2026-03-29T01:00:00Z", "2026-03-29T02:00:00Z"},
		// Berlin, fall back 2026-10-25 03:00 CEST -> 02:00 CET (01:00Z).
		{"berlin fall daily 02:00 first occurrence", daily("Europe/Berlin", 2), "2026-10-24T12:00:00Z", "2026-10-25T00:00:00Z"},
		{"berlin fall daily 02:00 runs once", daily("Europe/Berlin", 2), "2026-10-25T00:00:00Z", "2026-10-26T01:00:00Z"},
		{"berlin fall hourly skips repeated 02:00", hourly("Europe/Berlin"), "2026-10-25T00:00:00Z", "2026-10-25T02:00:00Z"},
		{"berlin fall weekly sunday 02:00", weekly("Europe/Berlin", "sunday", 2), "2026-10-20T00:00:00Z", "2026-10-25T00:00:00Z"},

		// Lord Howe, 30-minute shift: back 2026-04-05 02:00 +11 -> 01:30 +10:30
		// (15:00Z on the 4th), forward 2026-10-04 02:00 +10:30 -> 02:30 +11
		// (15:30Z on the 3rd).
		{"lord howe fall daily 01:00", daily("Australia/Lord_Howe", 1), "2026-04-04T00:00:00Z", "2026-04-04T14:00:00Z"},
		{"lord howe fall daily 02:00", daily("Australia/Lord_Howe", 2), "2026-04-04T00:00:00Z", "2026-04-04T15:30:00Z"},
		{"lord howe fall hourly 01:00 -> 02:00", hourly("Australia/Lord_Howe"), "2026-04-04T14:00:00Z", "2026-04-04T15:30:00Z"},
		{"lord howe spring daily 02:00 runs at 02:30", daily("Australia/Lord_Howe", 2), "2026-10-03T00:00:00Z", "2026-10-03T15:30:00Z"},
		{"lord howe spring daily next day", daily("Australia/Lord_Howe", 2), "2026-10-03T15:30:00Z", "2026-10-04T15:00:00Z"},
		{"lord howe spring hourly 01:00 -> 02:30", hourly("Australia/Lord_Howe"), "2026-10-03T14:30:00Z", "2026-10-03T15:30:00Z"},
		{"lord howe spring hourly 02:30 -> 03:00", hourly("Australia/Lord_Howe"), "2026-10-03T15:30:00Z", "2026-10-03T16:00:00Z"},
		{"lord howe weekly sunday 02:00 spring", weekly("Australia/Lord_Howe", "sunday", 2), "2026-09-28T00:00:00Z", "2026-10-03T15:30:00Z"},

		// Samoa skipped 2011-12-30 entirely (-10 -> +14 at 10:00Z): that
		// day's run comes right after the gap, the 31st's as usual.
		{"apia skipped day", daily("Pacific/Apia", 9), "2011-12-29T19:00:00Z", "2011-12-30T10:00:00Z"},
		{"apia after skipped day", daily("Pacific/Apia", 9), "2011-12-30T10:00:00Z", "2011-12-30T19:00:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			after := mustTime(t, tt.after)
			got, err := tt.d.Next(after)
			if err != nil {
				t.Fatalf("Next(%s) error: %v", tt.after, err)
			}
			if want := mustTime(t, tt.want); !got.Equal(want) || got.Location() != time.UTC {
				loc, _ := time.LoadLocation(tt.d.Timezone)
				t.Fatalf("Next(%s) = %s (%s local), want %s", tt.after, got, got.In(loc), tt.want)
			}
		})
	}
}

func TestNextAcceptsAnyLocation(t *testing.T) {
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Fatal(err)
	}
	after := time.Date(2026, 5, 10, 17, 0, 0, 0, tokyo) // 08:00Z
	got, err := schedule.Default().Next(after)
	if err != nil {
		t.Fatal(err)
	}
	if want := mustTime(t, "2026-05-10T09:00:00Z"); !got.Equal(want) || got.Location() != time.UTC {
		t.Fatalf("Next(%s) = %s, want %s in UTC", after, got, want)
	}
}

func mustTime(t testing.TB, s string) time.Time {
	t.Helper()
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("bad time %q: %v", s, err)
	}
	return v
}
