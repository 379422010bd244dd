// Package schedule decides when a project's digest is sent. A Digest holds
// the notification settings a project admin chooses (frequency, local hour,
// weekday, IANA zone); Next turns them into the next run as a UTC instant,
// which the caller stores.
//
// Runs are local wall-clock times, each fired once: across a daylight-saving
// change a run whose local time is skipped fires at the first instant after
// the gap, and a run whose local time occurs twice fires at the first
// occurrence only (CONTRACT 6). This applies to hourly digests too, so on a
// fall-back day an hourly digest covers the repeated hour in one two-hour
// period rather than sending twice for "01:00".
package schedule

import (
	"errors"
	"fmt"
	"time"

	_ "time/tzdata" // zone data inside the binary: hosts without /usr/share/zoneinfo still validate zones
)

// Frequencies a digest can have.
const (
	Hourly = "hourly"
	Daily  = "daily"
	Weekly = "weekly"
)

// Digest is a project's digest schedule, as stored and as shown by
// GET/PUT /v1/projects/{project_id}/notification-settings.
type Digest struct {
	Enabled bool `json:"enabled"`
	// Frequency is hourly, daily or weekly.
	Frequency string `json:"frequency"`
	// Hour is the local hour (0-23) of daily and weekly runs; hourly runs
	// ignore it.
	Hour int `json:"hour"`
	// Weekday is monday … sunday, the day of weekly runs; other
	// frequencies ignore it.
	Weekday string `json:"weekday"`
	// Timezone is the IANA zone name the hour and weekday are read in.
	Timezone string `json:"timezone"`
}

// Default returns the schedule of a new project: daily at 09:00 UTC.
func Default() Digest {
	return Digest{Enabled: true, Frequency: Daily, Hour: 9, Weekday: "monday", Timezone: "UTC"}
}

// FieldError is one invalid setting, named by its JSON path (for example
// digest.timezone) so that the HTTP layer can report it as a 422.
type FieldError struct {
	Field   string
	Message string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Message }

var weekdays = map[string]time.Weekday{
	"sunday": time.Sunday, "monday": time.Monday, "tuesday": time.Tuesday, "wednesday": time.Wednesday,
	"thursday": time.Thursday, "friday": time.Friday, "saturday": time.Saturday,
}

// Validate reports every invalid field as a *FieldError, joined with
// errors.Join (errors.As finds the first; Unwrap() []error gives them all).
//
// Values are matched exactly, lowercase, as the interface enumerates them:
// "Monday" or "Daily" is rejected rather than rewritten, so what is stored
// is what is shown. Weekday is required for weekly digests; for the others
// it may be empty, but a non-empty value must still be a weekday. The zone
// must be an IANA name; "" and "Local" are refused because they would mean
// the server's zone. Enabled does not relax any check.
func (d Digest) Validate() error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, &FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
	}
	switch d.Frequency {
	case Hourly, Daily, Weekly:
	default:
		bad("digest.frequency", "must be hourly, daily or weekly, not %q", d.Frequency)
	}
	if d.Hour < 0 || d.Hour > 23 {
		bad("digest.hour", "must be between 0 and 23, not %d", d.Hour)
	}
	if _, ok := weekdays[d.Weekday]; !ok {
		switch {
		case d.Weekday == "" && d.Frequency == Weekly:
			bad("digest.weekday", "is required for a weekly digest")
		case d.Weekday != "":
			bad("digest.weekday", "must be monday, tuesday, wednesday, thursday, friday, saturday or sunday, not %q", d.Weekday)
		}
	}
	if _, err := location(d.Timezone); err != nil {
		bad("digest.timezone", "%v", err)
	}
	return errors.Join(errs...)
}

// location loads an IANA zone, refusing the names that do not name one.
func location(name string) (*time.Location, error) {
	switch name {
	case "":
		return nil, errors.New("is required (an IANA zone name such as Europe/Berlin)")
	case "Local":
		return nil, errors.New(`"Local" is not an IANA zone name`)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("unknown time zone %q", name)
	}
	return loc, nil
}
