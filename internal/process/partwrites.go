package process

import (
	"context"

	"github.com/errata-dev/errata/internal/store"
)

// partWrites are the writes of a part's groups that wait until all its
// groups are applied, to be made together: on PostgreSQL a statement a
// group was a round trip each, about a third of processing's time there
// (docs/decisions.md, "A part's groups written together"). Nothing in
// the transaction reads them back meanwhile: a group read again is taken
// from txGroups, and a group's samples are written before its samples
// are read (flushSamples).
type partWrites struct {
	// updated lists the stored groups the part changed (each once, in
	// dirty), to be written as the last of their aggregates left them.
	updated []string
	dirty   map[string]bool
	// samples are the sample events to store, in order; prune lists the
	// groups whose old samples go once they are stored.
	samples []store.GroupEvent
	prune   []string
	// counts are the groups' minute counts.
	counts []store.GroupCount
}

// sample adds a sample event to store, and its group to prune after.
func (w *partWrites) sample(e store.GroupEvent, prune bool) {
	w.samples = append(w.samples, e)
	if prune {
		w.prune = append(w.prune, e.GroupID)
	}
}

// flushSamples stores the samples waiting when one is of groupID, whose
// samples are about to be read.
func (w *partWrites) flushSamples(ctx context.Context, c *store.Conn, groupID string) error {
	for _, e := range w.samples {
		if e.GroupID == groupID {
			err := c.InsertGroupEvents(ctx, w.samples)
			w.samples = w.samples[:0]
			return err
		}
	}
	return nil
}

// write makes the writes: the groups (seen holds them as last put), then
// the samples, then the prunes, keeping keep samples a group besides its
// first.
func (w *partWrites) write(ctx context.Context, c *store.Conn, seen *txGroups, keep int) error {
	if err := c.UpdateGroups(ctx, seen.groups(w.updated)); err != nil {
		return err
	}
	if err := c.InsertGroupEvents(ctx, w.samples); err != nil {
		return err
	}
	for _, id := range w.prune {
		if err := c.PruneGroupEvents(ctx, id, keep); err != nil {
			return err
		}
	}
	return nil
}
