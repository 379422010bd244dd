package process

import (
	"context"
	"time"

	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/tickets"
)

// partWrites are the writes of a part's groups that wait until all its
// groups are applied, to be made together: on PostgreSQL a statement a
// group was a round trip each, about a third of processing's time there
// (docs/decisions.md, "A part's groups written together"). Nothing in
// the transaction reads them back meanwhile: a group read again is taken
// from txGroups, and a group's search message is made from its samples
// once they are stored.
type partWrites struct {
	// updated lists the stored groups the part changed, to be written as
	// the last of their aggregates left them.
	updated idSet
	// samples are the sample events to store, in order; prune lists the
	// groups whose old samples go once they are stored.
	samples []store.GroupEvent
	prune   []string
	// searches lists the groups whose search messages are made anew from
	// their stored samples.
	searches idSet
	// counts are the groups' minute counts.
	counts []store.GroupCount
	// spikes are the groups to check against the spike rule.
	spikes []spikeCheck
}

// spikeCheck is a group to check against the spike rule once the part's
// groups are applied (raiseSpikes): g as its aggregate left it, with
// pending events not yet in its stored counts, the latest received at at.
type spikeCheck struct {
	g       store.Group
	pending int
	at      time.Time
	envs    []string
	// opened is set when the part opened g's ticket.
	opened bool
}

// sample adds a sample event to store, and its group to prune after.
func (w *partWrites) sample(e store.GroupEvent, prune bool) {
	w.samples = append(w.samples, e)
	if prune {
		w.prune = append(w.prune, e.GroupID)
	}
}

// search notes a stored group whose search message is to be made anew
// from its stored samples once the part's are stored.
func (w *partWrites) search(groupID string) { w.searches.add(groupID) }

// idSet is a list of ids, each once, in the order first added.
type idSet struct {
	ids []string
	has map[string]bool
}

func (s *idSet) add(id string) {
	if s.has[id] {
		return
	}
	if s.has == nil {
		s.has = map[string]bool{}
	}
	s.has[id] = true
	s.ids = append(s.ids, id)
}

// write makes the writes: the samples, the prunes (keeping keep samples a
// group besides its first), the search messages from the samples then
// stored (with those of other groups, in one read), then the groups, as
// seen holds them.
func (w *partWrites) write(ctx context.Context, c *store.Conn, seen *txGroups, keep int) error {
	if err := c.InsertGroupEvents(ctx, w.samples); err != nil {
		return err
	}
	for _, id := range w.prune {
		if err := c.PruneGroupEvents(ctx, id, keep); err != nil {
			return err
		}
	}
	if len(w.searches.ids) > 0 {
		kept, err := c.GroupsSampleMessages(ctx, w.searches.ids)
		if err != nil {
			return err
		}
		for _, id := range w.searches.ids {
			g := seen.byID[id]
			g.SearchMessage = keptSearch(g, kept[id])
			seen.byID[id] = g
		}
	}
	return c.UpdateGroups(ctx, seen.groups(w.updated.ids))
}

// raiseSpikes applies the spike rule to the part's checks, in their order,
// and returns the events of the tickets it raised. The stored counts of
// the checks' windows are read at once (store.GroupCountsBetween): most
// checks end there, below the rule's minimum. The stored counts do not
// hold the part's events yet, so each check adds its pending ones, as
// before the checks were gathered.
func (p *Processor) raiseSpikes(ctx context.Context, c *store.Conn, checks []spikeCheck, now time.Time) ([]tickets.Event, error) {
	if len(checks) == 0 {
		return nil, nil
	}
	windows := make([]store.CountWindow, len(checks))
	for i, s := range checks {
		windows[i] = p.opts.Spike.RecentWindow(s.g.ID, s.at)
	}
	recent, err := c.GroupCountsBetween(ctx, windows)
	if err != nil {
		return nil, err
	}
	var out []tickets.Event
	for i, s := range checks {
		ev, spiked, err := p.opts.Spike.RaiseCounted(ctx, c, s.g, s.at, now, recent[i]+int64(s.pending), s.envs)
		if err != nil {
			return nil, err
		}
		if spiked && ev == nil {
			// A spike read from the store (not raised by this transaction,
			// which may yet roll back) stays one: stop checking it.
			p.hot.spikedTicket(s.g.ID, s.g.TicketID, now)
		}
		if ev != nil && s.opened {
			// Opened and raised by this one transaction: the "new" is told
			// first and the spike "again" (CONTRACT 6) after it, not both
			// at once, in either order.
			ev.Delay = tickets.RaisedAfterOpening
		}
		if ev != nil {
			out = append(out, *ev)
		}
	}
	return out, nil
}
