package sentry

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strconv"

	gojson "github.com/goccy/go-json"
)

// sentryEvent is the part of a Sentry event payload that Errata maps. The
// rest (modules, extra, most contexts) is skipped.
// Fields whose polymorphism the protocol allows are kept raw and read by the
// helpers below.
type sentryEvent struct {
	EventID     string          `json:"event_id"`
	Type        string          `json:"type"`
	Timestamp   json.RawMessage `json:"timestamp"` // RFC 3339 string or seconds
	Level       string          `json:"level"`
	Platform    string          `json:"platform"`
	Logger      string          `json:"logger"`
	Transaction string          `json:"transaction"`
	ServerName  string          `json:"server_name"`
	Release     string          `json:"release"`
	Dist        string          `json:"dist"`
	// DebugMeta names the source maps of JavaScript files by debug id
	// (sentry-cli sourcemaps inject); symbolication reads them.
	DebugMeta *struct {
		Images []struct {
			Type     string `json:"type"`
			CodeFile string `json:"code_file"`
			DebugID  string `json:"debug_id"`
		} `json:"images"`
	} `json:"debug_meta"`
	Environment string               `json:"environment"`
	Message     json.RawMessage      `json:"message"` // a string or a logentry object
	LogEntry    json.RawMessage      `json:"logentry"`
	Exception   valuesOf[exception]  `json:"exception"`
	Threads     valuesOf[thread]     `json:"threads"`
	Stacktrace  *stacktrace          `json:"stacktrace"` // legacy: the event's own stack
	Tags        json.RawMessage      `json:"tags"`       // an object or a list of pairs
	Fingerprint json.RawMessage      `json:"fingerprint"`
	Breadcrumbs valuesOf[breadcrumb] `json:"breadcrumbs"`
	User        *struct {
		ID json.RawMessage `json:"id"` // a string or a number
	} `json:"user"`
	Request *struct {
		URL     string          `json:"url"`
		Method  string          `json:"method"`
		Headers json.RawMessage `json:"headers"` // an object, or a list of [name, value] pairs
	} `json:"request"`
	Contexts *struct {
		Trace *struct {
			TraceID string `json:"trace_id"`
			SpanID  string `json:"span_id"`
		} `json:"trace"`
		Runtime *nameVersion `json:"runtime"`
		OS      *nameVersion `json:"os"`
		Browser *nameVersion `json:"browser"`
	} `json:"contexts"`
	SDK *struct {
		Name string `json:"name"`
	} `json:"sdk"`

	// The interface names of the oldest clients (raven), read when the
	// current names are absent.
	LegacyException  valuesOf[exception] `json:"sentry.interfaces.Exception"`
	LegacyMessage    json.RawMessage     `json:"sentry.interfaces.Message"`
	LegacyStacktrace *stacktrace         `json:"sentry.interfaces.Stacktrace"`
}

// valuesOf is a list sent as {"values": […]} by most SDKs and bare by
// sentry-go; anything else is an empty list.
type valuesOf[T any] struct {
	Values []T
}

// UnmarshalJSON reads either shape; it never fails, so that a list of an
// unexpected shape leaves the rest of the event readable.
func (v *valuesOf[T]) UnmarshalJSON(b []byte) error {
	v.Values = values[T](b)
	return nil
}

type nameVersion struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type exception struct {
	Type       string      `json:"type"`
	Value      string      `json:"value"`
	Module     string      `json:"module"`
	Stacktrace *stacktrace `json:"stacktrace"`
	Mechanism  *struct {
		Handled *bool  `json:"handled"`
		Source  string `json:"source"` // Python: "__cause__" or "__context__"
	} `json:"mechanism"`
}

type thread struct {
	Crashed    bool        `json:"crashed"`
	Current    bool        `json:"current"`
	Stacktrace *stacktrace `json:"stacktrace"`
}

type stacktrace struct {
	Frames []frame `json:"frames"` // oldest call first
}

type frame struct {
	Function    string `json:"function"`
	RawFunction string `json:"raw_function"`
	Module      string `json:"module"`
	Package     string `json:"package"`
	Filename    string `json:"filename"`
	AbsPath     string `json:"abs_path"`
	Lineno      int    `json:"lineno"`
	Colno       int    `json:"colno"`
	InApp       *bool  `json:"in_app"`
	ContextLine string `json:"context_line"`
	// The lines around context_line, raw: usually copied as they are
	// (appendLines), which spares decoding each line.
	PreContext  json.RawMessage `json:"pre_context"`
	PostContext json.RawMessage `json:"post_context"`
	Native      bool            `json:"native"` // Java: a native method
}

// logEntry is the "logentry" interface, also accepted as "message".
type logEntry struct {
	Formatted string          `json:"formatted"`
	Message   string          `json:"message"`
	Params    json.RawMessage `json:"params"`
}

// decodeEvent decodes an event payload. Values of an unexpected type are
// skipped, as Sentry does, rather than dropping the event; only a payload
// that is not JSON is an error. Bare NaN and Infinity, which Python SDKs
// can write, are read as null.
func decodeEvent(payload []byte, ev *sentryEvent) error {
	t := bytes.TrimSpace(payload)
	if len(t) == 0 || t[0] != '{' {
		return errNotObject
	}
	err := decode(t, ev)
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		if fixed, changed := fixNonFinite(t); changed {
			*ev = sentryEvent{}
			err = decode(fixed, ev)
		}
	}
	if err != nil {
		return errors.New("is not valid JSON: " + err.Error())
	}
	return nil
}

// decode decodes JSON into v. The event path is hot, so goccy/go-json, a
// single pass over the input, decodes first (about three times faster than
// encoding/json, which validates the whole input before decoding it); it
// stops at the first value of an unexpected type, so any error is decided
// by encoding/json, which skips such values (lenient) and fails only on
// invalid JSON.
func decode(b []byte, v any) error {
	if gojson.Unmarshal(b, v) == nil {
		return nil
	}
	reflect.ValueOf(v).Elem().SetZero()
	return lenient(json.Unmarshal(b, v))
}

// lenient drops the type errors of a decode: encoding/json goes on past a
// value of an unexpected type and leaves its field empty, as Sentry skips an
// invalid value instead of rejecting the event.
func lenient(err error) error {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		return nil
	}
	return err
}

// decodeNumbers is decode keeping numbers as json.Number, for values that
// are copied into attributes: an integer attribute stays exact.
func decodeNumbers(b []byte, v any) error {
	d := gojson.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if d.Decode(v) == nil {
		return nil
	}
	reflect.ValueOf(v).Elem().SetZero()
	e := json.NewDecoder(bytes.NewReader(b))
	e.UseNumber()
	return lenient(e.Decode(v))
}

// values decodes a list that the protocol allows either bare or wrapped as
// {"values": […]}; anything else is an empty list.
func values[T any](raw []byte) []T {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return nil
	}
	switch t[0] {
	case '[':
		var list []T
		if decode(t, &list) == nil {
			return list
		}
	case '{':
		var w struct {
			Values []T `json:"values"`
		}
		if decode(t, &w) == nil {
			return w.Values
		}
	}
	return nil
}

// scalarString reads a JSON string, number or boolean as text; other values
// (objects, arrays, null) are "".
func scalarString(raw json.RawMessage) string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return ""
	}
	switch t[0] {
	case '"':
		s, _ := jsonString(t)
		return s
	case '{', '[', 'n':
		return ""
	}
	return string(t) // a number, true or false
}

// tagPairs reads tags given as {"k": "v"} or as [["k", "v"], …], in the
// order sent; values that are not scalars are skipped.
func tagPairs(raw json.RawMessage) [][2]string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return nil
	}
	var out [][2]string
	switch t[0] {
	case '{':
		for _, f := range objectFields(t) {
			out = appendTag(out, f.key, f.value)
		}
	case '[':
		var pairs [][]json.RawMessage
		_ = json.Unmarshal(t, &pairs)
		for _, p := range pairs {
			if len(p) == 2 {
				if k := scalarString(p[0]); k != "" {
					out = appendTag(out, k, p[1])
				}
			}
		}
	}
	return out
}

func appendTag(out [][2]string, k string, v json.RawMessage) [][2]string {
	if s := scalarString(v); s != "" || bytes.Equal(bytes.TrimSpace(v), []byte(`""`)) {
		out = append(out, [2]string{k, s})
	}
	return out
}

// stringList reads a list of scalars as strings (a fingerprint); a single
// string is a list of one.
func stringList(raw json.RawMessage) []string {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 {
		return nil
	}
	if t[0] == '"' {
		if s := scalarString(t); s != "" {
			return []string{s}
		}
		return nil
	}
	var items []json.RawMessage
	if t[0] != '[' || json.Unmarshal(t, &items) != nil {
		return nil
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		if s := scalarString(it); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// parseSeconds reads a float number of seconds since the epoch as Unix
// milliseconds.
func parseSeconds(s string) (int64, bool) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f > 253402300799 { // up to 9999-12-31
		return 0, false
	}
	return int64(f*1000 + 0.5), true
}

type field struct {
	key   string
	value json.RawMessage
}

// objectFields lists the members of a JSON object in the order sent, so
// that tags keep the SDK's order; anything else has none. It scans the
// object once without decoding the values (a json.Decoder reading it token
// by token took a sixth of the time of mapping an event) and stops at the
// first fault, keeping the members before it.
func objectFields(raw json.RawMessage) []field {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || t[0] != '{' {
		return nil
	}
	var out []field
	i := skipSpace(t, 1)
	if i < len(t) && t[i] == '}' {
		return nil
	}
	for i < len(t) && t[i] == '"' {
		end := stringEnd(t, i)
		if end < 0 {
			return out
		}
		key, ok := jsonString(t[i:end])
		i = skipSpace(t, end)
		if i >= len(t) || t[i] != ':' {
			return out
		}
		i = skipSpace(t, i+1)
		vend := valueEnd(t, i)
		if vend < 0 {
			return out
		}
		if ok {
			out = append(out, field{key, json.RawMessage(t[i:vend])})
		}
		i = skipSpace(t, vend)
		if i >= len(t) || t[i] != ',' {
			return out
		}
		i = skipSpace(t, i+1)
	}
	return out
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// stringEnd returns the index after the JSON string starting at b[i], or
// -1 when it does not end.
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// valueEnd returns the index after the JSON value starting at b[i], or -1
// when there is none. Strings and nested objects and arrays are matched,
// not checked; a scalar must be valid JSON on its own.
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				if j = stringEnd(b, j); j < 0 {
					return -1
				}
				j--
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	if j == i || !json.Valid(b[i:j]) {
		return -1
	}
	return j
}
