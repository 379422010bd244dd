package store

import (
	"context"
	"fmt"
	"sort"

	"github.com/axiomhq/hyperloglog"
)

// facetRows is how many rows one multi-row statement of AddFacets and
// AddEventRefs writes: at most 5 parameters a row, well within SQLite's
// 32,766 and PostgreSQL's 65,535, and few enough that the statement's text
// stays under maxCachedQuery, so that SQLite parses it once, not every
// transaction (the parse of a 250-row statement was a tenth of the
// processing's CPU).
const facetRows = 100

// chunkRows is how many of left rows the next multi-row statement writes:
// facetRows, or below that the largest power of two, so that a remainder
// is written by statements of at most 7 lengths (1, 2, 4, … 64), each
// parsed once for SQLite's statement cache, rather than by a statement of
// a length seldom seen again, parsed every time.
func chunkRows(left int) int {
	if left >= facetRows {
		return facetRows
	}
	n := 1
	for n*2 <= left {
		n *= 2
	}
	return n
}

// AddFacets adds the attribute value counts of the batches a transaction
// applies to their groups, whatever the number of groups in a few
// statements: one read of the groups' key rows (how many distinct values
// each key keeps), multi-row upserts of the counts that return which
// values were new, and multi-row upserts of the key rows that changed.
//
// A key whose kept values and the batches' values together stay within
// MaxFacetValues cannot reach the cap, so its values are upserted
// unchecked (the common case). Only a key near the cap has its values'
// existence read first: a value new to it while it has MaxFacetValues
// values is counted under FacetOther, and a user.id past that cap goes into
// the key's HyperLogLog sketch, which then gives user_count.
func (c *Conn) AddFacets(ctx context.Context, counts []FacetCount) error {
	if len(counts) == 0 {
		return nil
	}
	sort.Slice(counts, func(i, j int) bool {
		a, b := counts[i], counts[j]
		if a.GroupID != b.GroupID {
			return a.GroupID < b.GroupID
		}
		if a.Key != b.Key {
			return a.Key < b.Key
		}
		return a.Value < b.Value
	})
	keys, err := c.facetKeys(ctx, counts)
	if err != nil {
		return err
	}
	w := facetWrite{sums: make(map[facetGKV]int64, len(counts)), free: map[facetGK]bool{}}
	newUsers := map[string][]string{} // group: user.id values past the cap
	for start := 0; start < len(counts); {
		end := start + 1
		for end < len(counts) && counts[end].GroupID == counts[start].GroupID && counts[end].Key == counts[start].Key {
			end++
		}
		run := counts[start:end]
		start = end
		gk := facetGK{run[0].GroupID, run[0].Key}
		k := keys.get(gk)
		if k.distinct+int64(len(run)) <= MaxFacetValues {
			w.free[gk] = true // upsertFacets counts its new values
			for _, fc := range run {
				w.add(facetGKV{fc.GroupID, fc.Key, fc.Value}, fc.N)
			}
			continue
		}
		exists, err := c.facetValuesExist(ctx, gk, run)
		if err != nil {
			return err
		}
		for _, fc := range run {
			kv := facetGKV{fc.GroupID, fc.Key, fc.Value}
			switch {
			case exists[fc.Value]:
			case k.distinct < MaxFacetValues:
				exists[fc.Value] = true
				k.distinct++
				k.changed = true
			default:
				if fc.Key == UserKey {
					newUsers[fc.GroupID] = append(newUsers[fc.GroupID], fc.Value)
				}
				kv.value = FacetOther
			}
			w.add(kv, fc.N)
		}
	}
	if err := c.upsertFacets(ctx, w, keys); err != nil {
		return err
	}
	if err := c.sketchUsers(ctx, keys, newUsers); err != nil {
		return err
	}
	return c.writeFacetKeys(ctx, keys)
}

// facetWrite is what AddFacets upserts: the sums of the rows in order, and
// the keys far enough from the cap that their values were not checked.
type facetWrite struct {
	sums  map[facetGKV]int64
	order []facetGKV
	free  map[facetGK]bool
}

func (w *facetWrite) add(kv facetGKV, n int64) {
	if _, ok := w.sums[kv]; !ok {
		w.order = append(w.order, kv)
	}
	w.sums[kv] += n
}

// facetKeyRows are the key rows of a batch's groups and keys.
type facetKeyRows map[facetGK]*facetKeyRow

// get returns the row of gk, a new one when the key is new to its group.
func (m facetKeyRows) get(gk facetGK) *facetKeyRow {
	k := m[gk]
	if k == nil {
		k = &facetKeyRow{}
		m[gk] = k
	}
	return k
}

// facetKeys reads the group_facet_keys rows of the batch's groups (all of
// their keys: a look-up by group_id, the primary key's first column).
func (c *Conn) facetKeys(ctx context.Context, counts []FacetCount) (facetKeyRows, error) {
	var groups []any
	for i, fc := range counts {
		if i == 0 || fc.GroupID != counts[i-1].GroupID {
			groups = append(groups, fc.GroupID)
		}
	}
	out := facetKeyRows{}
	for start, n := 0, 0; start < len(groups); start += n {
		n = chunkRows(len(groups) - start)
		part := groups[start : start+n]
		rows, err := c.query(ctx, facetKeysRead(len(part)), part...)
		if err != nil {
			return nil, fmt.Errorf("store: facet keys: %w", err)
		}
		for rows.Next() {
			var gk facetGK
			k := &facetKeyRow{}
			if err := rows.Scan(&gk.group, &gk.key, &k.distinct, &k.raw); err != nil {
				rows.Close()
				return nil, fmt.Errorf("store: facet keys: %w", err)
			}
			out[gk] = k
		}
		if err := rows.Close(); err != nil {
			return nil, fmt.Errorf("store: facet keys: %w", err)
		}
	}
	return out, nil
}

// facetValuesExist reports which of a key's values (run, one group and
// key) its group already keeps.
func (c *Conn) facetValuesExist(ctx context.Context, gk facetGK, run []FacetCount) (map[string]bool, error) {
	out := make(map[string]bool, len(run))
	for start, n := 0, 0; start < len(run); start += n {
		n = chunkRows(len(run) - start)
		part := run[start : start+n]
		args := make([]any, 0, 2+len(part))
		args = append(args, gk.group, gk.key)
		for _, fc := range part {
			args = append(args, fc.Value)
		}
		rows, err := c.query(ctx, `SELECT value FROM group_facets WHERE group_id = ? AND key = ? AND value IN (`+tuples(len(part), "?")+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("store: facets: %w", err)
		}
		for rows.Next() {
			var v string
			if err := rows.Scan(&v); err != nil {
				rows.Close()
				return nil, fmt.Errorf("store: facets: %w", err)
			}
			out[v] = true
		}
		if err := rows.Close(); err != nil {
			return nil, fmt.Errorf("store: facets: %w", err)
		}
	}
	return out, nil
}

// upsertFacets writes the counts in multi-row upserts that return each
// row's count: a row whose count is just what was added is new, which is
// how the distinct values of the keys far from the cap are counted (a kept
// count is never below 1).
func (c *Conn) upsertFacets(ctx context.Context, w facetWrite, keys facetKeyRows) error {
	for start, n := 0, 0; start < len(w.order); start += n {
		n = chunkRows(len(w.order) - start)
		part := w.order[start : start+n]
		args := make([]any, 0, 4*len(part))
		for _, kv := range part {
			args = append(args, kv.group, kv.key, kv.value, w.sums[kv])
		}
		rows, err := c.query(ctx, facetUpsert(len(part)), args...)
		if err != nil {
			return fmt.Errorf("store: add facets: %w", err)
		}
		for rows.Next() {
			var kv facetGKV
			var n int64
			if err := rows.Scan(&kv.group, &kv.key, &kv.value, &n); err != nil {
				rows.Close()
				return fmt.Errorf("store: add facets: %w", err)
			}
			if gk := (facetGK{kv.group, kv.key}); w.free[gk] && n == w.sums[kv] {
				k := keys.get(gk)
				k.distinct++
				k.changed = true
			}
		}
		if err := rows.Close(); err != nil {
			return fmt.Errorf("store: add facets: %w", err)
		}
	}
	return nil
}

// facetKeysRead is facetKeys' statement for n groups.
func facetKeysRead(n int) string {
	return `SELECT group_id, key, distinct_values, sketch FROM group_facet_keys WHERE group_id IN (` + tuples(n, "?") + `)`
}

// facetUpsert is upsertFacets' statement for n rows.
func facetUpsert(n int) string {
	return `INSERT INTO group_facets (group_id, key, value, count) VALUES ` + tuples(n, "(?, ?, ?, ?)") +
		` ON CONFLICT (group_id, key, value) DO UPDATE SET count = group_facets.count + excluded.count RETURNING group_id, key, value, count`
}

// facetKeysUpsert is writeFacetKeys' statement for n rows.
func facetKeysUpsert(n int) string {
	return `INSERT INTO group_facet_keys (group_id, key, distinct_values, sketch) VALUES ` + tuples(n, "(?, ?, ?, ?)") +
		` ON CONFLICT (group_id, key) DO UPDATE SET distinct_values = excluded.distinct_values, sketch = excluded.sketch`
}

// sketchUsers adds the user.id values past the cap to their group's
// sketch, seeding a new sketch with the values kept so far.
func (c *Conn) sketchUsers(ctx context.Context, keys facetKeyRows, newUsers map[string][]string) error {
	for group, users := range newUsers {
		k := keys[facetGK{group, UserKey}]
		if k.sketch == nil {
			k.sketch = readSketch(k.raw)
		}
		if k.sketch == nil {
			k.sketch = hyperloglog.New14()
			rows, err := c.query(ctx, `SELECT value FROM group_facets WHERE group_id = ? AND key = ? AND value <> ?`, group, UserKey, FacetOther)
			if err != nil {
				return fmt.Errorf("store: users: %w", err)
			}
			kept, err := collect(rows, func(s interface{ Scan(...any) error }) (string, error) {
				var v string
				return v, s.Scan(&v)
			})
			if err != nil {
				return err
			}
			for _, v := range kept {
				k.sketch.Insert([]byte(v))
			}
		}
		for _, u := range users {
			k.sketch.Insert([]byte(u))
		}
		k.changed = true
	}
	return nil
}

// writeFacetKeys writes the changed key rows, in multi-row upserts in a
// fixed order, and the user_count of the groups whose user.id gained
// values.
func (c *Conn) writeFacetKeys(ctx context.Context, keys facetKeyRows) error {
	gks := make([]facetGK, 0, len(keys))
	for gk, k := range keys {
		if k.changed {
			gks = append(gks, gk)
		}
	}
	sort.Slice(gks, func(i, j int) bool {
		if gks[i].group != gks[j].group {
			return gks[i].group < gks[j].group
		}
		return gks[i].key < gks[j].key
	})
	for start, n := 0, 0; start < len(gks); start += n {
		n = chunkRows(len(gks) - start)
		part := gks[start : start+n]
		args := make([]any, 0, 4*len(part))
		for _, gk := range part {
			k := keys[gk]
			sketch := k.raw
			if k.sketch != nil {
				b, err := k.sketch.MarshalBinary()
				if err != nil {
					return fmt.Errorf("store: users sketch: %w", err)
				}
				sketch = b
			}
			args = append(args, gk.group, gk.key, k.distinct, sketch)
		}
		if _, err := c.exec(ctx, facetKeysUpsert(len(part)), args...); err != nil {
			return fmt.Errorf("store: facet keys: %w", err)
		}
	}
	for _, gk := range gks {
		if gk.key != UserKey {
			continue
		}
		if _, err := c.exec(ctx, `UPDATE error_groups SET user_count = ? WHERE id = ?`, userCount(keys[gk]), gk.group); err != nil {
			return fmt.Errorf("store: user count: %w", err)
		}
	}
	return nil
}
