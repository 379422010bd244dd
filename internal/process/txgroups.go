package process

import (
	"context"
	"errors"
	"fmt"

	"github.com/errata-dev/errata/internal/store"
)

// txGroups are the groups a transaction has written so far. A group can
// take the events of more than one aggregate (its own, a group merged into
// it, a vanished older-version group's), and each must start from what the
// last one wrote, not from the row read before.
type txGroups struct {
	byID  map[string]store.Group
	byKey map[store.GroupKey]string
}

func (t *txGroups) put(g store.Group) {
	t.byID[g.ID] = g
	t.byKey[store.GroupKey{ProjectID: g.ProjectID, Service: g.Service, Fingerprint: g.Fingerprint}] = g.ID
}

// groups returns the groups of ids as last put.
func (t *txGroups) groups(ids []string) []store.Group {
	out := make([]store.Group, len(ids))
	for i, id := range ids {
		out[i] = t.byID[id]
	}
	return out
}

// maxMergeHops bounds the walk from a merged group to the group it was
// merged into (merges repoint earlier ones, so one hop is the rule).
const maxMergeHops = 8

// resolve finds the group that takes ga's events: the group of its key
// (existing holds the groups read and locked for the transaction's keys),
// followed to the group it was merged into; for an older-version group
// deleted since the events were prepared, the current version's group. It
// reports false when the events make a new group.
func (t *txGroups) resolve(ctx context.Context, c *store.Conn, ga *groupAgg, key store.GroupKey, existing map[store.GroupKey]store.Group) (store.Group, bool, error) {
	g, found := existing[key]
	if !found {
		if ga.legacy {
			key = store.GroupKey{ProjectID: ga.projectID, Service: ga.service, Fingerprint: ga.fp.Fingerprint}
		}
		if id, ok := t.byKey[key]; ok {
			found, g = true, t.byID[id]
		} else if ga.legacy {
			var err error
			g, err = c.GroupByKey(ctx, key.ProjectID, key.Service, key.Fingerprint)
			if errors.Is(err, store.ErrNotFound) {
				return store.Group{}, false, nil
			}
			if err != nil {
				return store.Group{}, false, err
			}
			found = true
		}
	}
	if !found {
		return store.Group{}, false, nil
	}
	if tg, ok := t.byID[g.ID]; ok {
		g = tg
	}
	for hops := 0; g.MergedInto != ""; hops++ {
		if hops == maxMergeHops {
			return store.Group{}, false, fmt.Errorf("process: group %s: more than %d merges to follow", g.ID, maxMergeHops)
		}
		if tg, ok := t.byID[g.MergedInto]; ok {
			g = tg
			continue
		}
		next, err := c.LockGroup(ctx, g.MergedInto)
		if err != nil {
			return store.Group{}, false, fmt.Errorf("process: the group %s was merged into: %w", g.MergedInto, err)
		}
		g = next
	}
	return g, true, nil
}
