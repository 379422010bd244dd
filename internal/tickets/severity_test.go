package tickets_test

import (
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/tickets"
)

func TestSeverityOrderAndNames(t *testing.T) {
	t.Parallel()
	if !(tickets.Medium < tickets.High && tickets.High < tickets.Critical && tickets.Severity(0) < tickets.Medium) {
		t.Fatal("severities are not ordered none < medium < high < critical")
	}
	var names []string
	for _, s := range tickets.Severities() {
		names = append(names, s.String())
		back, ok := tickets.ParseSeverity(s.String())
		if !ok || back != s {
			t.Errorf("ParseSeverity(%q) = %v, %v; want %v", s, back, ok, s)
		}
	}
	if got := names; len(got) != 3 || got[0] != "critical" || got[1] != "high" || got[2] != "medium" {
		t.Errorf("Severities() = %v, want critical, high, medium", got)
	}
	for _, bad := range []string{"", "Critical", "low", "info", " high"} {
		if s, ok := tickets.ParseSeverity(bad); ok {
			t.Errorf("ParseSeverity(%q) = %v, true; want false", bad, s)
		}
	}
	if s := tickets.Severity(0).String(); s != "" {
		t.Errorf("zero severity = %q, want empty", s)
	}
}

func TestSeverityOf(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		level ingest.Level
		want  tickets.Severity
	}{{ingest.Fatal, tickets.Critical}, {ingest.Error, tickets.High}, {ingest.Warn, tickets.Medium}, {ingest.Info, tickets.Medium}} {
		if got := tickets.SeverityOf(c.level); got != c.want {
			t.Errorf("SeverityOf(%v) = %v, want %v", c.level, got, c.want)
		}
	}
}

func TestOpen(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	first := now.Add(-time.Minute)
	resolvedAt := now.Add(-time.Hour)
	for _, c := range []struct {
		name   string
		isNew  bool
		status string
		reason string // "" when no ticket opens
	}{
		{"new group", true, store.GroupUnresolved, store.ReasonNew},
		{"resolved group regresses", false, store.GroupResolved, store.ReasonRegression},
		{"unresolved group", false, store.GroupUnresolved, ""},
		{"ignored group", false, store.GroupIgnored, ""},
	} {
		g := store.Group{ID: "grp_1", ProjectID: "prj_1", Title: "boom", Level: int(ingest.Fatal), Status: c.status, TicketID: "tkt_old"}
		if c.status == store.GroupResolved {
			g.ResolvedAt = &resolvedAt
		}
		tk := tickets.Open(&g, c.isNew, first, now)
		if c.reason == "" {
			if tk != nil || g.TicketID != "tkt_old" || g.Status != c.status {
				t.Errorf("%s: ticket = %+v, group = %+v; want no ticket and the group unchanged", c.name, tk, g)
			}
			continue
		}
		if tk == nil {
			t.Fatalf("%s: no ticket, want one with reason %s", c.name, c.reason)
		}
		if tk.Reason != c.reason || tk.Severity != "critical" || tk.Status != store.TicketOpen || tk.Title != "boom" ||
			!tk.FirstSeen.Equal(first) || !tk.CreatedAt.Equal(now) || tk.GroupID != g.ID || tk.ProjectID != g.ProjectID {
			t.Errorf("%s: ticket = %+v", c.name, tk)
		}
		if g.TicketID != tk.ID || g.Status != store.GroupUnresolved || g.ResolvedAt != nil {
			t.Errorf("%s: group after = %+v, want it unresolved and pointing at %s", c.name, g, tk.ID)
		}
	}
}
