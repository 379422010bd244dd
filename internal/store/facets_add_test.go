package store

import (
	"fmt"
	"reflect"
	"testing"
	"time"
)

// TestFacetStatementsCached: the multi-row statements of the value counts,
// event ids and the groups processing reads stay short enough for SQLite's statement cache, so that a
// full chunk is parsed once, not in every transaction.
func TestFacetStatementsCached(t *testing.T) {
	for name, q := range map[string]string{
		"group_facets":     facetUpsert(facetRows),
		"group_facet_keys": facetKeysUpsert(facetRows),
		"event_refs":       refsUpsert(facetRows),
		"keys read":        facetKeysRead(facetRows),
		"groups by keys":   groupsByKeysRead(facetRows) + (postgresDriver{}).rowLock(),
		"info templates":   infoTemplatesUpsert(facetRows),
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

// TestPendingSetRoundTrip: a set decodes to what was encoded, repeated
// and empty strings included, and a set cut short is refused.
func TestPendingSetRoundTrip(t *testing.T) {
	at := time.UnixMilli(1700000000123).UTC()
	in := pendingSet{
		counts: []FacetCount{{"g1", "", "", 1}, {"g1", "region", "eu", 3}, {"g1", "region", "us", 1}, {"g2", "region", "eu", 7}, {"g2", "eu", "region", -1}, {"", "g1", "", 2}},
		refs: []EventRef{{Kind: RefTrace, Ref: "abc", ProjectID: "p", GroupID: "g1", LastSeen: at},
			{Kind: RefEvent, Ref: "abc", ProjectID: "p", GroupID: "g2", LastSeen: at}, {Kind: RefTrace, Ref: "", ProjectID: "", GroupID: "", LastSeen: at}},
	}
	data := in.encode()
	var out pendingSet
	if err := out.decode(data); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out, in) {
		t.Fatalf("decoded %+v, want %+v", out, in)
	}
	for n := 1; n < len(data); n++ {
		var cut pendingSet
		if err := cut.decode(data[:n]); err == nil {
			t.Fatalf("a set cut to %d of %d bytes decoded: %+v", n, len(data), cut)
		}
	}
}
