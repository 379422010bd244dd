package search

import (
	"errors"
	"strings"
	"testing"
	"time"
)

var now = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)

func TestParseTerms(t *testing.T) {
	cases := []struct {
		in   string
		kind Kind
		want []Term
	}{
		{"", Groups, nil},
		{"  timeout  ", Groups, []Term{{Text: "timeout", Field: FieldWord, Value: "timeout"}}},
		{`"connection reset" db`, Groups, []Term{
			{Text: `"connection reset"`, Field: FieldWord, Value: "connection reset"},
			{Text: "db", Field: FieldWord, Value: "db"}}},
		{"!flaky", Groups, []Term{{Text: "!flaky", Negate: true, Field: FieldWord, Value: "flaky"}}},
		{"is:Unresolved", Groups, []Term{{Text: "is:Unresolved", Field: FieldIs, Key: "is", Value: "unresolved"}}},
		{"is:open", Tickets, []Term{{Text: "is:open", Field: FieldIs, Key: "is", Value: "open"}}},
		{`region:"eu west"`, Groups, []Term{{Text: `region:"eu west"`, Field: FieldAttribute, Key: "region", Value: "eu west"}}},
		{`msg:"say \"hi\" \\ ok"`, Groups, []Term{{Text: `msg:"say \"hi\" \\ ok"`, Field: FieldAttribute, Key: "msg", Value: `say "hi" \ ok`}}},
		{`title:""`, Groups, []Term{{Text: `title:""`, Field: FieldAttribute, Key: "title", Value: ""}}},
		{"!user.id:42", Groups, []Term{{Text: "!user.id:42", Negate: true, Field: FieldAttribute, Key: "user.id", Value: "42"}}},
		// An attribute compares as a number, the number written canonically.
		{"amount:>1e2", Groups, []Term{{Text: "amount:>1e2", Field: FieldAttribute, Key: "amount", Op: Gt, Value: "100"}}},
		{"http.status_code:<=-0.50", Events, []Term{{Text: "http.status_code:<=-0.50", Field: FieldAttribute, Key: "http.status_code", Op: Le, Value: "-0.5"}}},
		{"events:>=100", Groups, []Term{{Text: "events:>=100", Field: FieldEvents, Key: "events", Op: Ge, Value: "100", Num: 100}}},
		{"users:<5", Tickets, []Term{{Text: "users:<5", Field: FieldUsers, Key: "users", Op: Lt, Value: "5", Num: 5}}},
		{"level:>warning", Groups, []Term{{Text: "level:>warning", Field: FieldLevel, Key: "level", Op: Gt, Value: "warning", Num: 3}}},
		{"LEVEL:error", Events, []Term{{Text: "LEVEL:error", Field: FieldLevel, Key: "level", Value: "error", Num: 4}}},
		{"last_seen:-24h", Groups, []Term{{Text: "last_seen:-24h", Field: FieldLastSeen, Key: "last_seen", Op: Ge, Value: "-24h", From: now.Add(-24 * time.Hour)}}},
		{"first_seen:<-7d", Groups, []Term{{Text: "first_seen:<-7d", Field: FieldFirstSeen, Key: "first_seen", Op: Lt, Value: "-7d", From: now.Add(-7 * 24 * time.Hour)}}},
		{"first_seen:2026-11-01", Groups, []Term{{Text: "first_seen:2026-11-01", Field: FieldFirstSeen, Key: "first_seen", Value: "2026-11-01",
			From: time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), Until: time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)}}},
		{"first_seen:>2026-11-28t08:00:00z", Groups, []Term{{Text: "first_seen:>2026-11-28t08:00:00z", Field: FieldFirstSeen, Key: "first_seen", Op: Gt,
			Value: "2026-11-28t08:00:00z", From: time.Date(2026, 11, 28, 8, 0, 0, 0, time.UTC), Until: time.Date(2026, 11, 28, 8, 0, 0, 1e6, time.UTC)}}},
		{`last_seen:"2026-11-28 08:00:00Z"`, Groups, []Term{{Text: `last_seen:"2026-11-28 08:00:00Z"`, Field: FieldLastSeen, Key: "last_seen",
			Value: "2026-11-28 08:00:00Z", From: time.Date(2026, 11, 28, 8, 0, 0, 0, time.UTC), Until: time.Date(2026, 11, 28, 8, 0, 0, 1e6, time.UTC)}}},
		{"timestamp:>2026-11-28T09:00:00+01:00", Events, []Term{{Text: "timestamp:>2026-11-28T09:00:00+01:00", Field: FieldTimestamp, Key: "timestamp", Op: Gt,
			Value: "2026-11-28T09:00:00+01:00", From: time.Date(2026, 11, 28, 8, 0, 0, 0, time.UTC), Until: time.Date(2026, 11, 28, 8, 0, 0, 1e6, time.UTC)}}},
		{"has:user.id", Groups, []Term{{Text: "has:user.id", Field: FieldHas, Key: "has", Value: "user.id"}}},
		{"assigned:me assigned:Ada@Example.com", Groups, []Term{
			{Text: "assigned:me", Field: FieldAssigned, Key: "assigned", Value: "me"},
			{Text: "assigned:Ada@Example.com", Field: FieldAssigned, Key: "assigned", Value: "ada@example.com"}}},
		{"severity:High reason:regression", Tickets, []Term{
			{Text: "severity:High", Field: FieldSeverity, Key: "severity", Value: "high"},
			{Text: "reason:regression", Field: FieldReason, Key: "reason", Value: "regression"}}},
		// The keys of one list only are attributes on the others (CONTRACT
		// 8: "any other key is an event attribute").
		{"severity:P1 reason:disk-full span_id:abc", Groups, []Term{
			{Text: "severity:P1", Field: FieldAttribute, Key: "severity", Value: "P1"},
			{Text: "reason:disk-full", Field: FieldAttribute, Key: "reason", Value: "disk-full"},
			{Text: "span_id:abc", Field: FieldAttribute, Key: "span_id", Value: "abc"}}},
		{"severity:P1", Events, []Term{{Text: "severity:P1", Field: FieldAttribute, Key: "severity", Value: "P1"}}},
		{"trace_id:4bf92f3577b34da6 span_id:00f067aa", Events, []Term{
			{Text: "trace_id:4bf92f3577b34da6", Field: FieldTraceID, Key: "trace_id", Value: "4bf92f3577b34da6"},
			{Text: "span_id:00f067aa", Field: FieldSpanID, Key: "span_id", Value: "00f067aa"}}},
		{"url:http://x/y?a=b", Groups, []Term{{Text: "url:http://x/y?a=b", Field: FieldAttribute, Key: "url", Value: "http://x/y?a=b"}}},
	}
	for _, c := range cases {
		q, err := Parse(c.in, c.kind, now)
		if err != nil {
			t.Errorf("Parse(%q): %v", c.in, err)
			continue
		}
		if len(q.Terms) != len(c.want) {
			t.Errorf("Parse(%q) = %d terms %+v, want %d", c.in, len(q.Terms), q.Terms, len(c.want))
			continue
		}
		for i, got := range q.Terms {
			w := c.want[i]
			if got.Text != w.Text || got.Negate != w.Negate || got.Field != w.Field || got.Key != w.Key || got.Op != w.Op ||
				got.Value != w.Value || got.Num != w.Num || !got.From.Equal(w.From) || !got.Until.Equal(w.Until) {
				t.Errorf("Parse(%q) term %d = %+v, want %+v", c.in, i, got, w)
			}
		}
		if q.String() != strings.TrimSpace(c.in) || q.Empty() != (len(c.want) == 0) {
			t.Errorf("Parse(%q): String %q, Empty %v", c.in, q.String(), q.Empty())
		}
	}
}

func TestParseRefusesMalformedTerms(t *testing.T) {
	cases := []struct {
		in   string
		kind Kind
		term string // the term the error names
	}{
		{"ok is:", Groups, "is:"},
		{":value", Groups, ":value"},
		{"!", Groups, "!"},
		{"region:>eu", Groups, "region:>eu"},
		{"amount:>1e999", Groups, "amount:>1e999"},
		{"amount:>NaN", Events, "amount:>NaN"},
		{`ok ""`, Groups, `""`},
		{`!""`, Events, `!""`},
		{`region:"eu`, Groups, `region:"eu`},
		{`region:"eu"west`, Groups, `region:"eu"west`},
		{`ab"c`, Groups, `ab"c`},
		{"is:open", Groups, "is:open"},
		{"is:nothing", Tickets, "is:nothing"},
		{"level:loud", Groups, "level:loud"},
		{"events:many", Groups, "events:many"},
		{"events:-1", Groups, "events:-1"},
		{"users:>", Groups, "users:>"},
		{"last_seen:yesterday", Groups, "last_seen:yesterday"},
		{"last_seen:-5y", Groups, "last_seen:-5y"},
		{"first_seen:-99999999999999d", Groups, "first_seen:-99999999999999d"},
		{"region:>eu", Groups, "region:>eu"},
		{"service:>a", Groups, "service:>a"},
		{"severity:low", Tickets, "severity:low"},
		{"is:unresolved", Events, "is:unresolved"},
		{"events:5", Events, "events:5"},
		{"assigned:someone", Groups, "assigned:someone"},
		{"has:a,b", Groups, "has:a,b"},
		{"a,b:c", Groups, "a,b:c"},
		{"!!timeout", Groups, "!!timeout"},
		{"!!is:resolved", Groups, "!!is:resolved"},
		{`first_seen:>"2026-11-30 13:00:00Z" x`, Groups, `first_seen:>"2026-11-30 13:00:00Z"`},
	}
	for _, c := range cases {
		_, err := Parse(c.in, c.kind, now)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("Parse(%q) = %v, want an *Error", c.in, err)
			continue
		}
		if e.Term != c.term || !strings.HasPrefix(e.Error(), "query: ") || !strings.Contains(e.Error(), c.term) {
			t.Errorf("Parse(%q) error %q names term %q, want %q", c.in, e.Error(), e.Term, c.term)
		}
	}
}

func TestParseRefusesWholeQueries(t *testing.T) {
	for _, in := range []string{
		"a\x00b", "a\x1bb", "a\u0085b",
		strings.Repeat("x", MaxLen+1),
		strings.TrimSpace(strings.Repeat("w ", MaxTerms+1)),
	} {
		if _, err := Parse(in, Groups, now); err == nil || !strings.HasPrefix(err.Error(), "query: ") {
			t.Errorf("Parse(%.40q) = %v, want a query error", in, err)
		}
	}
	if _, err := Parse("a\tb\nc", Groups, now); err != nil {
		t.Errorf("tabs and newlines separate terms: %v", err)
	}
	if _, err := Parse(strings.Repeat("é", MaxLen), Groups, now); err != nil {
		t.Errorf("a query of %d two-byte characters: %v, want it allowed (the limit counts characters)", MaxLen, err)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "timeout", `region:"eu west"`, "!is:resolved", "events:>=10", "last_seen:-24h",
		`a:"\"`, `!"x y"`, "first_seen:2026-11-01", "has:user.id", "::", `"`, "!!a", "a:b:c", "level:<=warn", "assigned:a@b.c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, k := range []Kind{Groups, Tickets, Events} {
			q, err := Parse(s, k, now)
			if err != nil {
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("Parse(%q): error %T, want *Error", s, err)
				}
				continue
			}
			if len(q.Terms) > MaxTerms {
				t.Fatalf("Parse(%q): %d terms", s, len(q.Terms))
			}
			for _, term := range q.Terms {
				if term.Field != FieldWord && term.Key == "" {
					t.Fatalf("Parse(%q): keyed term without key: %+v", s, term)
				}
				if !strings.Contains(s, term.Text) {
					t.Fatalf("Parse(%q): term text %q is not in the query", s, term.Text)
				}
			}
			// Parsing is deterministic.
			again, _ := Parse(s, k, now)
			if len(again.Terms) != len(q.Terms) {
				t.Fatalf("Parse(%q) differs between calls", s)
			}
		}
	})
}

// TestQuoteReadsBack: a value written by Quote parses back as itself, an
// attribute's exact value.
func TestQuoteReadsBack(t *testing.T) {
	for _, v := range []string{"eu", "us west", `say "hi"`, `C:\dir`, ">5", "<b>", "a:b", "é é"} {
		q, err := Parse("region:"+Quote(v), Groups, now)
		if err != nil || len(q.Terms) != 1 || q.Terms[0].Value != v || q.Terms[0].Op != Eq {
			t.Errorf("Quote(%q) = %s: parsed %+v, %v", v, Quote(v), q.Terms, err)
		}
	}
}

// TestFieldNamesCompareAsAttributes: an API or Sentry field name that is
// not a key of the language (event_count, times_seen, count, user_count)
// is an event attribute, compared as any other (CONTRACT 8: "any other key
// is an event attribute"); an earlier version refused it with a hint.
func TestFieldNamesCompareAsAttributes(t *testing.T) {
	for _, in := range []string{"event_count:>1", "times_seen:>=10", "count:>2", "user_count:<5", "users_seen:>1"} {
		q, err := Parse(in, Groups, time.Now())
		if err != nil || len(q.Terms) != 1 || q.Terms[0].Field != FieldAttribute || q.Terms[0].Op == Eq {
			t.Errorf("Parse(%q) = %+v, %v, want an attribute comparison", in, q, err)
		}
		if _, err := Parse(in, Events, time.Now()); err != nil {
			t.Errorf("Parse(%q) on group events = %v, want an attribute comparison", in, err)
		}
	}
}

// TestSearchesAttribute: a facet's key:value link searches the attribute
// only for keys the language reads as that attribute.
func TestSearchesAttribute(t *testing.T) {
	for key, want := range map[string]bool{
		"region": true, "user.id": true, "environment": true, "release": true, "severity": true, "count": true,
		"is": false, "has": false, "events": false, "users": false, "first_seen": false, "assigned": false,
		"Release": false, "level": false, "trace_id": false, // the built-in fields, not these attributes
		"spaced key": false, "emoji🙂": false, "": false,
	} {
		if got := SearchesAttribute(key, Groups); got != want {
			t.Errorf("SearchesAttribute(%q, groups) = %v, want %v", key, got, want)
		}
	}
	if SearchesAttribute("severity", Tickets) {
		t.Error("severity on tickets is the ticket's severity, not an attribute")
	}
}
