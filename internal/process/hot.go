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
	// stale are the groups that stored a sample their search message does
	// not hold yet (busy groups refresh it once a minute at most):
	// refreshSearches brings them up to date.
	stale map[string]struct{}
	// unchecked are the groups with events the spike check skipped
	// (checkSpike within spikeEvery of the last check): checkQuietSpikes
	// checks them once the queue is idle, so that a burst that ends
	// between two checks is still found.
	unchecked map[string]uncheckedSpike
}

// uncheckedSpike is what a later spike check of a group needs: its ticket
// when the check was skipped, the receipt of the latest events it did not
// check, and their environments.
type uncheckedSpike struct {
	ticketID string
	at       time.Time
	envs     []string
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
	// staleQuiet is how long a busy group that stored a sample its search
	// message lacks goes without another sample before the message is
	// refreshed anyway (hotGroups.staleDue): a group sampling every second
	// waits for searchEvery, one whose events stopped does not.
	staleQuiet = 5 * time.Second
	// spikeEvery is the longest a group goes unchecked while events arrive;
	// a tenth of the spike minimum arriving at once is checked at once.
	spikeEvery = 15 * time.Second
	// forgetAfter drops groups not seen for a while, bounding the memory.
	forgetAfter = 10 * time.Minute
	maxHot      = 100_000
	// maxUnchecked bounds the groups waiting for a quiet spike check
	// (hotGroups.unchecked); past it a skipped check waits for the group's
	// next event, as it did before the sweep.
	maxUnchecked = 10_000
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

// markStale notes that group id stored a sample its search message does
// not hold.
func (h *hotGroups) markStale(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stale == nil {
		h.stale = map[string]struct{}{}
	}
	h.stale[id] = struct{}{}
}

// staleDue returns at most limit stale groups whose search message is to
// be refreshed now: those not refreshed for searchEvery (events keep
// coming) and those that took no sample for staleQuiet (their events
// stopped, or nearly). They are no longer stale and count as refreshed
// now (the caller marks them stale again if its refresh fails).
func (h *hotGroups) staleDue(now time.Time, limit int) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for id := range h.stale {
		if len(out) == limit {
			break
		}
		g := h.get(id, now)
		if now.Sub(g.searched) < searchEvery && now.Sub(g.sampled) < staleQuiet {
			continue
		}
		g.searched = now
		delete(h.stale, id)
		out = append(out, id)
	}
	return out
}

// checkSpike reports whether the rate of the group, whose ticket is
// ticketID, should be checked now: never again once that ticket is known
// to be a spike (spiked).
// A skipped check is remembered (unchecked) with at, the receipt of the
// batch, and envs, its events' environments.
func (h *hotGroups) checkSpike(id, ticketID string, n int, now, at time.Time, envs []string, rule tickets.SpikeRule) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	g := h.get(id, now)
	if g.spiked == ticketID {
		return false
	}
	g.sinceChecked += n
	if g.checked.IsZero() || now.Sub(g.checked) >= spikeEvery || int64(g.sinceChecked)*10 >= rule.Min {
		g.checked, g.sinceChecked = now, 0
		delete(h.unchecked, id)
		return true
	}
	if h.unchecked == nil {
		h.unchecked = map[string]uncheckedSpike{}
	}
	u, ok := h.unchecked[id]
	if !ok && len(h.unchecked) >= maxUnchecked {
		return false // best effort: the group's next event checks it
	}
	if u.ticketID != ticketID {
		u = uncheckedSpike{ticketID: ticketID}
	}
	u.at = at
	for _, e := range envs {
		u.envs = appendNew(u.envs, e)
	}
	h.unchecked[id] = u
	return false
}

// putBack returns a group whose quiet check failed to the unchecked, unless
// a newer skip or a check replaced it meanwhile.
func (h *hotGroups) putBack(id string, u uncheckedSpike) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.unchecked[id]; !ok && len(h.unchecked) < maxUnchecked {
		h.unchecked[id] = u
	}
}

// spikesDue takes at most limit groups whose events a spike check skipped
// and that received none for staleQuiet (their burst stopped; a group
// whose events keep coming is checked by them every spikeEvery), counting
// them as checked now.
func (h *hotGroups) spikesDue(now time.Time, limit int) map[string]uncheckedSpike {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := map[string]uncheckedSpike{}
	for id, u := range h.unchecked {
		if len(out) == limit {
			break
		}
		if now.Sub(u.at) < staleQuiet {
			continue
		}
		delete(h.unchecked, id)
		g := h.get(id, now)
		g.checked, g.sinceChecked = now, 0
		if g.spiked != u.ticketID {
			out[id] = u
		}
	}
	return out
}

// spikedTicket notes that the group's ticket ticketID is a spike: checkSpike
// answers false for it from now on (a ticket's reason stays spike).
func (h *hotGroups) spikedTicket(id, ticketID string, now time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.get(id, now).spiked = ticketID
}
