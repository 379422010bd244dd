package schedule_test

import (
	"errors"
	"testing"

	"github.com/errata-dev/errata/internal/notify/schedule"
)

func TestDefault(t *testing.T) {
	got := schedule.Default()
	want := schedule.Digest{Enabled: true, Frequency: "daily", Hour: 9, Weekday: "monday", Timezone: "UTC"}
	if got != want {
		t.Fatalf("Default() = %+v, want %+v", got, want)
	}
	if err := got.Validate(); err != nil {
		t.Fatalf("Default().Validate() = %v, want nil", err)
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	ok := schedule.Default()
	with := func(f func(*schedule.Digest)) schedule.Digest {
		d := ok
		f(&d)
		return d
	}
	tests := []struct {
		name   string
		d      schedule.Digest
		fields []string // every field reported, in order; none when valid
	}{
		{"default", ok, nil},
		{"disabled still valid", with(func(d *schedule.Digest) { d.Enabled = false }), nil},
		{"hourly", with(func(d *schedule.Digest) { d.Frequency = "hourly" }), nil},
		{"weekly sunday 23h Lord Howe", with(func(d *schedule.Digest) {
			d.Frequency, d.Weekday, d.Hour, d.Timezone = "weekly", "sunday", 23, "Australia/Lord_Howe"
		}), nil},
		{"hour 0", with(func(d *schedule.Digest) { d.Hour = 0 }), nil},
		{"daily without weekday", with(func(d *schedule.Digest) { d.Weekday = "" }), nil},
		{"Etc zone", with(func(d *schedule.Digest) { d.Timezone = "Etc/GMT+5" }), nil},
		{"unknown frequency", with(func(d *schedule.Digest) { d.Frequency = "monthly" }), []string{"digest.frequency"}},
		{"empty frequency", with(func(d *schedule.Digest) { d.Frequency = "" }), []string{"digest.frequency"}},
		{"frequency is case-sensitive", with(func(d *schedule.Digest) { d.Frequency = "Daily" }), []string{"digest.frequency"}},
		{"hour 24", with(func(d *schedule.Digest) { d.Hour = 24 }), []string{"digest.hour"}},
		{"hour -1", with(func(d *schedule.Digest) { d.Hour = -1 }), []string{"digest.hour"}},
		{"weekly without weekday", with(func(d *schedule.Digest) { d.Frequency, d.Weekday = "weekly", "" }), []string{"digest.weekday"}},
		{"weekday is case-sensitive", with(func(d *schedule.Digest) { d.Frequency, d.Weekday = "weekly", "Monday" }), []string{"digest.weekday"}},
		{"bad weekday on daily", with(func(d *schedule.Digest) { d.Weekday = "mon" }), []string{"digest.weekday"}},
		{"empty zone", with(func(d *schedule.Digest) { d.Timezone = "" }), []string{"digest.timezone"}},
		{"Local zone", with(func(d *schedule.Digest) { d.Timezone = "Local" }), []string{"digest.timezone"}},
		{"unknown zone", with(func(d *schedule.Digest) { d.Timezone = "Mars/Olympus_Mons" }), []string{"digest.timezone"}},
		{"zone is case-sensitive", with(func(d *schedule.Digest) { d.Timezone = "europe/berlin" }), []string{"digest.timezone"}},
		{"path in zone", with(func(d *schedule.Digest) { d.Timezone = "../../etc/passwd" }), []string{"digest.timezone"}},
		{"everything wrong", schedule.Digest{Frequency: "weekly", Hour: 99, Timezone: "Nowhere"},
			[]string{"digest.hour", "digest.weekday", "digest.timezone"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.d.Validate()
			var got []string
			if err != nil {
				for _, e := range err.(interface{ Unwrap() []error }).Unwrap() {
					var fe *schedule.FieldError
					if !errors.As(e, &fe) {
						t.Fatalf("error %v is %T, want *schedule.FieldError", e, e)
					}
					got = append(got, fe.Field)
				}
			}
			if !equal(got, tt.fields) {
				t.Fatalf("Validate() fields = %v (%v), want %v", got, err, tt.fields)
			}
			if _, nerr := tt.d.Next(mustTime(t, "2026-01-01T00:00:00Z")); (nerr != nil) != (tt.fields != nil) {
				t.Errorf("Next() error = %v, want an error only for invalid schedules", nerr)
			}
		})
	}
}

func TestValidateErrorsAs(t *testing.T) {
	err := schedule.Digest{Frequency: "daily", Hour: 9, Timezone: "Local"}.Validate()
	var fe *schedule.FieldError
	if !errors.As(err, &fe) || fe.Field != "digest.timezone" {
		t.Fatalf("errors.As(%v) = %+v, want a digest.timezone *FieldError", err, fe)
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
