package notice

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/view"
)

// TestTicketOf reads a ticket object as the webhook body carries it, both
// as built and after a JSON round trip.
func TestTicketOf(t *testing.T) {
	t.Parallel()
	v := view.Ticket{ID: "tkt_01", Severity: "high", Title: "boom", Summary: "boom in api", URL: "https://errata.example.com" + "/tickets/tkt_01",
		Facts: map[string]any{"service": "api", "environment": "prod", "release": "1.0", "level": "error", "reason": "spike",
			"event_count": int64(1234), "first_seen": "2026-11-22T07:00:00.000Z", "last_seen": "2026-11-22T07:59:00.000Z",
			"group_id": "grp_1", "fingerprint": "abc", "trace_id": "t1", "exception_type": "ValueError", "sample_message": "boom"}}
	want := &Ticket{ID: "tkt_01", Severity: "high", Title: "boom", Summary: "boom in api", Reason: "spike", Service: "api",
		Environment: "prod", Release: "1.0", EventCount: 1234, FirstSeen: time.Date(2026, 11, 22, 7, 0, 0, 0, time.UTC),
		LastSeen: time.Date(2026, 11, 22, 7, 59, 0, 0, time.UTC), URL: "https://errata.example.com" + "/tickets/tkt_01",
		Facts: []Fact{{Name: "Exception", Value: "ValueError"}, {Name: "Level", Value: "error"}, {Name: "Trace ID", Value: "t1"}, {Name: "Sample message", Value: "boom"}}}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var decoded view.Ticket
	if err := json.Unmarshal(b, &decoded); err != nil {
		t.Fatal(err)
	}
	for _, in := range []view.Ticket{v, decoded} {
		got := TicketOf(in, "")
		gb, _ := json.Marshal(got)
		wb, _ := json.Marshal(want)
		if string(gb) != string(wb) {
			t.Errorf("TicketOf:\ngot  %s\nwant %s", gb, wb)
		}
	}
	if got := TicketOf(v, "https://other.example/t"); got.URL != "https://other.example/t" {
		t.Errorf("ticket_url not taken: %q", got.URL)
	}
	// An assigned group's ticket names its assignee first among the facts.
	v.Assignee = &view.Assignee{MemberID: "mem_1", Name: "Ada", Email: "ada@example.com"}
	if got := TicketOf(v, "").Facts; len(got) == 0 || got[0] != (Fact{Name: "Assignee", Value: "Ada"}) {
		t.Errorf("facts of an assigned ticket = %v, want the assignee first", got)
	}
}

func TestDetails(t *testing.T) {
	t.Parallel()
	tk := &Ticket{Service: "api", Environment: " ", Release: "1.0", EventCount: 1234, FirstSeen: time.Date(2026, 11, 22, 7, 0, 0, 0, time.UTC),
		Facts: []Fact{{Name: "Exception", Value: "ValueError"}, {Name: "Culprit", Value: ""}}}
	got, _ := json.Marshal(tk.Details())
	want := `[{"name":"Service","value":"api"},{"name":"Release","value":"1.0"},{"name":"Events","value":"1,234"},` +
		`{"name":"First seen","value":"2026-11-22 07:00 UTC"},{"name":"Exception","value":"ValueError"}]`
	if string(got) != want {
		t.Errorf("Details:\ngot  %s\nwant %s", got, want)
	}
}

func TestNumberAndPlural(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -1234: "-1,234"} {
		if got := Number(n); got != want {
			t.Errorf("Number(%d) = %q, want %q", n, got, want)
		}
	}
	if got := Plural(1, "ticket", "tickets") + "; " + Plural(2000, "ticket", "tickets"); got != "1 ticket; 2,000 tickets" {
		t.Errorf("Plural = %q", got)
	}
}
