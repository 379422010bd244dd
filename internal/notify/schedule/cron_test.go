package schedule_test

import (
	"testing"

	"github.com/robfig/cron/v3"
)

// TestCronAloneIsWrongAcrossDST records why Next does not return
// robfig/cron's SpecSchedule.Next as is: v3.0.1 drops a run whose local time
// is skipped and fires twice for one in a repeated hour. If this test fails
// after an upgrade, the library changed and the workaround in next.go may be
// simpler to express.
func TestCronAloneIsWrongAcrossDST(t *testing.T) {
	tests := []struct {
		spec, after, want, why string
	}{
		{"CRON_TZ=America/New_York 0 2 * * *", "2026-03-08T00:00:00Z", "2026-03-09T06:00:00Z", "skips 2026-03-08"},
		{"CRON_TZ=Australia/Lord_Howe 0 2 * * *", "2026-10-03T00:00:00Z", "2026-10-04T15:00:00Z", "skips 2026-10-04 local"},
		{"CRON_TZ=America/New_York 0 1 * * *", "2026-11-01T05:00:00Z", "2026-11-01T06:00:00Z", "fires 01:00 twice"},
		{"CRON_TZ=Europe/Berlin 0 2 * * *", "2026-10-25T00:00:00Z", "2026-10-25T01:00:00Z", "fires 02:00 twice"},
	}
	for _, tt := range tests {
		s, err := cron.ParseStandard(tt.spec)
		if err != nil {
			t.Fatalf("ParseStandard(%q): %v", tt.spec, err)
		}
		if got := s.Next(mustTime(t, tt.after)).UTC(); !got.Equal(mustTime(t, tt.want)) {
			t.Errorf("cron %q after %s = %s, want %s (it %s)", tt.spec, tt.after, got, tt.want, tt.why)
		}
	}
}
