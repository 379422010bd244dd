package store

import "testing"

// TestFacetStatementsCached: the multi-row statements of the value counts
// and event ids stay short enough for SQLite's statement cache, so that a
// full chunk is parsed once, not in every transaction.
func TestFacetStatementsCached(t *testing.T) {
	for name, q := range map[string]string{
		"group_facets":     facetUpsert(facetRows),
		"group_facet_keys": facetKeysUpsert(facetRows),
		"event_refs":       refsUpsert(facetRows),
		"keys read":        facetKeysRead(4 * facetRows),
	} {
		if len(q) > maxCachedQuery {
			t.Errorf("%s: %d rows make %d characters, over maxCachedQuery (%d)", name, facetRows, len(q), maxCachedQuery)
		}
	}
}
