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
	start, escaped := w.i, false
	for j := w.i + 1; j < len(w.s); j++ {
		switch w.s[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			w.i = j + 1
			if raw := w.s[start+1 : j]; !escaped && utf8.Valid(raw) {
				return string(raw)
			}
			// encoding/json unescapes, and replaces invalid UTF-8 (which
			// PostgreSQL's text refuses) with U+FFFD.
			var s string
			if json.Unmarshal(w.s[start:j+1], &s) != nil {
				w.bad = true
			}
			return s
		}
	}
	w.bad = true
	return ""
}

// skip passes over one value of any kind and returns its text.
func (w *attrWalker) skip() []byte {
	w.space()
	start, depth := w.i, 0
	for w.i < len(w.s) {
		switch c := w.s[w.i]; c {
		case '"':
			w.str()
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
// most maxFacetKeys in all, as flatten describes; at depth 0 it also
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

// member reads the value of key k and appends what it contributes.
func (w *attrWalker) member(out []facetKV, prefix, k string, depth int, sdkID string, userID json.RawMessage) ([]facetKV, string, json.RawMessage) {
	c := w.peek()
	if depth == 0 {
		switch {
		case k == "sentry.event_id":
			if c == '"' {
				return out, w.str(), userID
			}
		case k == userIDKey && c != '{':
			v := w.skip()
			out = w.scalar(out, k, v)
			return out, sdkID, json.RawMessage(v)
		}
	}
	key := strings.TrimPrefix(prefix+k, "tags.")
	if len(out) >= maxFacetKeys || key == "" || len(key) > 200 ||
		depth == 0 && (k == "fingerprint" || strings.HasPrefix(k, "sentry.") || k == "message_template") {
		w.skip()
		return out, sdkID, userID
	}
	if c == '{' {
		if depth < 3 {
			out, _, _ = w.attrFacets(out, key+".", depth+1)
		} else {
			w.skip()
		}
		return out, sdkID, userID
	}
	return w.scalar(out, key, w.skip()), sdkID, userID
}

// scalar appends key's value v (a value's text) when it is one that is
// counted: a non-empty string, a number or a boolean.
func (w *attrWalker) scalar(out []facetKV, key string, v []byte) []facetKV {
	if len(v) == 0 || len(out) >= maxFacetKeys || len(key) > 200 {
		return out
	}
	switch v[0] {
	case '"':
		sub := attrWalker{s: v}
		if s := sub.str(); s != "" && !sub.bad {
			return appendFacet(out, key, s)
		}
		return out
	case '{', '[', 'n': // objects here are deeper than counted; lists and null are not values one filters on
		return out
	}
	return appendFacet(out, key, string(v))
}
