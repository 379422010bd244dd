package otlp

import (
	"encoding/base64"
	"errors"
	"math"
	"strconv"
	"unicode/utf8"

	"go.opentelemetry.io/collector/pdata/pcommon"

	"github.com/errata-dev/errata/internal/ingest"
)

// errUTF8 and errDepth make a record unusable; map.go names the field.
var (
	errUTF8  = errors.New("is not valid UTF-8")
	errDepth = errors.New("is nested more than " + strconv.Itoa(ingest.MaxAttributesDepth) + " levels deep")
)

// appendValue appends v as JSON. depth is the nesting level of v's parent
// object (an attributes object is level 1, as ingest counts it). It is our
// own encoder rather than encoding/json over AsRaw so that keys keep the
// sender's order, duplicate keys keep their first value (as Map.Get does),
// and NaN and ±Inf, which JSON cannot carry, become the strings "NaN",
// "Infinity" and "-Infinity" instead of failing the record.
func appendValue(dst []byte, v pcommon.Value, depth int) ([]byte, error) {
	switch v.Type() {
	case pcommon.ValueTypeStr:
		return appendString(dst, v.Str())
	case pcommon.ValueTypeInt:
		return strconv.AppendInt(dst, v.Int(), 10), nil
	case pcommon.ValueTypeDouble:
		return appendFloat(dst, v.Double()), nil
	case pcommon.ValueTypeBool:
		return strconv.AppendBool(dst, v.Bool()), nil
	case pcommon.ValueTypeBytes:
		dst = append(dst, '"')
		dst = base64.StdEncoding.AppendEncode(dst, v.Bytes().AsRaw())
		return append(dst, '"'), nil
	case pcommon.ValueTypeMap:
		if depth+1 > ingest.MaxAttributesDepth {
			return dst, errDepth
		}
		return appendMap(dst, v.Map(), depth+1, nil)
	case pcommon.ValueTypeSlice:
		if depth+1 > ingest.MaxAttributesDepth {
			return dst, errDepth
		}
		s := v.Slice()
		dst = append(dst, '[')
		for i := 0; i < s.Len(); i++ {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = appendValue(dst, s.At(i), depth+1); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	default: // empty
		return append(dst, "null"...), nil
	}
}

// appendMap appends m as a JSON object at nesting level depth, leaving out
// the keys skip says to, and duplicate keys after their first occurrence.
func appendMap(dst []byte, m pcommon.Map, depth int, skip func(string) bool) ([]byte, error) {
	var seen map[string]bool
	if m.Len() > 1 {
		seen = make(map[string]bool, m.Len())
	}
	dst = append(dst, '{')
	first := true
	var err error
	for k, v := range m.All() {
		if (skip != nil && skip(k)) || seen[k] {
			continue
		}
		if seen != nil {
			seen[k] = true
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		if dst, err = appendString(dst, k); err != nil {
			return dst, err
		}
		dst = append(dst, ':')
		if dst, err = appendValue(dst, v, depth); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

// appendString appends s as a JSON string (ingest.AppendJSONString);
// invalid UTF-8 is an error.
func appendString(dst []byte, s string) ([]byte, error) {
	out, ok := ingest.AppendJSONString(dst, s, false)
	if !ok {
		return dst, errUTF8
	}
	return out, nil
}

// appendFloat appends f as JSON writes numbers (ES6 style, as encoding/json).
func appendFloat(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, `"NaN"`...)
	case math.IsInf(f, 1):
		return append(dst, `"Infinity"`...)
	case math.IsInf(f, -1):
		return append(dst, `"-Infinity"`...)
	}
	return append(dst, floatText(f)...)
}

// floatText formats a finite f without exponent unless it is very large or
// very small, like encoding/json.
func floatText(f float64) string {
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	return strconv.FormatFloat(f, format, -1, 64)
}

// text renders a body or a resource value as text: strings as they are,
// numbers and booleans as their literal, bytes as base64, maps and arrays as
// JSON, nothing as "".
func text(v pcommon.Value) (string, error) {
	switch v.Type() {
	case pcommon.ValueTypeStr:
		if !utf8.ValidString(v.Str()) {
			return "", errUTF8
		}
		return v.Str(), nil
	case pcommon.ValueTypeEmpty:
		return "", nil
	case pcommon.ValueTypeDouble:
		if f := v.Double(); !math.IsNaN(f) && !math.IsInf(f, 0) {
			return floatText(f), nil
		}
		return v.AsString(), nil
	case pcommon.ValueTypeMap, pcommon.ValueTypeSlice:
		b, err := appendValue(nil, v, 0)
		return string(b), err
	default:
		return v.AsString(), nil
	}
}
