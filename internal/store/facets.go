package store

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/axiomhq/hyperloglog"
)

// Bounds of the per-group value counts (CONTRACT 8).
const (
	// MaxFacetValues is how many distinct values of a key a group keeps;
	// later new values are counted under FacetOther.
	MaxFacetValues = 1000
	// FacetOther is the value the values past MaxFacetValues count under.
	FacetOther = "(other)"
	// UserKey is the attribute whose distinct values are a group's users.
	UserKey = "user.id"
)

// FacetCount is n events of a group that carried value under key.
type FacetCount struct {
	GroupID, Key, Value string
	N                   int64
}

type facetGK struct{ group, key string }

type facetGKV struct{ group, key, value string }

// facetKey is a group's row of group_facet_keys as read or to be written.
type facetKeyRow struct {
	distinct int64
	sketch   *hyperloglog.Sketch
	changed  bool
}

// AddFacets adds a batch's attribute value counts to their groups, in the
// transaction that applies the batch: two reads (the keys' distinct-value
// counts and which values exist) and two multi-row upserts, whatever the
// number of groups. A value new to a key that already has MaxFacetValues
// is counted under FacetOther; a user.id past that cap goes into the key's
// HyperLogLog sketch, which then gives user_count.
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
	if c.dialect != Postgres {
		keys := facetKeyRows{}
		newUsers, err := c.addFacetsEach(ctx, counts, keys)
		if err != nil {
			return err
		}
		if err := c.sketchUsers(ctx, keys, newUsers); err != nil {
			return err
		}
		return c.writeFacetKeys(ctx, keys)
	}
	keys, err := c.facetKeys(ctx, counts)
	if err != nil {
		return err
	}
	exists, err := c.facetsExist(ctx, counts)
	if err != nil {
		return err
	}
	sums := map[facetGKV]int64{}
	var order []facetGKV
	newUsers := map[string][]string{} // group: user.id values past the cap
	for _, fc := range counts {
		gk := facetGK{fc.GroupID, fc.Key}
		kv := facetGKV{fc.GroupID, fc.Key, fc.Value}
		if !exists[kv] {
			k := keys.get(gk)
			if k.distinct < MaxFacetValues {
				k.distinct++
				k.changed = true
			} else {
				if fc.Key == UserKey {
					newUsers[fc.GroupID] = append(newUsers[fc.GroupID], fc.Value)
				}
				kv.value = FacetOther
			}
		}
		if _, ok := sums[kv]; !ok {
			order = append(order, kv)
		}
		sums[kv] += fc.N
	}
	if err := c.upsertFacets(ctx, order, sums); err != nil {
		return err
	}
	if err := c.sketchUsers(ctx, keys, newUsers); err != nil {
		return err
	}
	return c.writeFacetKeys(ctx, keys)
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

// addFacetsEach is AddFacets on SQLite: one-row statements, which SQLite
// runs from its statement cache without a round trip. A value's count is
// updated in place; when no row was there the value is new, and is
// inserted while its key has fewer than MaxFacetValues values, else
// counted under FacetOther. It returns the user.id values past the cap.
func (c *Conn) addFacetsEach(ctx context.Context, counts []FacetCount, keys facetKeyRows) (map[string][]string, error) {
	newUsers := map[string][]string{}
	other := map[facetGK]int64{}
	var others []facetGK
	for _, fc := range counts {
		res, err := c.exec(ctx, `UPDATE group_facets SET count = count + ? WHERE group_id = ? AND key = ? AND value = ?`, fc.N, fc.GroupID, fc.Key, fc.Value)
		if err != nil {
			return nil, fmt.Errorf("store: add facets: %w", err)
		}
		if n, _ := res.RowsAffected(); n > 0 {
			continue
		}
		gk := facetGK{fc.GroupID, fc.Key}
		k, err := c.facetKey(ctx, keys, gk)
		if err != nil {
			return nil, err
		}
		if k.distinct < MaxFacetValues {
			if _, err := c.exec(ctx, `INSERT INTO group_facets (group_id, key, value, count) VALUES (?, ?, ?, ?)`, fc.GroupID, fc.Key, fc.Value, fc.N); err != nil {
				return nil, fmt.Errorf("store: add facets: %w", err)
			}
			k.distinct++
			k.changed = true
			continue
		}
		if fc.Key == UserKey {
			newUsers[fc.GroupID] = append(newUsers[fc.GroupID], fc.Value)
		}
		if _, ok := other[gk]; !ok {
			others = append(others, gk)
		}
		other[gk] += fc.N
	}
	for _, gk := range others {
		if _, err := c.exec(ctx, `INSERT INTO group_facets (group_id, key, value, count) VALUES (?, ?, ?, ?)
			ON CONFLICT (group_id, key, value) DO UPDATE SET count = group_facets.count + excluded.count`, gk.group, gk.key, FacetOther, other[gk]); err != nil {
			return nil, fmt.Errorf("store: add facets: %w", err)
		}
	}
	return newUsers, nil
}

// facetKey returns the key row of gk, read on first use (SQLite: only a
// value new to its group needs it, and most values are not new).
func (c *Conn) facetKey(ctx context.Context, keys facetKeyRows, gk facetGK) (*facetKeyRow, error) {
	if k := keys[gk]; k != nil {
		return k, nil
	}
	k := &facetKeyRow{}
	var sketch []byte
	err := c.queryRow(ctx, `SELECT distinct_values, sketch FROM group_facet_keys WHERE group_id = ? AND key = ?`, gk.group, gk.key).Scan(&k.distinct, &sketch)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("store: facet key: %w", err)
	}
	k.sketch = readSketch(sketch)
	keys[gk] = k
	return k, nil
}

// readSketch decodes a stored users sketch; nil when there is none (or it
// does not decode: sketchUsers rebuilds it from the kept values).
func readSketch(b []byte) *hyperloglog.Sketch {
	if len(b) == 0 {
		return nil
	}
	sk := hyperloglog.New14()
	if sk.UnmarshalBinary(b) != nil {
		return nil
	}
	return sk
}

// facetKeys reads the group_facet_keys rows of the batch's groups and keys.
func (c *Conn) facetKeys(ctx context.Context, counts []FacetCount) (facetKeyRows, error) {
	var gks []facetGK
	for i, fc := range counts {
		if i == 0 || fc.GroupID != counts[i-1].GroupID || fc.Key != counts[i-1].Key {
			gks = append(gks, facetGK{fc.GroupID, fc.Key})
		}
	}
	out := make(facetKeyRows, len(gks))
	for start := 0; start < len(gks); start += 300 {
		part := gks[start:min(start+300, len(gks))]
		args := make([]any, 0, 2*len(part))
		for _, gk := range part {
			args = append(args, gk.group, gk.key)
		}
		rows, err := c.query(ctx, `SELECT group_id, key, distinct_values, sketch FROM group_facet_keys WHERE (group_id, key) IN (`+
			tuples(len(part), "(?, ?)")+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("store: facet keys: %w", err)
		}
		for rows.Next() {
			var gk facetGK
			var sketch []byte
			k := &facetKeyRow{}
			if err := rows.Scan(&gk.group, &gk.key, &k.distinct, &sketch); err != nil {
				rows.Close()
				return nil, fmt.Errorf("store: facet keys: %w", err)
			}
			k.sketch = readSketch(sketch)
			out[gk] = k
		}
		if err := rows.Close(); err != nil {
			return nil, fmt.Errorf("store: facet keys: %w", err)
		}
	}
	return out, nil
}

// facetsExist reports which of the batch's values their groups already
// count.
func (c *Conn) facetsExist(ctx context.Context, counts []FacetCount) (map[facetGKV]bool, error) {
	out := make(map[facetGKV]bool, len(counts))
	for start := 0; start < len(counts); start += 300 {
		part := counts[start:min(start+300, len(counts))]
		args := make([]any, 0, 3*len(part))
		for _, fc := range part {
			args = append(args, fc.GroupID, fc.Key, fc.Value)
		}
		rows, err := c.query(ctx, `SELECT group_id, key, value FROM group_facets WHERE (group_id, key, value) IN (`+
			tuples(len(part), "(?, ?, ?)")+`)`, args...)
		if err != nil {
			return nil, fmt.Errorf("store: facets: %w", err)
		}
		for rows.Next() {
			var kv facetGKV
			if err := rows.Scan(&kv.group, &kv.key, &kv.value); err != nil {
				rows.Close()
				return nil, fmt.Errorf("store: facets: %w", err)
			}
			out[kv] = true
		}
		if err := rows.Close(); err != nil {
			return nil, fmt.Errorf("store: facets: %w", err)
		}
	}
	return out, nil
}

func (c *Conn) upsertFacets(ctx context.Context, order []facetGKV, sums map[facetGKV]int64) error {
	for start := 0; start < len(order); start += 250 {
		part := order[start:min(start+250, len(order))]
		args := make([]any, 0, 4*len(part))
		for _, kv := range part {
			args = append(args, kv.group, kv.key, kv.value, sums[kv])
		}
		if _, err := c.exec(ctx, `INSERT INTO group_facets (group_id, key, value, count) VALUES `+tuples(len(part), "(?, ?, ?, ?)")+
			` ON CONFLICT (group_id, key, value) DO UPDATE SET count = group_facets.count + excluded.count`, args...); err != nil {
			return fmt.Errorf("store: add facets: %w", err)
		}
	}
	return nil
}

// sketchUsers adds the user.id values past the cap to their group's
// sketch, seeding a new sketch with the values kept so far.
func (c *Conn) sketchUsers(ctx context.Context, keys facetKeyRows, newUsers map[string][]string) error {
	for group, users := range newUsers {
		k := keys[facetGK{group, UserKey}]
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

// writeFacetKeys writes the changed key rows and the user_count of the
// groups whose user.id gained values.
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
	step := 300
	if c.dialect != Postgres {
		step = 1 // SQLite: the cached one-row statement (addFacetsEach)
	}
	for start := 0; start < len(gks); start += step {
		part := gks[start:min(start+step, len(gks))]
		args := make([]any, 0, 4*len(part))
		for _, gk := range part {
			k := keys[gk]
			var sketch []byte
			if k.sketch != nil {
				b, err := k.sketch.MarshalBinary()
				if err != nil {
					return fmt.Errorf("store: users sketch: %w", err)
				}
				sketch = b
			}
			args = append(args, gk.group, gk.key, k.distinct, sketch)
		}
		if _, err := c.exec(ctx, `INSERT INTO group_facet_keys (group_id, key, distinct_values, sketch) VALUES `+tuples(len(part), "(?, ?, ?, ?)")+
			` ON CONFLICT (group_id, key) DO UPDATE SET distinct_values = excluded.distinct_values, sketch = excluded.sketch`, args...); err != nil {
			return fmt.Errorf("store: facet keys: %w", err)
		}
	}
	for _, gk := range gks {
		if gk.key != UserKey {
			continue
		}
		k := keys[gk]
		if _, err := c.exec(ctx, `UPDATE error_groups SET user_count = ? WHERE id = ?`, userCount(k), gk.group); err != nil {
			return fmt.Errorf("store: user count: %w", err)
		}
	}
	return nil
}

// userCount is the distinct user.id values of a key row: the kept values
// while under the cap, the sketch's estimate (never less than what is kept)
// past it.
func userCount(k *facetKeyRow) int64 {
	if k.sketch == nil {
		return k.distinct
	}
	return max(int64(k.sketch.Estimate()), k.distinct)
}

// FacetValue is a value of a key with its number of events.
type FacetValue struct {
	Value string
	Count int64
}

// Facet is a key's most frequent values in a group and the number of its
// events that carried the key (Total, FacetOther included).
type Facet struct {
	Key    string
	Total  int64
	Values []FacetValue
}

// GroupFacets returns, for each key in order, the group's top values,
// most events first (ties by value).
func (c *Conn) GroupFacets(ctx context.Context, groupID string, keys []string, top int) ([]Facet, error) {
	out := make([]Facet, 0, len(keys))
	for _, key := range keys {
		f := Facet{Key: key, Values: []FacetValue{}}
		if err := c.queryRow(ctx, `SELECT COALESCE(SUM(count), 0) FROM group_facets WHERE group_id = ? AND key = ?`, groupID, key).Scan(&f.Total); err != nil {
			return nil, fmt.Errorf("store: facets of %s: %w", groupID, err)
		}
		if f.Total > 0 {
			rows, err := c.query(ctx, `SELECT value, count FROM group_facets WHERE group_id = ? AND key = ? ORDER BY count DESC, value LIMIT ?`, groupID, key, top)
			if err != nil {
				return nil, fmt.Errorf("store: facets of %s: %w", groupID, err)
			}
			f.Values, err = collect(rows, func(s interface{ Scan(...any) error }) (FacetValue, error) {
				var v FacetValue
				return v, s.Scan(&v.Value, &v.Count)
			})
			if err != nil {
				return nil, err
			}
		}
		out = append(out, f)
	}
	return out, nil
}

// moveFacets adds a merged group's value counts to the target's, and its
// trace and event ids, then recounts the target's distinct values and
// users. Values past the cap are kept as they were: a merge can leave a key
// with more than MaxFacetValues values, which only stops new ones sooner.
func (c *Conn) moveFacets(ctx context.Context, fromID, toID string) error {
	steps := []struct {
		q    string
		args []any
	}{
		{`INSERT INTO group_facets (group_id, key, value, count) SELECT ?, key, value, count FROM group_facets WHERE group_id = ?
			ON CONFLICT (group_id, key, value) DO UPDATE SET count = group_facets.count + excluded.count`, []any{toID, fromID}},
		{`INSERT INTO group_facet_keys (group_id, key, distinct_values, sketch)
			SELECT ?, key, SUM(CASE WHEN value <> '` + FacetOther + `' THEN 1 ELSE 0 END), NULL FROM group_facets WHERE group_id = ? GROUP BY key
			ON CONFLICT (group_id, key) DO UPDATE SET distinct_values = excluded.distinct_values`, []any{toID, toID}},
		{`INSERT INTO event_refs (kind, ref, project_id, group_id, last_seen) SELECT kind, ref, project_id, ?, last_seen FROM event_refs WHERE group_id = ?
			ON CONFLICT (kind, ref, project_id, group_id) DO NOTHING`, []any{toID, fromID}},
	}
	for _, s := range steps {
		if _, err := c.exec(ctx, s.q, s.args...); err != nil {
			return fmt.Errorf("store: move facets: %w", err)
		}
	}
	for _, table := range []string{"group_facets", "group_facet_keys", "event_refs"} {
		if _, err := c.exec(ctx, `DELETE FROM `+table+` WHERE group_id = ?`, fromID); err != nil {
			return fmt.Errorf("store: move facets: %w", err)
		}
	}
	// The target's users: the larger of its own count (which a sketch may
	// hold past the cap) and the distinct user.id values it now keeps.
	_, err := c.exec(ctx, `UPDATE error_groups SET user_count = (SELECT MAX(n) FROM (SELECT user_count AS n FROM error_groups WHERE id = ?
		UNION ALL SELECT distinct_values FROM group_facet_keys WHERE group_id = ? AND key = ?) u) WHERE id = ?`, toID, toID, UserKey, toID)
	if err != nil {
		return fmt.Errorf("store: move facets: %w", err)
	}
	return nil
}
