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
