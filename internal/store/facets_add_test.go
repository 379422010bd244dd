package store

import (
	"fmt"
	"testing"
)

// TestFacetStatementsCached: the multi-row statements of the value counts
// and event ids stay short enough for SQLite's statement cache, so that a
// full chunk is parsed once, not in every transaction.
func TestFacetStatementsCached(t *testing.T) {
	for name, q := range map[string]string{
		"group_facets":     facetUpsert(facetRows),
		"group_facet_keys": facetKeysUpsert(facetRows),
		"event_refs":       refsUpsert(facetRows),
		"keys read":        facetKeysRead(facetRows),
	} {
		if len(q) > maxCachedQuery {
			t.Errorf("%s: %d rows make %d characters, over maxCachedQuery (%d)", name, facetRows, len(q), maxCachedQuery)
		}
	}
}

// TestChunkRows: rows are written in full statements, then in powers of two,
// every row once.
func TestChunkRows(t *testing.T) {
	for _, c := range []struct {
		rows int
		want []int
	}{{0, nil}, {1, []int{1}}, {100, []int{100}}, {317, []int{100, 100, 100, 16, 1}}, {99, []int{64, 32, 2, 1}}} {
		var got []int
		for left := c.rows; left > 0; left -= got[len(got)-1] {
			got = append(got, chunkRows(left))
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%d rows: statements of %v, want %v", c.rows, got, c.want)
		}
	}
}
