package process

import (
	"context"
	"errors"
	"time"

	"github.com/errata-dev/errata/internal/store"
)

// staleBatch is the most groups one refreshSearches transaction takes.
const staleBatch = 100

// refreshSearches adds to their search messages the samples busy groups
// stored since their last refresh (CONTRACT 8: free words match the
// sample messages). A busy group refreshes its message with a batch at most
// once a searchEvery; without this, the last sample it stored before its
// events stopped would stay unsearchable until its next event. It looks at
// most once a staleEvery (the workers call it after each part and when
// idle) and refreshes the groups hotGroups.staleDue names: within
// searchEvery while a group's events keep coming, within staleQuiet and a
// staleEvery once they stop. A refresh that fails is tried again later; a
// process that stops forgets its stale groups, and their next event brings
// them up to date.
func (p *Processor) refreshSearches(ctx context.Context) {
	now := p.opts.Now()
	last := p.staleChecked.Load()
	if now.UnixNano()-last < int64(staleEvery) || !p.staleChecked.CompareAndSwap(last, now.UnixNano()) {
		return
	}
	for {
		ids := p.hot.staleDue(now, staleBatch)
		if len(ids) == 0 {
			return
		}
		if err := p.db.TxRedone(store.ApartFromIngest(ctx), func(c *store.Conn) error { return refreshSearchMessages(ctx, c, ids) }); err != nil {
			for _, id := range ids {
				p.hot.markStale(id)
			}
			p.opts.Logger.Warn("refreshing groups' search messages failed; the next look tries again", "err", err)
			return
		}
		if len(ids) < staleBatch {
			return
		}
	}
}

// staleEvery is how often refreshSearches looks for stale groups.
const staleEvery = time.Second

// refreshSearchMessages sets the search message of groups ids from their
// stored samples, as applyGroup does; a group gone since is skipped.
func refreshSearchMessages(ctx context.Context, c *store.Conn, ids []string) error {
	for _, id := range ids {
		g, err := c.GroupByID(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		msg, err := samplesSearch(ctx, c, g)
		if err != nil {
			return err
		}
		if msg != g.SearchMessage {
			if err := c.SetGroupSearchMessage(ctx, id, msg); err != nil {
				return err
			}
		}
	}
	return nil
}
