package sentry

import (
	"encoding/json"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/errata-dev/errata/internal/ingest"
)

// Caps on attributes made from Sentry data. Sentry itself caps tag keys at
// 200 characters and values at 200; the event's attributes as a whole must
// stay within ingest's limits, with room for redaction, which can lengthen a
// short value to "[redacted]".
const (
	maxKeyBytes   = 200
	maxTagRunes   = 200
	maxValueBytes = 2 << 10
	attrsRoom     = 64 * len(`"[redacted]"`)
	// droppedKey counts the attributes left out to stay within the limits.
	droppedKey = "sentry.dropped_attributes"
)

// attrs builds an event's attributes, a JSON object, adding keys in order of
// importance until ingest's limits would be passed; later keys are counted
// in sentry.dropped_attributes instead.
type attrs struct {
	b       []byte
	keys    int
	dropped int
}

// add appends key with a value already encoded as JSON.
func (a *attrs) add(key string, value []byte) {
	key = cutUTF8(key, maxKeyBytes)
	size := len(a.b) + len(key) + len(value) + 4 // quotes, colon, comma or brace
	if a.keys >= ingest.MaxAttributes-1 || size > ingest.MaxAttributesBytes-attrsRoom-64 {
		a.dropped++
		return
	}
	if a.keys == 0 {
		a.b = append(a.b, '{')
	} else {
		a.b = append(a.b, ',')
	}
	a.b = appendString(a.b, key)
	a.b = append(a.b, ':')
	a.b = append(a.b, value...)
	a.keys++
}

// str adds a string value cut to max bytes; empty values are left out.
func (a *attrs) str(key, value string, max int) {
	if value == "" {
		return
	}
	if len(value) > max {
		value = cutUTF8(value, max-len("…")) + "…"
	}
	a.add(key, appendString(nil, value))
}

// done returns the object, redacted by r, or nil when it has no key.
func (a *attrs) done(r *ingest.Redactor) json.RawMessage {
	if a.dropped > 0 {
		a.keys = 0 // the count always fits: room was kept for it
		a.b = append(append(a.b, `,"`+droppedKey+`":`...), strconv.Itoa(a.dropped)...)
	}
	if len(a.b) == 0 {
		return nil
	}
	return r.Redact(append(a.b, '}'))
}

// appendString appends s as a JSON string (ingest.AppendJSONString). NUL
// becomes U+FFFD (CONTRACT 7), as does invalid UTF-8; "<", ">" and "&" are
// kept as they are.
func appendString(dst []byte, s string) []byte {
	dst, _ = ingest.AppendJSONString(dst, s, true)
	return dst
}

// appendValue appends a decoded JSON value (from encoding/json into any),
// its strings cleaned as appendString does. Numbers that JSON cannot carry
// do not occur: they never decode.
func appendValue(dst []byte, v any, depth int) []byte {
	switch v := v.(type) {
	case string:
		return appendString(dst, v)
	case bool:
		return strconv.AppendBool(dst, v)
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1e15 {
			return strconv.AppendInt(dst, int64(v), 10)
		}
		return strconv.AppendFloat(dst, v, 'g', -1, 64)
	case json.Number:
		if _, err := strconv.ParseFloat(string(v), 64); err == nil {
			return append(dst, v...)
		}
		return appendString(dst, string(v))
	case []any:
		if depth >= ingest.MaxAttributesDepth-1 {
			return append(dst, "null"...)
		}
		dst = append(dst, '[')
		for k, e := range v {
			if k > 0 {
				dst = append(dst, ',')
			}
			dst = appendValue(dst, e, depth+1)
		}
		return append(dst, ']')
	case map[string]any:
		if depth >= ingest.MaxAttributesDepth-1 {
			return append(dst, "null"...)
		}
		dst = append(dst, '{')
		for k, key := range slices.Sorted(maps.Keys(v)) { // deterministic output
			if k > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, key)
			dst = append(dst, ':')
			dst = appendValue(dst, v[key], depth+1)
		}
		return append(dst, '}')
	}
	return append(dst, "null"...)
}

// clean replaces NUL with U+FFFD (CONTRACT 7), and invalid UTF-8 too,
// which decoded JSON strings never hold but raw JSON values can.
func clean(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if strings.IndexByte(s, 0) < 0 {
		return s
	}
	return strings.ReplaceAll(s, "\x00", "\uFFFD")
}

// limitRunes cuts s to max code points (the unit of ingest's length limits).
func limitRunes(s string, max int) string {
	if len(s) <= max {
		return s
	}
	n := 0
	for i := range s {
		if n == max {
			return s[:i]
		}
		n++
	}
	return s
}

// limitBytes cuts s to max bytes at a character boundary, ending with "…"
// when cut.
func limitBytes(s string, max int) string {
	if len(s) <= max {
		return s
	}
	return cutUTF8(s, max-len("…")) + "…"
}
