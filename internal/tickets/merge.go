package tickets

import (
	"context"
	"errors"
	"sort"
	"time"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/store"
)

// MaxMerge is the most groups one merge takes.
const MaxMerge = 100

// MergeGroups merges the groups ids into the group targetID, on behalf of a
// person who sees them as one problem: their counts and sample events move
// to the target, events that still compute their fingerprints go to the
// target from now on, and their open tickets are resolved with the reason
// `merged`, without a notification. Every group must be of the target's
// project and not merged already. A group of another project, or of
// another organization, is answered exactly as an id that names nothing
// (CONTRACT 8): both are looked up by the same query within the target's
// project, and neither is locked. It returns the target as it is after.
// Each group's activity records the merge with a as its actor.
func (s *Service) MergeGroups(ctx context.Context, a Actor, targetID string, ids []string) (store.Group, error) {
	if len(ids) == 0 || len(ids) > MaxMerge {
		return store.Group{}, problem.Newf("validation-failed", "group_ids: name 1 to %d groups to merge", MaxMerge)
	}
	var out store.Group
	err := s.db.Tx(ctx, func(c *store.Conn) error {
		var err error
		out, _, err = s.merge(ctx, c, a, targetID, ids, false)
		return err
	})
	return out, err
}

// errTargetMerged is a bulk merge's target merged into another group
// since the bulk read it: the bulk reads its groups again.
var errTargetMerged = errors.New("tickets: the bulk merge's target was merged meanwhile")

// merge is MergeGroups in c's transaction, answering the ids merged. A
// bulk merge (bulk) skips the groups another merge took (or deleted)
// since it read them, as it would have had it read them after, instead
// of refusing.
func (s *Service) merge(ctx context.Context, c *store.Conn, a Actor, targetID string, ids []string, bulk bool) (store.Group, []string, error) {
	var out store.Group
	var merged []string
	err := func() error {
		head, err := c.GroupByID(ctx, targetID) // its project never changes
		if err != nil {
			return err
		}
		// Processing locks the project, then its groups in the order of
		// their keys: a merge locks the project first too, or it and a
		// batch could each hold a group the other waits for.
		if err := c.LockProjects(ctx, []string{head.ProjectID}); err != nil {
			return err
		}
		locked, err := lockMerged(ctx, c, head.ProjectID, targetID, ids)
		if err != nil {
			return err
		}
		target, ok := locked[targetID]
		if !ok {
			return store.ErrNotFound
		}
		if target.MergedInto != "" {
			if bulk {
				return errTargetMerged
			}
			return problem.Newf("conflict", "the group was merged into %s: merge into that one", target.MergedInto)
		}
		now := s.clock()
		done := map[string]bool{}
		for i, gid := range ids {
			m, found := locked[gid]
			switch {
			case bulk && (!found || m.MergedInto != ""):
				continue
			case gid == targetID:
				return problem.Newf("validation-failed", "group_ids[%d]: a group cannot be merged into itself", i)
			case !found:
				return problem.Newf("validation-failed", "group_ids[%d]: %q is not a group of this project", i, gid)
			case m.MergedInto != "":
				return problem.Newf("validation-failed", "group_ids[%d]: %s was already merged into %s", i, gid, m.MergedInto)
			case done[gid]:
				continue
			}
			done[gid] = true
			merged = append(merged, gid)
			if err := c.MoveGroupData(ctx, m.ID, target.ID); err != nil {
				return err
			}
			Absorb(&target, m)
			if err := resolveMerged(ctx, c, a, &m, target.ID, now); err != nil {
				return err
			}
		}
		if len(merged) == 0 {
			out = target
			return nil // a bulk's groups all taken by another merge
		}
		if err := Record(ctx, c, target.ID, store.ActivityMerged, a, map[string]any{"group_ids": merged}, now); err != nil {
			return err
		}
		target.UpdatedAt = now
		if err := c.UpdateGroup(ctx, target); err != nil {
			return err
		}
		// Read back for what the store keeps on its own: the user count
		// MoveGroupData merged.
		out, err = c.GroupByID(ctx, target.ID)
		return err
	}()
	return out, merged, err
}

// lockMerged locks the target and the groups of ids that are groups of
// projectID, in the order of their ids, as bulk changes do (the project is
// locked first, as processing locks it, so that a merge and a batch cannot
// deadlock on each other). Ids that name no group of the
// project are left out of the answer; those that are not group ids at all
// never reach the database.
func lockMerged(ctx context.Context, c *store.Conn, projectID, targetID string, ids []string) (map[string]store.Group, error) {
	order := append([]string{targetID}, ids...)
	sort.Strings(order)
	locked := map[string]store.Group{}
	for i, gid := range order {
		if (i > 0 && gid == order[i-1]) || !id.Valid(id.Group, gid) {
			continue
		}
		g, err := c.LockProjectGroup(ctx, projectID, gid)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		locked[gid] = g
	}
	return locked, nil
}

// resolveMerged marks m merged into targetID: no events of its own left,
// resolved, and its open ticket resolved with the reason `merged`; its
// activity records both.
func resolveMerged(ctx context.Context, c *store.Conn, a Actor, m *store.Group, targetID string, now time.Time) error {
	if m.TicketID != "" {
		t, err := c.TicketByID(ctx, m.TicketID)
		if err == nil && t.Status == store.TicketOpen {
			t.Status, t.Reason, t.ResolvedAt, t.UpdatedAt = store.TicketResolved, store.ReasonMerged, &now, now
			if err := c.UpdateTicket(ctx, t); err != nil {
				return err
			}
			if err := Record(ctx, c, m.ID, store.ActivityTicketResolved, a, map[string]any{"ticket_id": t.ID, "reason": store.ReasonMerged}, now); err != nil {
				return err
			}
		}
	}
	if err := Record(ctx, c, m.ID, store.ActivityMerged, a, map[string]any{"into": targetID}, now); err != nil {
		return err
	}
	m.MergedInto, m.EventCount, m.UpdatedAt = targetID, 0, now
	if m.Status != store.GroupResolved {
		m.Status, m.ResolvedAt = store.GroupResolved, &now
	}
	return c.UpdateGroup(ctx, *m)
}

// Absorb adds what group m saw to g: its events, its first and last
// sightings (and the latest sample's details when m saw the latest), its
// highest level, environments and releases.
func Absorb(g *store.Group, m store.Group) {
	g.EventCount += m.EventCount
	g.Level = max(g.Level, m.Level)
	if m.FirstSeen.Before(g.FirstSeen) {
		g.FirstSeen = m.FirstSeen
		if m.FirstRelease != "" {
			g.FirstRelease = m.FirstRelease
		}
	}
	if m.LastSeen.After(g.LastSeen) {
		g.LastSeen = m.LastSeen
		g.SampleMessage, g.SearchMessage, g.LastTraceID = m.SampleMessage, m.SearchMessage, m.LastTraceID
		if m.LastRelease != "" {
			g.LastRelease = m.LastRelease
		}
		if m.LastEnvironment != "" {
			g.LastEnvironment = m.LastEnvironment
		}
	}
	g.Environments = MergeList(g.Environments, m.Environments)
	g.Releases = MergeList(g.Releases, m.Releases)
}

// MaxListed bounds the environments and releases a group remembers.
const MaxListed = 20

// MergeList appends new values to list, moving repeated ones to the end
// (most recent last), and keeps the most recent MaxListed.
func MergeList(list, add []string) []string {
	for _, v := range add {
		for i, x := range list {
			if x == v {
				list = append(list[:i], list[i+1:]...)
				break
			}
		}
		list = append(list, v)
	}
	if len(list) > MaxListed {
		list = list[len(list)-MaxListed:]
	}
	return list
}
