package web

import (
	"slices"
	"testing"
	"time"
)

// TestZoneNames checks the generated picker list: sorted after UTC, no
// duplicates, the common zones there, and every name loadable, so the
// picker never offers a zone the settings refuse.
func TestZoneNames(t *testing.T) {
	t.Parallel()
	if len(zoneNames) < 300 || zoneNames[0] != "UTC" {
		t.Fatalf("zoneNames has %d names starting with %q; run go generate", len(zoneNames), zoneNames[0])
	}
	if !slices.IsSorted(zoneNames[1:]) || len(slices.Compact(slices.Clone(zoneNames))) != len(zoneNames) {
		t.Errorf("zoneNames is not sorted or has duplicates")
	}
	for _, want := range []string{"Europe/Berlin", "America/New_York", "Asia/Kolkata", "Australia/Lord_Howe", "Pacific/Apia"} {
		if !slices.Contains(zoneNames, want) {
			t.Errorf("zoneNames lacks %s", want)
		}
	}
	for _, z := range zoneNames {
		if _, err := time.LoadLocation(z); err != nil {
			t.Errorf("zone %q does not load: %v", z, err)
		}
	}
}

func TestFieldErrors(t *testing.T) {
	t.Parallel()
	got := fieldErrors(errString("digest.timezone: unknown time zone \"X\"\ndigest.hour: must be between 0 and 23, not 30\nsomething else"))
	if got["timezone"] != `digest.timezone: unknown time zone "X"` || got["hour"] != "digest.hour: must be between 0 and 23, not 30" || got[""] != "something else" {
		t.Errorf("fieldErrors = %v", got)
	}
	if fieldErrors(nil) != nil {
		t.Errorf("fieldErrors(nil) is not nil")
	}
}

type errString string

func (e errString) Error() string { return string(e) }
