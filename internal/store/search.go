package store

import (
	"strings"
	"unicode/utf8"

	"github.com/errata-dev/errata/internal/search"
)

// searchSQL turns a parsed query into SQL conditions, each " AND (…)", with
// their arguments. Keys, columns and operators come from constants; every
// value the caller typed is an argument. Conditions on a group's own
// columns are read from the row; attribute terms probe group_facets by its
// primary key (group, key, value), so a term costs one index look-up a
// candidate group.
type searchSQL struct {
	dialect Dialect
	// g is the group table's name or alias with its dot ("error_groups.",
	// "g."), t the ticket alias ("t." or "" outside ticket lists), e the
	// sample event alias ("e." for group events, else "").
	g, t, e string
	me      string // the user id of assigned:me
	b       strings.Builder
	args    []any
	// indexWord is the free word the group index finds (the longest one
	// not negated, whose trigrams narrow most); the others are rechecked on
	// the rows it finds. indexed is set once it is written.
	indexWord string
	indexed   bool
	// fts is set when the conditions hold a look-up in SQLite's full-text
	// index that finds the groups (words, not negated), which the query
	// should then be driven by (ListGroupsBy).
	fts bool
}

// where builds the conditions of q.
func (s *searchSQL) where(q search.Query) (string, []any) {
	s.me = q.Me
	if s.e == "" && driverOf(s.dialect).wordLookupDrivesList() {
		q.Terms = s.ftsWords(q.Terms)
	}
	for _, t := range q.Terms {
		if t.Field == search.FieldWord && !t.Negate && utf8.RuneCountInString(t.Value) > utf8.RuneCountInString(s.indexWord) {
			s.indexWord = t.Value
		}
	}
	for _, t := range q.Terms {
		s.b.WriteString(" AND ")
		// A negated term holds where its condition is false or unknown: an
		// event without the attribute is not region:eu (NOT of a NULL
		// would drop it).
		if t.Negate {
			s.b.WriteString("NOT COALESCE(")
		}
		s.b.WriteString("(")
		if s.e != "" {
			s.event(t)
		} else {
			s.group(t)
		}
		s.b.WriteString(")")
		if t.Negate {
			s.b.WriteString(", FALSE)")
		}
	}
	return s.b.String(), s.args
}

func (s *searchSQL) add(sql string, args ...any) {
	s.b.WriteString(sql)
	s.args = append(s.args, args...)
}

func contains(v string) string { return "%" + likeEscape(v) + "%" }

var opSQL = map[search.Op]string{search.Eq: " = ?", search.Gt: " > ?", search.Ge: " >= ?", search.Lt: " < ?", search.Le: " <= ?"}

// cmp compares col with v under the term's operator.
func (s *searchSQL) cmp(col string, op search.Op, v any) { s.add(col+opSQL[op], v) }

// when compares a time column (Unix ms) with a time term.
func (s *searchSQL) when(col string, t search.Term) {
	if t.Until.IsZero() { // a relative time: an instant
		s.cmp(col, t.Op, ms(t.From))
		return
	}
	// A date is its whole day, an instant its millisecond: > is after
	// it ends, <= up to its end (first_seen:<=2026-11-28 includes that
	// day), >= from its start, < before it.
	switch t.Op {
	case search.Eq:
		s.add(col+" >= ? AND "+col+" < ?", ms(t.From), ms(t.Until))
	case search.Gt:
		s.add(col+" >= ?", ms(t.Until))
	case search.Le:
		s.add(col+" < ?", ms(t.Until))
	default:
		s.cmp(col, t.Op, ms(t.From))
	}
}

// FacetKey is the key an attribute is counted under: a Sentry tag
// (tags.region) is the attribute region (CONTRACT 8).
func FacetKey(k string) string { return strings.TrimPrefix(k, "tags.") }

// facet is a probe of the group's value counts: key with value, or any
// value when value is nil.
func (s *searchSQL) facet(key string, value *string) {
	if value == nil {
		s.add("EXISTS (SELECT 1 FROM group_facets f WHERE f.group_id = "+s.g+"id AND f.key = ?)", FacetKey(key))
		return
	}
	// Driven by the (key, value, group_id) index: the few groups with the
	// value, not a probe of every group of the project. The value is cut
	// as processing cut it.
	v := *value
	if utf8.RuneCountInString(v) > MaxFacetValueRunes {
		v = string([]rune(v)[:MaxFacetValueRunes])
	}
	s.add(s.g+"id IN (SELECT f.group_id FROM group_facets f WHERE f.key = ? AND f.value = ?)", FacetKey(key), v)
}

// group writes the condition of one term on a group (and its ticket).
func (s *searchSQL) group(t search.Term) {
	g := s.g
	switch t.Field {
	case search.FieldWord:
		s.word(t.Value, t.Negate)
	case search.FieldIs:
		switch t.Value {
		case "open":
			s.add(s.t+"status = ?", TicketOpen)
		case "resolved":
			if s.t != "" {
				s.add(s.t+"status = ?", TicketResolved)
			} else {
				s.add(g+"status = ?", GroupResolved)
			}
		case "assigned", "unassigned":
			s.assignee(t)
		default:
			s.add(g+"status = ?", t.Value)
		}
	case search.FieldAssigned:
		s.assignee(t)
	case search.FieldLevel:
		s.cmp(g+"level", t.Op, t.Num)
	case search.FieldService:
		s.add(g+"service = ?", t.Value)
	case search.FieldEnvironment, search.FieldRelease:
		col, key := "environments", "environment"
		if t.Field == search.FieldRelease {
			col, key = "releases", "release"
		}
		// The group's list keeps its 20 most recent values; the counts
		// keep up to 1,000.
		s.add(driverOf(s.dialect).contains(g+col)+" OR ", mustJSON(t.Value)) // exactly, case and all
		s.facet(key, &t.Value)
	case search.FieldFirstSeen:
		s.when(g+"first_seen", t)
	case search.FieldLastSeen:
		s.when(g+"last_seen", t)
	case search.FieldEvents:
		s.cmp(g+"event_count", t.Op, t.Num)
	case search.FieldUsers:
		s.cmp(g+"user_count", t.Op, t.Num)
	case search.FieldHas:
		switch t.Value {
		case "environment":
			s.add(g + "environments <> '[]'")
		case "release":
			s.add(g + "releases <> '[]'")
		case "trace_id":
			s.add(g + "last_trace_id <> ''")
		default:
			s.facet(t.Value, nil)
		}
	case search.FieldTraceID:
		// Every error event's trace id is in event_refs (within
		// retention), not only the latest's and the stored samples'.
		ids := anys(search.TraceIDs(t.Value))
		in := tuples(len(ids), "?")
		args := append(append(append(append([]any{}, ids...), ids...), RefTrace), ids...)
		s.add(g+"last_trace_id IN ("+in+") OR EXISTS (SELECT 1 FROM group_events se WHERE se.group_id = "+g+"id AND se.trace_id IN ("+in+"))"+
			" OR "+g+"id IN (SELECT r.group_id FROM event_refs r WHERE r.kind = ? AND r.ref IN ("+in+"))", args...)
	case search.FieldSeverity:
		s.add(s.t+"severity = ?", t.Value)
	case search.FieldReason:
		s.add(s.t+"reason = ?", t.Value)
	default: // search.FieldAttribute
		if t.Op != search.Eq {
			s.facetNumber(t.Key, t.Op, t.Value)
			return
		}
		s.facet(t.Key, &t.Value)
	}
}

// facetNumber compares a key's counted values that are numbers with the
// number v (search.Parse wrote it): a group holds when one of them does.
// The (key, value, group_id) index gives the key's values of every group.
func (s *searchSQL) facetNumber(key string, op search.Op, v string) {
	num, args, param := driverOf(s.dialect).number("f.value", nil)
	s.add(s.g+"id IN (SELECT f.group_id FROM group_facets f WHERE f.key = ? AND "+num+opCmp[op]+param+")", append(append([]any{FacetKey(key)}, args...), v)...)
}

// opCmp is the SQL operator of a comparison.
var opCmp = map[search.Op]string{search.Gt: " > ", search.Ge: " >= ", search.Lt: " < ", search.Le: " <= "}

// ftsWords writes the one condition of the free words of terms that SQLite's
// full-text index answers (not negated, at least ftsMinRunes long): its
// phrases joined by AND, all in one look-up. It returns the other terms.
func (s *searchSQL) ftsWords(terms []search.Term) []search.Term {
	var phrases []string
	rest := terms[:0:0]
	for _, t := range terms {
		if t.Field == search.FieldWord && !t.Negate && utf8.RuneCountInString(t.Value) >= ftsMinRunes {
			phrases = append(phrases, ftsPhrase(t.Value))
			continue
		}
		rest = append(rest, t)
	}
	if len(phrases) > 0 {
		s.fts = true
		s.add(" AND "+s.g+"rowid IN (SELECT rowid FROM group_search WHERE group_search MATCH ?)", strings.Join(phrases, " AND "))
	}
	return rest
}

// ftsMinRunes is the shortest word the SQLite trigram index can find: a
// shorter one has no trigram.
const ftsMinRunes = 3

// word is the condition of a free word on a group: its title, culprit or
// latest sample message contains w, any case. The group's own columns only:
// reading every stored sample of every group of the project would not stay
// within the speed target (docs/performance.md). Both databases answer it
// from a trigram index (migration 00052): PostgreSQL's pg_trgm index of the
// three columns joined by U+001F (no query holds a control character, so
// no word spans two columns), rechecked by ILIKE; SQLite's FTS5 trigram
// index, whose phrase of w's trigrams is exactly "contains w, any case"
// (ftsWords; a negated word is a look-up here). On PostgreSQL one word
// (indexWord) is taken from the index and the others rechecked on its rows.
// Words too short for a trigram scan the columns with LIKE.
func (s *searchSQL) word(w string, negated bool) {
	g := s.g
	recheck := negated || s.indexed || w != s.indexWord
	if cond, arg, ok := driverOf(s.dialect).groupWord(g, w, recheck); ok {
		s.indexed = s.indexed || !recheck
		s.add(cond, arg)
		return
	}
	s.foldContains(w, g+"title", g+"culprit", g+"search_message")
}

// foldContains asks that one of cols contains w, ignoring case.
func (s *searchSQL) foldContains(w string, cols ...string) {
	for i, col := range cols {
		if i > 0 {
			s.b.WriteString(" OR ")
		}
		cond, arg := driverOf(s.dialect).foldContains(col, w)
		s.add(cond, arg)
	}
}

// ftsPhrase is w as one FTS5 string (a phrase): in double quotes, its own
// double quotes doubled, so no character of w is query syntax.
func ftsPhrase(w string) string { return `"` + strings.ReplaceAll(w, `"`, `""`) + `"` }

// assignee is the condition of is:assigned, is:unassigned and assigned:
// (me, none or a member's email, compared without case). COALESCE keeps
// a negation true for unassigned groups (NOT of NULL is not true).
func (s *searchSQL) assignee(t search.Term) {
	col := s.g + "assignee_id"
	switch {
	case t.Field == search.FieldIs && t.Value == "assigned":
		s.b.WriteString(col + " IS NOT NULL")
	case t.Value == "unassigned" || t.Value == "none":
		s.b.WriteString(col + " IS NULL")
	case t.Value == "me":
		s.add("COALESCE("+col+", '') IN (SELECT am.id FROM members am WHERE am.user_id = ?)", s.me)
	default:
		s.add("COALESCE("+col+", '') IN (SELECT am.id FROM members am JOIN users au ON au.id = am.user_id WHERE lower(au.email) = ?)", strings.ToLower(t.Value))
	}
}

// event writes the condition of one term on a stored sample event.
func (s *searchSQL) event(t search.Term) {
	e := s.e
	switch t.Field {
	case search.FieldWord:
		s.foldContains(t.Value, e+"message", e+"stack_trace")
	case search.FieldLevel:
		s.cmp(e+"level", t.Op, t.Num)
	case search.FieldService:
		s.add("EXISTS (SELECT 1 FROM error_groups sg WHERE sg.id = "+e+"group_id AND sg.service = ?)", t.Value)
	case search.FieldEnvironment:
		s.add(e+"environment = ?", t.Value)
	case search.FieldRelease:
		s.add(e+"release = ?", t.Value)
	case search.FieldTraceID:
		ids := anys(search.TraceIDs(t.Value))
		s.add(e+"trace_id IN ("+tuples(len(ids), "?")+")", ids...)
	case search.FieldSpanID:
		ids := anys(search.TraceIDs(t.Value))
		s.add(e+"span_id IN ("+tuples(len(ids), "?")+")", ids...)
	case search.FieldTimestamp:
		s.when(e+"timestamp", t)
	case search.FieldHas:
		switch t.Value {
		case "environment", "release", "trace_id", "span_id":
			s.add(e + t.Value + " <> ''")
		default:
			s.attribute(t.Value, nil)
		}
	default: // search.FieldAttribute
		if t.Op != search.Eq {
			s.attributeNumber(t.Key, t.Op, t.Value)
			return
		}
		s.attribute(t.Key, &t.Value)
	}
}

// attributeNumber compares an event's attribute, where it is a number (a
// JSON number, or a string of one), with the number v, at the places
// attribute looks.
func (s *searchSQL) attributeNumber(key string, op search.Op, v string) {
	d := driverOf(s.dialect)
	for i, p := range attributePaths(key) {
		if i > 0 {
			s.b.WriteString(" OR ")
		}
		expr, args := d.jsonText(s.e+"attributes", p)
		num, numArgs, param := d.number(expr, args)
		s.add(num+opCmp[op]+param, append(numArgs, v)...)
	}
}

// attribute compares an event's attribute with value (or asks that it is
// there, value nil): the key flat ("user.id": 42), as a Sentry tag
// ("tags.user.id") or nested ({"user": {"id": 42}}). Keys are letters,
// digits and . _ - / @ (search.Parse), so they quote safely in a path.
func (s *searchSQL) attribute(key string, value *string) {
	for i, p := range attributePaths(key) {
		if i > 0 {
			s.b.WriteString(" OR ")
		}
		s.attrPath(p, value)
	}
	if k := FacetKey(key); k == "browser" || k == "os" {
		// Derived from the user agent by processing when the event had
		// none (ingest.Agent).
		s.b.WriteString(" OR ")
		s.jsonPath("NULLIF("+s.e+"detail, '')", []string{"agent", k}, value) // "" is no detail
	}
}

// attributePaths are the places of an event's attributes where key may
// be: flat ("user.id": 42), as a Sentry tag ("tags.user.id") and, for a
// dotted key, nested ({"user": {"id": 42}}).
func attributePaths(key string) [][]string {
	paths := [][]string{{key}, {"tags." + FacetKey(key)}}
	if nested := strings.Split(FacetKey(key), "."); len(nested) > 1 {
		paths = append(paths, nested)
	}
	return paths
}

func (s *searchSQL) attrPath(path []string, value *string) {
	s.jsonPath(s.e+"attributes", path, value)
}

// jsonPath compares the text at path of the JSON column col with value (or
// asks that it is there, value nil).
func (s *searchSQL) jsonPath(col string, path []string, value *string) {
	expr, args := driverOf(s.dialect).jsonText(col, path)
	if value == nil {
		s.add(expr+" IS NOT NULL", args...)
		return
	}
	s.add(expr+" = ?", append(args, *value)...)
}
