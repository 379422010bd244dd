package process

import (
	"context"
	"time"

	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/tickets"
)

// sweepEvery is how often the first worker, when idle, looks for groups
// whose ignore-until time has come.
const sweepEvery = time.Second

// sweepBatch is the most groups one sweep unignores.
const sweepBatch = 100

// ExpireIgnores unignores the groups whose ignore-until time has come
// although no event arrived (an event would have done it while applying
// its batch): each in its own transaction with its new ticket, activity
// and notification deliveries (OnTickets). It returns how many it
// unignored.
func (p *Processor) ExpireIgnores(ctx context.Context) (int, error) {
	now := p.opts.Now().UTC().Truncate(time.Millisecond)
	ids, err := p.db.Read().DueIgnores(ctx, now, sweepBatch)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, id := range ids {
		var ev *tickets.Event
		err := p.db.Tx(ctx, func(c *store.Conn) error {
			var err error
			if ev, err = tickets.ExpireIgnore(ctx, c, id, now); err != nil || ev == nil || p.opts.OnTickets == nil {
				return err
			}
			return p.opts.OnTickets(ctx, c, []tickets.Event{*ev})
		})
		if err != nil {
			return n, err
		}
		if ev != nil {
			n++
		}
	}
	if n > 0 && p.opts.AfterTickets != nil {
		p.opts.AfterTickets()
	}
	return n, nil
}

// sweep runs ExpireIgnores and checkQuietSpikes at most once per
// sweepEvery (the first worker, between claims); a failure is logged and
// tried again at the next sweep.
// On a database several processes share it also looks for value counts
// another process deferred and did not fold (it stopped, or was killed),
// which the next idle fold then takes.
func (p *Processor) sweep(ctx context.Context, last *time.Time) {
	if now := time.Now(); now.Sub(*last) >= sweepEvery {
		*last = now
		if _, err := p.ExpireIgnores(ctx); err != nil {
			p.opts.Logger.Warn("ending ignores whose time has come failed; the next sweep tries again", "err", err)
		}
		_, _ = p.checkQuietSpikes(ctx) // each failed group is logged there, and tried again
		if p.db.ConcurrentWrites() && !p.fold.pending.Load() {
			if has, err := p.db.Read().HasPendingCounts(ctx); err == nil && has {
				p.fold.pending.Store(true)
			}
		}
	}
}
