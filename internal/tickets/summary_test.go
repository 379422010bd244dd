package tickets

import (
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/store"
)

// TestSummaryCountsFromTheGroupsFirstEvent: the summary's count is the
// group's, so its "since" is the group's first event, not the start of the
// ticket's episode (a regression's, or a new ticket's whose group later
// took back-dated events).
func TestSummaryCountsFromTheGroupsFirstEvent(t *testing.T) {
	now := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	g := store.Group{Title: "boom", Service: "api", EventCount: 6, FirstSeen: time.Date(2025, 12, 31, 22, 0, 0, 0, time.UTC), LastSeen: now}
	tk := store.Ticket{Reason: store.ReasonRegression, FirstSeen: now.Add(-time.Hour)}
	got := Summary(tk, g)
	if !strings.Contains(got, "6 events since 2025-12-31 22:00 UTC") {
		t.Errorf("summary = %q, want the group's count since the group's first event", got)
	}
}

// TestSummaryWritesTimes: the last event is a time, not "3 min ago", so
// that a summary delivered or read later (a webhook retried for hours, the
// GET of the same ticket) says the same, and stays true.
func TestSummaryWritesTimes(t *testing.T) {
	last := time.Date(2026, 11, 30, 9, 5, 0, 0, time.FixedZone("CET", 3600))
	g := store.Group{Title: "boom", Service: "api", EventCount: 2, FirstSeen: last.Add(-time.Hour), LastSeen: last}
	got := Summary(store.Ticket{Reason: store.ReasonNew}, g)
	if !strings.Contains(got, ", last 2026-11-30 08:05 UTC.") {
		t.Errorf("summary = %q, want the last event's time in UTC", got)
	}
}
