// Package search parses the query language of the group, ticket and
// group-event lists (CONTRACT section 8, "Finding anything"): terms
// separated by spaces, all of which must hold. A term is a free word
// (matched against titles, culprits and messages), key:value,
// key:"a value", a negation !term, or a comparison key:>v, >=, <, <= for
// numbers and times. The store turns a parsed Query into parameterised SQL;
// this package never builds SQL and holds no state.
package search

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Kind is the list a query is for: it decides which keys are allowed.
type Kind uint8

// The lists that take a query.
const (
	Groups Kind = iota
	Tickets
	Events
)

// Op is a term's comparison.
type Op uint8

// The comparisons; Eq is key:value.
const (
	Eq Op = iota
	Gt
	Ge
	Lt
	Le
)

var opText = [...]string{"", ">", ">=", "<", "<="}

// String is the operator as typed ("" for Eq).
func (o Op) String() string { return opText[o] }

// Field is what a term's key names.
type Field uint8

// The fields. FieldAttribute is any key that is not built in: an event
// attribute, matched through the per-group value counts.
const (
	FieldWord Field = iota
	FieldAttribute
	FieldIs
	FieldAssigned
	FieldLevel
	FieldService
	FieldEnvironment
	FieldRelease
	FieldFirstSeen
	FieldLastSeen
	FieldTimestamp
	FieldEvents
	FieldUsers
	FieldHas
	FieldTraceID
	FieldSpanID
	FieldSeverity
	FieldReason
)

// Limits of one query: enough for any query a person types, small enough
// that the SQL made from it stays cheap.
const (
	MaxLen   = 1000
	MaxTerms = 20
)

// Term is one condition of a query.
type Term struct {
	// Text is the term as typed, for messages.
	Text   string
	Negate bool
	Field  Field
	// Key is the key as typed, lower-cased for built-in keys; "" for a
	// word. For FieldHas it is "has" and Value is the key asked about.
	Key   string
	Op    Op
	Value string
	// Num is the value of events:, users: and level: (an ingest level,
	// 1 debug … 5 fatal).
	Num int64
	// From and Until bound a time term: Op applies to From; an Eq time
	// term holds from From (inclusive) to Until (exclusive).
	From, Until time.Time
}

// Query is a parsed query; the zero Query matches everything.
type Query struct {
	Terms []Term
	// Me is the user id assigned:me means (the caller's; "" matches no one).
	Me   string
	text string
}

// Empty reports whether the query has no terms.
func (q Query) Empty() bool { return len(q.Terms) == 0 }

// String is the query as typed, trimmed: it names the query in cursor
// scopes (a cursor made for another query is refused).
func (q Query) String() string { return q.text }

// Error is a malformed query: the term and what is wrong with it.
type Error struct {
	Term, Reason string
}

// Error names the query parameter, the term and the reason.
func (e *Error) Error() string {
	if e.Term == "" {
		return "query: " + e.Reason
	}
	return "query: term '" + e.Term + "': " + e.Reason
}

// Parse parses a query for the list kind; relative times count back from
// now. A malformed query is an *Error.
func Parse(s string, kind Kind, now time.Time) (Query, error) {
	s = strings.TrimSpace(s)
	q := Query{text: s}
	if utf8.RuneCountInString(s) > MaxLen {
		return Query{}, &Error{Reason: fmt.Sprintf("longer than %d characters", MaxLen)}
	}
	for _, r := range s {
		if (r < 0x20 && r != '\t' && r != '\n') || (r >= 0x7f && r < 0xa0) {
			return Query{}, &Error{Reason: "control characters are not allowed"}
		}
	}
	raw, err := split(s)
	if err != nil {
		return Query{}, err
	}
	if len(raw) > MaxTerms {
		return Query{}, &Error{Reason: fmt.Sprintf("more than %d terms", MaxTerms)}
	}
	for _, r := range raw {
		t, err := parseTerm(r, kind, now)
		if err != nil {
			return Query{}, err
		}
		q.Terms = append(q.Terms, t)
	}
	return q, nil
}

// HexLower is v in lower case when it is a hexadecimal id (digits, a-f in
// either case, dashes), else v as it is: processing stores trace and span
// ids so, and TraceIDs looks them up so, whatever case they were sent or
// typed in.
func HexLower(v string) string {
	upper := false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case 'A' <= c && c <= 'F':
			upper = true
		case '0' <= c && c <= '9', 'a' <= c && c <= 'f', c == '-':
		default:
			return v
		}
	}
	if !upper {
		return v
	}
	return strings.ToLower(v)
}

// TraceIDs is the forms of a trace id a search looks for: the id as typed
// and, when it is hexadecimal with upper-case digits, in lower case too, as
// OpenTelemetry, W3C trace context and the Sentry SDKs write it (a trace id
// copied from a tool that shows it in upper case still finds its events).
func TraceIDs(v string) []string {
	if lower := HexLower(v); lower != v {
		return []string{v, lower}
	}
	return []string{v}
}
