package process

import (
	"context"
	"errors"
	"time"

	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/tickets"
)

// checkQuietSpikes runs the spike check (CONTRACT 6) of the groups whose
// events the check skipped while they arrived (it runs at most every
// spikeEvery a group: hotGroups.checkSpike): a burst that crossed the
// threshold between two checks and then stopped would otherwise leave its
// ticket unraised until the group's next event. Each group is checked in
// its own transaction, with its notification deliveries (OnTickets). The
// first worker runs it when the queue is idle (sweep), and Drain at the
// end. It returns how many tickets it raised.
func (p *Processor) checkQuietSpikes(ctx context.Context) (int, error) {
	now := p.opts.Now().UTC().Truncate(time.Millisecond)
	raised := 0
	for id, u := range p.hot.spikesDue(now, sweepBatch) {
		var ev *tickets.Event
		err := p.db.Tx(ctx, func(c *store.Conn) error {
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
				if spiked {
					p.hot.spikedTicket(id, u.ticketID, now)
				}
				return err
			}
			if p.opts.OnTickets == nil {
				return nil
			}
			return p.opts.OnTickets(ctx, c, []tickets.Event{*ev})
		})
		if err != nil {
			return raised, err
		}
		if ev != nil {
			raised++
			p.hot.spikedTicket(id, u.ticketID, now) // committed: a spike stays one
		}
	}
	if raised > 0 && p.opts.AfterTickets != nil {
		p.opts.AfterTickets()
	}
	return raised, nil
}
