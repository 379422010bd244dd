package store

import (
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/search"
)

// TestSearchOneIndexWord checks that a PostgreSQL group query takes one free
// word, its longest, from the trigram index and rechecks the others on the
// rows it finds: with every word an index condition the planner intersected
// GIN scans of words that come together, a combined query's p95 going from
// 45 to 224 ms (docs/performance.md).
func TestSearchOneIndexWord(t *testing.T) {
	const index = "(g.title || E'\\x1f' || g.culprit || E'\\x1f' || g.search_message) ILIKE ?"
	const recheck = "(g.title || E'\\x1f' || g.culprit || E'\\x1f' || g.search_message || '') ILIKE ?"
	for _, tc := range []struct {
		query    string
		indexArg string // the word looked up in the index, "" for none
		rechecks int
	}{
		{"timeout", "%timeout%", 0},
		{"payment timeout service:checkout", "%payment%", 1},
		{"db timeout payments", "%payments%", 2},
		{"!payments timeout", "%timeout%", 1},
		{"!payment", "", 1},
		{"timeout timeout", "%timeout%", 1},
	} {
		q, err := search.Parse(tc.query, search.Groups, time.Now())
		if err != nil {
			t.Fatalf("%q: %v", tc.query, err)
		}
		s := searchSQL{dialect: Postgres, g: "g."}
		sql, args := s.where(q)
		if got := strings.Count(sql, recheck); got != tc.rechecks {
			t.Errorf("%q: %d rechecked words, want %d:\n%s", tc.query, got, tc.rechecks, sql)
		}
		at := strings.Index(sql, index)
		if tc.indexArg == "" {
			if at >= 0 {
				t.Errorf("%q: an index look-up, want none:\n%s", tc.query, sql)
			}
			continue
		}
		if at < 0 || strings.Count(sql, index) != 1 {
			t.Fatalf("%q: want exactly one index look-up:\n%s", tc.query, sql)
		}
		if arg := args[strings.Count(sql[:at], "?")]; arg != tc.indexArg {
			t.Errorf("%q: the index looks up %v, want %s", tc.query, arg, tc.indexArg)
		}
	}
}
