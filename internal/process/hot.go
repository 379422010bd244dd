package process

import (
	"sync"
	"time"

	"github.com/errata-dev/errata/internal/tickets"
)

// hotGroups remembers, per group, when this process last took a sample and
// last checked for a spike, so that a group seen in every batch does not
// cost a sample row and a spike query each time. It is only an
// optimisation: after a restart it starts empty and every group is checked.
type hotGroups struct {
	mu sync.Mutex
	m  map[string]*hotGroup
}

type hotGroup struct {
	sampled      time.Time
	searched     time.Time
	sinceprune   int
	checked      time.Time
	sinceChecked int
	// spiked is the group's ticket known to be a spike already: its rate
	// needs no further check (tickets.SpikeRule.Raise).
	spiked string
}

const (
	// sampleEvery is the least time between two sample events of a group.
	sampleEvery = time.Second
	// searchEvery is the least time between two refreshes of a group's
	// search message (store.Group.SearchMessage), each a rewrite of its
	// row of the free-word index.
	searchEvery = time.Minute
	// spikeEvery is the longest a group goes unchecked while events arrive;
	// a tenth of the spike minimum arriving at once is checked at once.
	spikeEvery = 15 * time.Second
	// forgetAfter drops groups not seen for a while, bounding the memory.
	forgetAfter = 10 * time.Minute
	maxHot      = 100_000
)

func (h *hotGroups) get(id string, now time.Time) *hotGroup {
	if h.m == nil {
		h.m = map[string]*hotGroup{}
	}
	g := h.m[id]
	if g == nil {
		if len(h.m) >= maxHot {
			for k, v := range h.m {
				if now.Sub(v.sampled) > forgetAfter && now.Sub(v.checked) > forgetAfter {
					delete(h.m, k)
				}
			}
		}
		g = &hotGroup{}
		h.m[id] = g
	}
	return g
}

// sample reports whether to store the batch's latest event as a sample
// (skipped only when the group's first event is its only one, already
// stored), and whether to prune old samples afterwards.
func (h *hotGroups) sample(id string, now time.Time, onlyFirst bool, keep int) (take, prune bool) {
	if onlyFirst {
		return false, false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	g := h.get(id, now)
	if !g.sampled.IsZero() && now.Sub(g.sampled) < sampleEvery {
		return false, false
	}
	g.sampled = now
	g.sinceprune++
	if g.sinceprune >= max(1, keep/2) {
		g.sinceprune = 0
		return true, true
	}
	return true, false
}

// refreshSearch reports whether the group's search message should be set
// to its latest message now (and notes that it is).
func (h *hotGroups) refreshSearch(id string, now time.Time) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	g := h.get(id, now)
	if !g.searched.IsZero() && now.Sub(g.searched) < searchEvery {
		return false
	}
	g.searched = now
	return true
}

// checkSpike reports whether the rate of the group, whose ticket is
// ticketID, should be checked now: never again once that ticket is known
// to be a spike (spiked).
func (h *hotGroups) checkSpike(id, ticketID string, n int, now time.Time, rule tickets.SpikeRule) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	g := h.get(id, now)
	if g.spiked == ticketID {
		return false
	}
	g.sinceChecked += n
	if g.checked.IsZero() || now.Sub(g.checked) >= spikeEvery || int64(g.sinceChecked)*10 >= rule.Min {
		g.checked, g.sinceChecked = now, 0
		return true
	}
	return false
}

// spikedTicket notes that the group's ticket ticketID is a spike: checkSpike
// answers false for it from now on (a ticket's reason stays spike).
func (h *hotGroups) spikedTicket(id, ticketID string, now time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.get(id, now).spiked = ticketID
}
