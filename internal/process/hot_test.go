package process

import (
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/tickets"
)

// TestSpikedTicketIsNotCheckedAgain: once a group's ticket is known to be a
// spike its rate is not checked again (two queries a group and part), while
// a new ticket of the group (after a regression) is.
func TestSpikedTicketIsNotCheckedAgain(t *testing.T) {
	var h hotGroups
	now := time.Unix(1_700_000_000, 0)
	rule := tickets.DefaultSpikeRule
	if !h.checkSpike("grp_1", "tkt_1", 100, now, now, nil, rule) {
		t.Fatal("a group's first events were not checked")
	}
	h.spikedTicket("grp_1", "tkt_1", now)
	if h.checkSpike("grp_1", "tkt_1", 100, now.Add(time.Minute), now, nil, rule) {
		t.Error("a ticket known to be a spike was checked again")
	}
	if !h.checkSpike("grp_1", "tkt_2", 100, now.Add(2*time.Minute), now, nil, rule) {
		t.Error("the group's new ticket was not checked")
	}
}

// TestQuietSpikesDue: a group whose events a spike check skipped is due
// for a quiet check once it has had none for staleQuiet, once; a group put
// back after a failed check is due again; a check run by an event clears
// it.
func TestQuietSpikesDue(t *testing.T) {
	var h hotGroups
	now := time.Unix(1_700_000_000, 0)
	rule := tickets.DefaultSpikeRule
	for _, id := range []string{"grp_1", "grp_2", "grp_3"} {
		h.checkSpike(id, "tkt_"+id, 1, now, now, nil, rule)                                                // checked
		h.checkSpike(id, "tkt_"+id, 1, now.Add(time.Second), now.Add(time.Second), []string{"prod"}, rule) // skipped
	}
	h.checkSpike("grp_3", "tkt_grp_3", 1, now.Add(20*time.Second), now.Add(20*time.Second), nil, rule) // checked by an event
	if due := h.spikesDue(now.Add(2*time.Second), 10); len(due) != 0 {
		t.Fatalf("due while events may still come: %v", due)
	}
	due := h.spikesDue(now.Add(time.Second+staleQuiet), 10)
	if len(due) != 2 || due["grp_1"].ticketID != "tkt_grp_1" || len(due["grp_2"].envs) != 1 {
		t.Fatalf("due = %+v, want grp_1 and grp_2 with their tickets and environments", due)
	}
	if again := h.spikesDue(now.Add(time.Minute), 10); len(again) != 0 {
		t.Fatalf("due twice: %v", again)
	}
	h.putBack("grp_1", due["grp_1"])
	if again := h.spikesDue(now.Add(time.Minute), 10); len(again) != 1 {
		t.Fatalf("a group put back after a failed check is due %d times, want once", len(again))
	}
}
