package process

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// attrWalker reads an event's attributes, a JSON object stored valid by
// intake, member by member in document order without building maps: it
// runs for every error event, and decoding into maps was most of the value
// counts' preparing cost (BenchmarkFacets). Malformed input stops the walk
// and keeps what was read.
type attrWalker struct {
	s   []byte
	i   int
	bad bool
	// fields is how many values before the attributes' (environment,
	// release, service) the output held: they are not among the event's
	// maxFacetKeys attribute keys.
	fields int
}

func (w *attrWalker) space() {
	for w.i < len(w.s) {
		switch w.s[w.i] {
		case ' ', '\t', '\n', '\r':
			w.i++
		default:
			return
		}
	}
}

// peek returns the next byte after white space, 0 at the end.
func (w *attrWalker) peek() byte {
	w.space()
	if w.i >= len(w.s) {
		return 0
	}
	return w.s[w.i]
}

// expect consumes c, or marks the input bad.
func (w *attrWalker) expect(c byte) bool {
	if w.peek() != c {
		w.bad = true
		return false
	}
	w.i++
	return true
}

// str reads a string (at its opening quote), unescaped, in valid UTF-8.
func (w *attrWalker) str() string {
	start := w.i
	escaped := w.skipString()
	if w.bad {
		return ""
	}
	if raw := w.s[start+1 : w.i-1]; !escaped && utf8.Valid(raw) {
		return string(raw)
	}
	// encoding/json unescapes, and replaces invalid UTF-8 (which
	// PostgreSQL's text refuses) with U+FFFD.
	var s string
	if json.Unmarshal(w.s[start:w.i], &s) != nil {
		w.bad = true
	}
	return s
}

// skipString passes over a string (at its opening quote) without reading
// it, and reports whether it holds escapes.
func (w *attrWalker) skipString() (escaped bool) {
	for j := w.i + 1; j < len(w.s); j++ {
		switch w.s[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			w.i = j + 1
			return escaped
		}
	}
	w.bad = true
	return escaped
}

// skip passes over one value of any kind and returns its text.
func (w *attrWalker) skip() []byte {
	w.space()
	start, depth := w.i, 0
	for w.i < len(w.s) {
		switch c := w.s[w.i]; c {
		case '"':
			w.skipString()
			if w.bad {
				return nil
			}
			if depth == 0 {
				return w.s[start:w.i]
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return w.s[start:w.i]
			}
			depth--
			if depth == 0 {
				w.i++
				return w.s[start:w.i]
			}
		case ',', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return w.s[start:w.i]
			}
		}
		w.i++
	}
	if depth > 0 {
		w.bad = true
	}
	return w.s[start:w.i]
}

// attrFacets appends the scalar values of the object at w under prefix, at
// most maxFacetKeys of them (after w.fields values), as flatten describes; at depth 0 it also
// returns the attributes sentry.event_id (decoded) and user.id (as
// written).
func (w *attrWalker) attrFacets(out []facetKV, prefix string, depth int) (_ []facetKV, sdkID string, userID json.RawMessage) {
	if !w.expect('{') {
		return out, "", nil
	}
	if w.peek() == '}' {
		w.i++
		return out, "", nil
	}
	for !w.bad {
		if w.peek() != '"' {
			w.bad = true
			break
		}
		k := w.str()
		if !w.expect(':') {
			break
		}
		out, sdkID, userID = w.member(out, prefix, k, depth, sdkID, userID)
		if c := w.peek(); c == ',' {
			w.i++
			continue
		} else if c == '}' {
			w.i++
		} else {
			w.bad = true
		}
		break
	}
	return out, sdkID, userID
}

// member reads the value of key k and appends what it contributes: a
// non-empty string, a number or a boolean as written, an object's members
// under k (to depth 3); lists and null are not values one filters on.
func (w *attrWalker) member(out []facetKV, prefix, k string, depth int, sdkID string, userID json.RawMessage) ([]facetKV, string, json.RawMessage) {
	c := w.peek()
	if depth == 0 && k == "sentry.event_id" && c == '"' {
		return out, w.str(), userID
	}
	key := strings.TrimPrefix(prefix+k, "tags.")
	counted := len(out)-w.fields < maxFacetKeys && key != "" && len(key) <= 200 &&
		!(depth == 0 && (k == "fingerprint" || strings.HasPrefix(k, "sentry.") || k == "message_template"))
	start := w.i
	switch {
	case c == '{' && counted && depth < 3:
		out, _, _ = w.attrFacets(out, key+".", depth+1)
		return out, sdkID, userID
	case c == '"' && counted:
		if s := w.str(); s != "" && !w.bad {
			out = appendFacet(out, key, s)
		}
	default:
		v := w.skip()
		if counted && len(v) > 0 && v[0] != '{' && v[0] != '[' && v[0] != 'n' {
			out = appendFacet(out, key, string(v))
		}
	}
	if depth == 0 && k == userIDKey && c != '{' {
		userID = json.RawMessage(w.s[start:w.i])
	}
	return out, sdkID, userID
}
