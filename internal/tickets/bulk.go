package tickets

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/problem"
	"github.com/errata-dev/errata/internal/store"
)

// Bulk limits (CONTRACT 8).
const (
	MaxBulkIDs     = 1000
	MaxBulkMatches = 10_000
)

// BulkResult is what a bulk action did: the groups it matched and those it
// changed.
type BulkResult struct {
	Matched int `json:"matched"`
	Updated int `json:"updated"`
}

// projectGroups keeps the ids (once each, in order) that name groups of
// projectID not merged into another; an id of another project or
// organization counts as no group.
func projectGroups(ctx context.Context, c *store.Conn, projectID string, ids []string) ([]store.Group, error) {
	var out []store.Group
	seen := map[string]bool{}
	for _, gid := range ids {
		if seen[gid] || !id.Valid(id.Group, gid) {
			continue
		}
		seen[gid] = true
		g, err := c.GroupByID(ctx, gid)
		if errors.Is(err, store.ErrNotFound) || (err == nil && (g.ProjectID != projectID || g.MergedInto != "")) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, nil
}

// bulkChunk is how many groups' changes one transaction of BulkChange
// makes: a transaction a group made 10,000 groups take 10 to 17 s (one
// commit each); a chunk holds the writer, or its groups' row locks, for
// tens of milliseconds.
const bulkChunk = 100

// BulkChange applies ch to each group of ids that is a group of projectID,
// with its activity entries, bulkChunk groups a transaction (a change
// stays atomic per group; a concurrent change of one group is serialised
// with it). A chunk locks the project first, as processing and merges do,
// then its groups in id order, so that neither can wait for it in a
// circle; a deadlock with a deletion or retention (which lock many groups
// without the project) is detected by PostgreSQL and the chunk is run
// again (TxAgain). A change refused for a
// group (a bad assignee) ends the bulk with the groups of earlier chunks
// changed: with the first, none. With still set (a bulk by query), a
// group is changed only if the query still matches it once it is locked:
// a change made meanwhile (a PATCH assigning it while the bulk assigns
// every unassigned group) may have taken it out of the match, and the
// bulk must not undo it; matched counts the groups that still matched.
func (s *Service) BulkChange(ctx context.Context, a Actor, projectID string, ids []string, ch GroupChange, still *store.GroupFilter) (BulkResult, error) {
	gs, err := projectGroups(ctx, s.db.Read(), projectID, ids)
	if err != nil {
		return BulkResult{}, err
	}
	slices.SortFunc(gs, func(x, y store.Group) int { return strings.Compare(x.ID, y.ID) })
	var res BulkResult
	// The bulk's assignments are told in one email, which each chunk's
	// transaction adds its groups to (notify.Service.QueueAssignment).
	bulkID := id.New(id.Delivery)
	for chunk := range slices.Chunk(gs, bulkChunk) {
		updated, matched := 0, len(chunk)
		err := s.db.TxAgain(ctx, func(c *store.Conn) error {
			updated, matched = 0, len(chunk)
			// Processing locks the project before its groups (in the
			// order of their keys): so does a chunk, so that a chunk's
			// groups and a batch's cannot wait for each other.
			if err := c.LockProjects(ctx, []string{projectID}); err != nil {
				return err
			}
			ch := ch
			if ch.Status == store.GroupResolved && ch.ResolvedIn == ResolveNext {
				// One read for the chunk, not one a group.
				newest, err := newestRelease(ctx, c, projectID)
				if err != nil {
					return err
				}
				ch.newest = &newest
			}
			chunk := chunk
			if still != nil {
				var err error
				if chunk, err = stillMatching(ctx, c, projectID, chunk, *still); err != nil {
					return err
				}
				matched = len(chunk)
			}
			// The chunk's assignments are told in the bulk's one email,
			// not one a group: a bulk of 10,000 groups sent 10,000
			// emails, and invitations waited behind them.
			later := AssignmentEmail{Bulk: bulkID}
			ch.mailLater = &later
			for _, g := range chunk {
				_, changed, err := s.changeGroupIn(ctx, c, a, g.ID, ch)
				if errors.Is(err, store.ErrNotFound) || errors.Is(err, errGroupMerged) {
					continue // deleted or merged meanwhile
				}
				if err != nil {
					return err
				}
				if changed {
					updated++
				}
			}
			if len(later.Groups) == 0 {
				return nil
			}
			return s.mail.QueueAssignment(ctx, c, later)
		})
		if err != nil {
			return res, err
		}
		res.Matched += matched
		res.Updated += updated
	}
	return res, nil
}

// stillMatching locks the groups of chunk (in id order, as changeGroupIn
// would) and keeps those f still matches, in c's transaction.
func stillMatching(ctx context.Context, c *store.Conn, projectID string, chunk []store.Group, f store.GroupFilter) ([]store.Group, error) {
	f.IDs = make([]string, 0, len(chunk))
	for _, g := range chunk {
		if _, err := c.LockGroup(ctx, g.ID); err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
		f.IDs = append(f.IDs, g.ID)
	}
	page, err := c.ListGroups(ctx, projectID, f, "", len(f.IDs))
	if err != nil {
		return nil, err
	}
	match := make(map[string]bool, len(page))
	for _, g := range page {
		match[g.ID] = true
	}
	return slices.DeleteFunc(slices.Clone(chunk), func(g store.Group) bool { return !match[g.ID] }), nil
}

// BulkMerge merges the groups of ids that are groups of projectID into the
// one of them with the most events (the oldest id on a tie), in one
// transaction; fewer than two such groups merge nothing.
func (s *Service) BulkMerge(ctx context.Context, a Actor, projectID string, ids []string) (BulkResult, error) {
	if len(ids) > MaxBulkIDs {
		return BulkResult{}, problem.Newf("validation-failed", "ids: at most %d groups", MaxBulkIDs)
	}
	for attempt := 1; ; attempt++ {
		res, err := s.bulkMerge(ctx, a, projectID, ids)
		// Another merge took the target after it was chosen: choose again
		// among what is left, as a bulk sent a moment later would.
		if errors.Is(err, errTargetMerged) && attempt < 5 {
			continue
		}
		return res, err
	}
}

// bulkMerge is one try of BulkMerge.
func (s *Service) bulkMerge(ctx context.Context, a Actor, projectID string, ids []string) (BulkResult, error) {
	gs, err := projectGroups(ctx, s.db.Read(), projectID, ids)
	if err != nil {
		return BulkResult{}, err
	}
	res := BulkResult{Matched: len(gs)}
	if len(gs) < 2 {
		return res, nil
	}
	target := slices.MinFunc(gs, func(x, y store.Group) int {
		if x.EventCount != y.EventCount {
			if x.EventCount > y.EventCount {
				return -1
			}
			return 1
		}
		if x.ID < y.ID {
			return -1
		}
		return 1
	})
	var others []string
	for _, g := range gs {
		if g.ID != target.ID {
			others = append(others, g.ID)
		}
	}
	var merged []string
	err = s.db.Tx(ctx, func(c *store.Conn) error {
		var err error
		_, merged, err = s.merge(ctx, c, a, target.ID, others, true)
		return err
	})
	if err != nil {
		return res, err
	}
	if len(merged) > 0 {
		res.Updated = len(merged) + 1
	}
	return res, nil
}
