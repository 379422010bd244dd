package search

import (
	"fmt"
	"math"
	"net/mail"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/errata-dev/errata/internal/ingest"
)

// rawTerm is a term split from the query but not yet understood.
type rawTerm struct {
	text   string // as typed
	negate bool
	key    string // "" for a word
	hasKey bool
	value  string // unquoted
	quoted bool
}

// split cuts a query into terms at spaces outside double quotes. Inside
// quotes, \" and \\ stand for " and \.
func split(s string) ([]rawTerm, error) {
	var out []rawTerm
	i := 0
	for i < len(s) {
		if isSpace(s[i]) {
			i++
			continue
		}
		start := i
		var t rawTerm
		if s[i] == '!' {
			t.negate = true
			i++
			if i < len(s) && s[i] == '!' {
				return nil, &Error{Term: word(s, start), Reason: "negate a term once: one ! before it"}
			}
		}
		// A key is what comes before the first colon, if that colon
		// comes before any quote or space.
		j := i
		for j < len(s) && !isSpace(s[j]) && s[j] != ':' && s[j] != '"' {
			j++
		}
		if j < len(s) && s[j] == ':' {
			t.key, t.hasKey = s[i:j], true
			if t.key == "" {
				return nil, &Error{Term: word(s, start), Reason: "a key is missing before the colon"}
			}
			j++
		} else {
			j = i
		}
		if j < len(s) && s[j] == '"' {
			v, end, err := unquote(s, j)
			if err != nil {
				return nil, &Error{Term: s[start:], Reason: err.Error()}
			}
			if end < len(s) && !isSpace(s[end]) {
				return nil, &Error{Term: word(s, start), Reason: "a closing quote must end the term"}
			}
			t.value, t.quoted, i = v, true, end
		} else {
			end := j
			for end < len(s) && !isSpace(s[end]) {
				if s[end] == '"' {
					if t.hasKey && end > j && strings.Trim(s[j:end], "<>=") == "" {
						term := word(s, start)
						if _, qend, err := unquote(s, end); err == nil {
							term = s[start:qend]
						}
						return nil, &Error{Term: term, Reason: "a comparison's value is not quoted: write it without quotes and without spaces (a time as 2026-11-30T13:00:00Z)"}
					}
					return nil, &Error{Term: word(s, start), Reason: "a quote may only open a value"}
				}
				end++
			}
			t.value, i = s[j:end], end
		}
		t.text = s[start:i]
		if t.value == "" && t.quoted && !t.hasKey {
			return nil, &Error{Term: t.text, Reason: "an empty phrase: put the words to find between the quotes"}
		}
		if t.value == "" && !t.quoted {
			if t.hasKey {
				return nil, &Error{Term: t.text, Reason: "no value after the colon"}
			}
			return nil, &Error{Term: t.text, Reason: "nothing to negate"}
		}
		out = append(out, t)
	}
	return out, nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' }

// word is the text from start to the next space, for messages.
func word(s string, start int) string {
	end := start
	for end < len(s) && !isSpace(s[end]) {
		end++
	}
	return s[start:end]
}

// Quote writes v as a term's value: bare when it holds no space, quote or
// backslash and does not begin as a comparison, else in double quotes with
// its quotes and backslashes escaped (what unquote reads back).
func Quote(v string) string {
	if v != "" && !strings.ContainsAny(v, " \t\n\"\\") && v[0] != '<' && v[0] != '>' {
		return v
	}
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v) + `"`
}

// unquote reads a double-quoted string starting at s[i] and returns it
// and the index after its closing quote.
func unquote(s string, i int) (string, int, error) {
	var b strings.Builder
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			if j+1 < len(s) && (s[j+1] == '"' || s[j+1] == '\\') {
				b.WriteByte(s[j+1])
				j++
				continue
			}
			b.WriteByte('\\')
		case '"':
			return b.String(), j + 1, nil
		default:
			b.WriteByte(s[j])
		}
	}
	return "", 0, fmt.Errorf("the quote is not closed")
}

// builtin maps the built-in keys to their fields and the lists that take
// them; any other key is an attribute.
var builtin = map[string]struct {
	field Field
	kinds []Kind
}{
	"is":          {FieldIs, []Kind{Groups, Tickets}},
	"assigned":    {FieldAssigned, []Kind{Groups, Tickets}},
	"level":       {FieldLevel, []Kind{Groups, Tickets, Events}},
	"service":     {FieldService, []Kind{Groups, Tickets, Events}},
	"environment": {FieldEnvironment, []Kind{Groups, Tickets, Events}},
	"release":     {FieldRelease, []Kind{Groups, Tickets, Events}},
	"first_seen":  {FieldFirstSeen, []Kind{Groups, Tickets}},
	"last_seen":   {FieldLastSeen, []Kind{Groups, Tickets}},
	"timestamp":   {FieldTimestamp, []Kind{Events}},
	"events":      {FieldEvents, []Kind{Groups, Tickets}},
	"users":       {FieldUsers, []Kind{Groups, Tickets}},
	"has":         {FieldHas, []Kind{Groups, Tickets, Events}},
	"trace_id":    {FieldTraceID, []Kind{Groups, Tickets, Events}},
	"span_id":     {FieldSpanID, []Kind{Events}},
	"severity":    {FieldSeverity, []Kind{Tickets}},
	"reason":      {FieldReason, []Kind{Tickets}},
}

var kindNames = [...]string{"groups", "tickets", "group events"}

// listOwn are the built-in keys of one list only, which the other lists
// read as attributes.
var listOwn = map[string]bool{"severity": true, "reason": true, "timestamp": true, "span_id": true}

// isValues are the is: values of each list.
var isValues = map[Kind][]string{
	Groups:  {"unresolved", "resolved", "ignored", "assigned", "unassigned"},
	Tickets: {"open", "resolved", "unresolved", "ignored", "assigned", "unassigned"},
}

func parseTerm(r rawTerm, kind Kind, now time.Time) (Term, error) {
	t := Term{Text: r.text, Negate: r.negate, Value: r.value}
	bad := func(format string, args ...any) (Term, error) {
		return Term{}, &Error{Term: r.text, Reason: fmt.Sprintf(format, args...)}
	}
	if !r.hasKey {
		t.Field = FieldWord
		return t, nil
	}
	if !ValidKey(r.key) {
		return bad("a key is letters, digits and . _ - / @ (quote the whole term's value, not the key)")
	}
	// The operator, if any, opens an unquoted value.
	if !r.quoted {
		for _, op := range []Op{Ge, Le, Gt, Lt} {
			if strings.HasPrefix(t.Value, op.String()) {
				t.Op, t.Value = op, t.Value[len(op.String()):]
				break
			}
		}
		if t.Value == "" {
			return bad("no value after %q", t.Op.String())
		}
	}
	b, ok := builtin[strings.ToLower(r.key)]
	// CONTRACT 8 lists severity: and reason: for tickets only, and
	// timestamp: and span_id: not at all (the group events' own): on the
	// other lists they are attributes, like any key not listed.
	if ok && !containsKind(b.kinds, kind) && listOwn[strings.ToLower(r.key)] {
		ok = false
	}
	if !ok {
		t.Field, t.Key = FieldAttribute, r.key
		if t.Op != Eq {
			// An attribute compares as a number: its values that are
			// numbers (as written: 12, -3.5, 1e3) are compared.
			n, err := strconv.ParseFloat(t.Value, 64)
			if err != nil || math.IsInf(n, 0) || math.IsNaN(n) {
				return bad("%s: a comparison of an attribute takes a number (%s:%s100)", r.key, r.key, t.Op.String())
			}
			t.Value = strconv.FormatFloat(n, 'g', -1, 64)
		}
		return t, nil
	}
	t.Field, t.Key = b.field, strings.ToLower(r.key)
	if !containsKind(b.kinds, kind) {
		return bad("%s: is not a key of %s", t.Key, kindNames[kind])
	}
	if reason := checkValue(&t, kind, now); reason != "" {
		return Term{}, &Error{Term: r.text, Reason: reason}
	}
	return t, nil
}

// checkValue checks (and normalises) the value of a term of a built-in key
// for the list kind; it returns why the value is not valid, "" when it is.
func checkValue(t *Term, kind Kind, now time.Time) string {
	switch t.Field {
	case FieldLevel:
		l, ok := ingest.ParseLevel(t.Value)
		if !ok {
			return "not a level (debug, info, warn, error, fatal)"
		}
		t.Num = int64(l)
		return ""
	case FieldEvents, FieldUsers:
		n, err := strconv.ParseInt(t.Value, 10, 64)
		if err != nil || n < 0 {
			return fmt.Sprintf("%s: takes a whole number, optionally after > >= < <=", t.Key)
		}
		t.Num = n
		return ""
	case FieldFirstSeen, FieldLastSeen, FieldTimestamp:
		if err := parseTime(t, now); err != nil {
			return err.Error()
		}
		return ""
	}
	if t.Op != Eq {
		return fmt.Sprintf("%s: takes no comparison", t.Key)
	}
	switch t.Field {
	case FieldIs:
		t.Value = strings.ToLower(t.Value)
		if !containsString(isValues[kind], t.Value) {
			return fmt.Sprintf("is: takes %s", strings.Join(isValues[kind], ", "))
		}
	case FieldAssigned:
		t.Value = strings.ToLower(t.Value)
		if t.Value != "me" && t.Value != "none" {
			if _, err := mail.ParseAddress(t.Value); err != nil || strings.ContainsAny(t.Value, "<> ") {
				return "assigned: takes me, none or a member's email"
			}
		}
	case FieldSeverity:
		t.Value = strings.ToLower(t.Value)
		if !containsString([]string{"critical", "high", "medium"}, t.Value) {
			return "severity: takes critical, high or medium"
		}
	case FieldReason:
		t.Value = strings.ToLower(t.Value)
		if !containsString(TicketReasons, t.Value) {
			return "reason: takes " + strings.Join(TicketReasons, ", ")
		}
	case FieldHas:
		if !ValidKey(t.Value) {
			return "has: takes a key"
		}
	}
	return ""
}

// TicketReasons are the reasons a ticket is opened or closed for: those of
// store (new, regression, spike, merged) and tickets (unignored), which
// this package cannot import; a test of tickets keeps them in step. A
// reason: term names one of them (422 otherwise), as severity: does.
var TicketReasons = []string{"new", "regression", "spike", "unignored", "merged"}

// ValidKey reports whether k is a key a query can name: letters, digits
// and . _ - / @, at most 200 characters.
func ValidKey(k string) bool {
	if k == "" || len(k) > 200 {
		return false
	}
	for _, c := range k {
		// Letters and digits of any script (région, 地域): none is a quote,
		// a backslash or a separator of a JSON path or an array literal.
		ok := c == '.' || c == '_' || c == '-' || c == '/' || c == '@' || unicode.IsLetter(c) || unicode.IsDigit(c)
		if !ok {
			return false
		}
	}
	return true
}

// sameAsAttribute are the built-in keys that search what the values counted
// under the same name are: the event's own environment, release and
// service. A level or trace_id counted is an attribute of its own (a
// structured log's level), which level: and trace_id: do not search.
var sameAsAttribute = map[string]bool{"service": true, "environment": true, "release": true}

// SearchesAttribute reports whether key:value in a query of kind searches
// the events' values of attribute key (a facet's link): a key the language
// can name that is no built-in key of that list with another meaning
// (is:, has:, events:… are).
func SearchesAttribute(key string, kind Kind) bool {
	if !ValidKey(key) {
		return false
	}
	k := strings.ToLower(key)
	b, ok := builtin[k]
	return !ok || sameAsAttribute[key] || listOwn[k] && !containsKind(b.kinds, kind)
}

func containsKind(ks []Kind, k Kind) bool {
	for _, x := range ks {
		if x == k {
			return true
		}
	}
	return false
}

func containsString(vs []string, v string) bool {
	for _, x := range vs {
		if x == v {
			return true
		}
	}
	return false
}
