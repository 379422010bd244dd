package store

import (
	"context"
	"fmt"
)

// MoveGroupData moves what a merged group holds to the group it was merged
// into: its sample events (none of them its first any more) and its minute
// and hour counts, added to the target's. Call it in the transaction that
// marks the group merged; the project's hours do not change.
func (c *Conn) MoveGroupData(ctx context.Context, fromID, toID string) error {
	if _, err := c.exec(ctx, `UPDATE group_events SET group_id = ?, first = 0 WHERE group_id = ?`, toID, fromID); err != nil {
		return fmt.Errorf("store: move group events: %w", err)
	}
	for _, t := range []struct{ table, col string }{{"group_minutes", "minute"}, {"group_hours", "hour"}} {
		q := `INSERT INTO ` + t.table + ` (group_id, ` + t.col + `, count) SELECT ?, ` + t.col + `, count FROM ` + t.table + ` WHERE group_id = ?
			ON CONFLICT (group_id, ` + t.col + `) DO UPDATE SET count = ` + t.table + `.count + excluded.count`
		if _, err := c.exec(ctx, q, toID, fromID); err != nil {
			return fmt.Errorf("store: move %s: %w", t.table, err)
		}
		if _, err := c.exec(ctx, `DELETE FROM `+t.table+` WHERE group_id = ?`, fromID); err != nil {
			return fmt.Errorf("store: move %s: %w", t.table, err)
		}
	}
	if err := c.moveFacets(ctx, fromID, toID); err != nil {
		return err
	}
	// Groups merged into this one before now follow it to the target.
	if _, err := c.exec(ctx, `UPDATE error_groups SET merged_into = ? WHERE merged_into = ?`, toID, fromID); err != nil {
		return fmt.Errorf("store: repoint merged groups: %w", err)
	}
	return nil
}

// LockProjectGroup returns the group id of project projectID, locked until
// the end of the transaction (see forUpdate); a group of another project is
// ErrNotFound exactly as an id that names nothing, from the same indexed
// read, and is not locked.
func (c *Conn) LockProjectGroup(ctx context.Context, projectID, id string) (Group, error) {
	g, err := scanGroup(c.queryRow(ctx, `SELECT `+groupCols+` FROM error_groups WHERE id = ? AND project_id = ?`+c.drv.rowLock(), id, projectID))
	if err != nil {
		return Group{}, fmt.Errorf("store: group %s: %w", id, translate(err))
	}
	return g, nil
}

// HasGroupsBelowVersion reports whether any group was made by a fingerprint
// version older than v (and still takes events).
func (c *Conn) HasGroupsBelowVersion(ctx context.Context, v int) (bool, error) {
	var n int
	err := c.queryRow(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM error_groups WHERE fingerprint_version < ? LIMIT 1) x`, v).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("store: groups below version %d: %w", v, err)
	}
	return n > 0, nil
}

// GroupRef is a group's id and the fingerprint version that made it.
type GroupRef struct {
	ID      string
	Version int
}

// GroupsOfVersion returns the groups made by fingerprint version v (any
// version when v is AnyVersion) that keys name. It does not lock: groups of an older version
// are created only by an older release still running beside this one, and
// the transaction that applies events copes with a group deleted since.
// AnyVersion asks GroupsOfVersion for groups of every version.
const AnyVersion = 0

func (c *Conn) GroupsOfVersion(ctx context.Context, keys []GroupKey, v int) (map[GroupKey]GroupRef, error) {
	out := map[GroupKey]GroupRef{}
	for start := 0; start < len(keys); start += 300 {
		part := keys[start:min(start+300, len(keys))]
		args := make([]any, 0, 3*len(part)+1)
		version := ``
		if v != AnyVersion {
			version, args = `fingerprint_version = ? AND `, append(args, v)
		}
		for _, k := range part {
			args = append(args, k.ProjectID, k.Service, k.Fingerprint)
		}
		rows, err := c.query(ctx, `SELECT project_id, service, fingerprint, id, fingerprint_version FROM error_groups WHERE `+version+`
			(project_id, service, fingerprint) IN (`+tuples(len(part), "(?, ?, ?)")+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("store: groups of version %d: %w", v, err)
		}
		type hit struct {
			k GroupKey
			r GroupRef
		}
		found, err := collect(rows, func(s interface{ Scan(...any) error }) (hit, error) {
			var h hit
			return h, s.Scan(&h.k.ProjectID, &h.k.Service, &h.k.Fingerprint, &h.r.ID, &h.r.Version)
		})
		if err != nil {
			return nil, err
		}
		for _, h := range found {
			out[h.k] = h.r
		}
	}
	return out, nil
}
