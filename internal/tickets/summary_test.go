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
	got := Summary(tk, g, now)
	if !strings.Contains(got, "6 events since 2025-12-31 22:00 UTC") {
		t.Errorf("summary = %q, want the group's count since the group's first event", got)
	}
}
