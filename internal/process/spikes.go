package process

import (
	"cmp"
	"context"
	"errors"
	"time"

	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/tickets"
)

// checkQuietSpikes runs the spike check (CONTRACT 6) of the groups whose
// events the check skipped while they arrived (it runs at most every
// spikeEvery a group: hotGroups.checkSpike) and that have been quiet since:
// a burst that crossed the threshold between two checks and then stopped
// would otherwise leave its ticket unraised until the group's next event.
// A group's count in the window is read first, outside any transaction;
// only one that reaches the rule's minimum is checked in a transaction of
// its own, with its notification deliveries (OnTickets). A group whose
// check fails is logged and tried again at a later sweep; the others are
// still checked. The first worker runs it when the queue is idle (sweep),
// and Drain at the end. It returns how many tickets it raised.
func (p *Processor) checkQuietSpikes(ctx context.Context) (int, error) {
	now := p.opts.Now().UTC().Truncate(time.Millisecond)
	raised := 0
	var first error
	for id, u := range p.hot.spikesDue(now, sweepBatch) {
		ev, err := p.checkQuietSpike(ctx, id, u, now)
		if err != nil {
			p.hot.putBack(id, u)
			p.opts.Logger.Warn("checking whether a quiet group spiked failed; a later sweep tries again", "group_id", id, "err", err)
			first = cmp.Or(first, err)
			continue
		}
		if ev != nil {
			raised++
			p.hot.spikedTicket(id, u.ticketID, now) // committed: a spike stays one
		}
	}
	if raised > 0 && p.opts.AfterTickets != nil {
		p.opts.AfterTickets()
	}
	return raised, first
}

// checkQuietSpike is checkQuietSpikes for one group: the event it raised,
// or nil.
func (p *Processor) checkQuietSpike(ctx context.Context, id string, u uncheckedSpike, now time.Time) (*tickets.Event, error) {
	recent, err := p.opts.Spike.Recent(ctx, p.db.Read(), id, u.at)
	if err != nil || recent < p.opts.Spike.Min {
		return nil, err
	}
	var ev *tickets.Event
	err = p.db.Tx(ctx, func(c *store.Conn) error {
		ev = nil
		g, err := c.LockGroup(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		if err != nil || g.Status != store.GroupUnresolved || g.TicketID != u.ticketID {
			return err // resolved, ignored or reopened meanwhile: nothing to raise
		}
		var spiked bool
		ev, spiked, err = p.opts.Spike.Raise(ctx, c, g, u.at, now, 0, u.envs)
		if err != nil || ev == nil {
			if err == nil && spiked {
				p.hot.spikedTicket(id, u.ticketID, now)
			}
			return err
		}
		if p.opts.OnTickets == nil {
			return nil
		}
		return p.opts.OnTickets(ctx, c, []tickets.Event{*ev})
	})
	return ev, err
}
