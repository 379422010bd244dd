package store

import (
	"context"
	"fmt"

	"github.com/axiomhq/hyperloglog"
)

// Bounds of the per-group value counts (CONTRACT 8).
const (
	// MaxFacetValues is how many distinct values of a key a group keeps;
	// later new values are counted under FacetOther.
	MaxFacetValues = 1000
	// MaxFacetValueRunes is the characters of a value the counts keep:
	// processing cuts longer ones, and a key:value term cuts its value the
	// same way, so that it finds them.
	MaxFacetValueRunes = 200
	// FacetOther is the value the values past MaxFacetValues count under.
	FacetOther = "(other)"
	// UserKey is the attribute whose distinct values are a group's users.
	UserKey = "user.id"
)

// DefaultFacetKeys are the keys a group's facets show unless others are
// asked for (CONTRACT 8): the API's GET /v1/groups/{group_id}/facets and the
// dashboard's group page.
var DefaultFacetKeys = []string{"environment", "release", "service", "user.id", "browser", "os", "request.url", "server_name"}

// FacetCount is n events of a group that carried value under key.
type FacetCount struct {
	GroupID, Key, Value string
	N                   int64
}

type facetGK struct{ group, key string }

type facetGKV struct{ group, key, value string }

// facetKeyRow is a group's row of group_facet_keys as read or to be
// written: its sketch as stored (raw) until a value past the cap needs it
// decoded (sketch).
type facetKeyRow struct {
	distinct int64
	raw      []byte
	sketch   *hyperloglog.Sketch
	changed  bool
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

// userCount is the distinct user.id values of a key row: the kept values
// while under the cap, the sketch's estimate (never less than what is kept)
// past it.
func userCount(k *facetKeyRow) int64 {
	if k.sketch == nil && k.raw != nil {
		k.sketch = readSketch(k.raw)
	}
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

// FacetKeys lists the keys whose values group groupID counts, in order,
// at most limit.
func (c *Conn) FacetKeys(ctx context.Context, groupID string, limit int) ([]string, error) {
	rows, err := c.query(ctx, `SELECT key FROM group_facet_keys WHERE group_id = ? ORDER BY key LIMIT ?`, groupID, limit)
	if err != nil {
		return nil, fmt.Errorf("store: facet keys of %s: %w", groupID, err)
	}
	return collect(rows, func(s interface{ Scan(...any) error }) (string, error) {
		var k string
		return k, s.Scan(&k)
	})
}

// ProjectFacetKeys lists the keys whose values the project's newest
// groups count (the recentGroups made last), in order, at most limit: the
// dashboard's search box suggests them. The newest by id, not by last
// seen: the groups are read through the (project_id, id) index, a bounded
// read on a project of any size (an index on last_seen would be written
// by every processed batch).
func (c *Conn) ProjectFacetKeys(ctx context.Context, projectID string, recentGroups, limit int) ([]string, error) {
	rows, err := c.query(ctx, `SELECT DISTINCT k.key FROM group_facet_keys k
		WHERE k.group_id IN (SELECT id FROM error_groups WHERE project_id = ? ORDER BY id DESC LIMIT ?)
		ORDER BY k.key LIMIT ?`, projectID, recentGroups, limit)
	if err != nil {
		return nil, fmt.Errorf("store: facet keys of project %s: %w", projectID, err)
	}
	return collect(rows, func(s interface{ Scan(...any) error }) (string, error) {
		var k string
		return k, s.Scan(&k)
	})
}

// moveFacets adds a merged group's value counts to the target's, and its
// trace and event ids, then recounts the target's distinct values and
// users. Values past the cap are kept as they were: a merge can leave a key
// with more than MaxFacetValues values, which only stops new ones sooner.
func (c *Conn) moveFacets(ctx context.Context, fromID, toID string) error {
	if err := c.foldGroups(ctx, fromID, toID); err != nil {
		return err
	}
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
	// The merged group's users went with its counts, as its events did.
	if _, err := c.exec(ctx, `UPDATE error_groups SET user_count = 0 WHERE id = ?`, fromID); err != nil {
		return fmt.Errorf("store: move facets: %w", err)
	}
	return nil
}
