package email_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/notify/notice"
)

func digest(tickets int) notice.Notification {
	start := time.Date(2026, 5, 10, 7, 0, 0, 0, time.UTC) // 09:00 CEST
	d := &notice.Digest{
		Start: start, End: start.Add(24 * time.Hour), Timezone: "Europe/Berlin",
		TicketCount: tickets, URL: "https://errata.example/projects/prj_1",
		Info: &notice.DigestInfo{EventCount: 123456, WindowCount: 96, BusiestStart: start.Add(2 * time.Hour),
			BusiestEnd: start.Add(2*time.Hour + 15*time.Minute), BusiestCount: 5000,
			URL: "https://errata.example/projects/prj_1/summaries?from=2026-05-10T07:00:00Z&to=2026-05-11T07:00:00Z"},
		FailingChannels: []notice.FailingChannel{{Name: "ops <hook>", Type: "webhook", ConsecutiveFailures: 3}},
	}
	for i := range min(tickets, 100) {
		d.Tickets = append(d.Tickets, notice.DigestTicket{Severity: "high", Title: fmt.Sprintf("boom #%03d", i),
			URL: fmt.Sprintf("https://errata.example/tickets/tkt_%03d", i), CreatedAt: start.Add(time.Duration(i) * time.Minute)})
	}
	return notice.Notification{Project: notice.Ref{ID: "prj_1", Name: "shop"}, Digest: d}
}

func TestRenderDigest(t *testing.T) {
	t.Parallel()
	m := mustRender(t, digest(3), unsubscribe)
	if want := "[digest] shop: 3 new tickets, 1 failing channel"; m.Subject != want {
		t.Errorf("Subject = %q, want %q", m.Subject, want)
	}
	if got := m.Headers["List-Unsubscribe"]; got != "<"+unsubscribe+">" {
		t.Errorf("List-Unsubscribe = %q", got)
	}
	both := []string{
		"Digest for shop", "Sun 10 May 2026 09:00 CEST", "Mon 11 May 2026 09:00 CEST", "(Europe/Berlin)",
		"Tickets: 3", "boom #000", "boom #002", "Sun 10 May 09:02", "https://errata.example/tickets/tkt_001",
		"123,456 events in 96 windows", "Sun 10 May 2026 11:00 CEST", "Sun 10 May 2026 11:15 CEST", "5,000 events",
		"Failing channels", "(webhook): 3 failed deliveries in a row", "https://errata.example/projects/prj_1", channelPage,
	}
	contains(t, "text", m.Text, append(both, "ops <hook>", "from=2026-05-10T07:00:00Z&to=", unsubscribe)...)
	contains(t, "html", m.HTML, append(both, "ops &lt;hook&gt;", "from=2026-05-10T07:00:00Z&amp;to=", htmlEscaped(unsubscribe))...)
	lacks(t, "text", m.Text, "more")
	lacks(t, "html", m.HTML, "more")
}

func TestRenderDigestCapsTickets(t *testing.T) {
	t.Parallel()
	n := digest(100)
	d := n.Digest
	d.TicketCount = 150
	// A caller passing more than 100 still shows 100.
	for i := 100; i < 120; i++ {
		d.Tickets = append(d.Tickets, notice.DigestTicket{Severity: "medium", Title: fmt.Sprintf("boom #%03d", i)})
	}
	m := mustRender(t, n, unsubscribe)
	for part, s := range map[string]string{"text": m.Text, "html": m.HTML} {
		contains(t, part, s, "Tickets: 150", "boom #099", "and 50 more")
		lacks(t, part, s, "boom #100")
		if n := strings.Count(s, "boom #"); n != 100 {
			t.Errorf("%s part lists %d tickets, want 100", part, n)
		}
	}
	if !strings.HasPrefix(m.Subject, "[digest] shop: 150 new tickets") {
		t.Errorf("Subject = %q", m.Subject)
	}
}

func TestRenderDigestEmpty(t *testing.T) {
	t.Parallel()
	n := digest(0)
	n.Digest.Info, n.Digest.FailingChannels = nil, nil
	m := mustRender(t, n, unsubscribe)
	if want := "[digest] shop: 0 new tickets"; m.Subject != want {
		t.Errorf("Subject = %q, want %q", m.Subject, want)
	}
	for part, s := range map[string]string{"text": m.Text, "html": m.HTML} {
		contains(t, part, s, "No new tickets in this period.", "No INFO summaries in this period.")
		lacks(t, part, s, "Failing channels", "more")
	}
}

func TestRenderDigestZones(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ zone, start, created string }{
		{"Asia/Kolkata", "Sun 10 May 2026 12:30 IST", "Sun 10 May 12:30"},
		{"Australia/Lord_Howe", "Sun 10 May 2026 17:30 +1030", "Sun 10 May 17:30"},
		{"America/New_York", "Sun 10 May 2026 03:00 EDT", "Sun 10 May 03:00"},
		{"UTC", "Sun 10 May 2026 07:00 UTC", "Sun 10 May 07:00"},
		{"", "Sun 10 May 2026 07:00 UTC", "Sun 10 May 07:00"},          // unknown zones fall back to UTC
		{"Mars/Base", "Sun 10 May 2026 07:00 UTC", "Sun 10 May 07:00"}, // and say so
	} {
		n := digest(1)
		n.Digest.Timezone = tt.zone
		m := mustRender(t, n, unsubscribe)
		contains(t, tt.zone+" text", m.Text, tt.start, tt.created)
		contains(t, tt.zone+" html", m.HTML, strings.ReplaceAll(tt.start, "+", "&#43;"), tt.created)
	}
}
