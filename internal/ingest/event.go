// Package ingest decodes, validates and normalises the batches clients send
// to POST /v1/ingest, and commits them durably.
//
// Decode is pure: a request body in, normalised events or an RFC 9457 problem
// out. It is on the hot path, so it is a single-pass scanner written for this
// one document shape rather than a generic JSON decoder (see
// decode_bench_test.go for what that buys).
package ingest

import (
	"encoding/json"
	"errors"
)

// Limits of one batch (spec section 8, CONTRACT section 3). Lengths of
// strings count Unicode code points (message and stack_trace too); the
// attributes' size counts bytes of their compact JSON encoding as received
// (before redaction).
const (
	MaxEvents         = 1000
	MaxServiceLen     = 128
	MaxEnvironmentLen = 64
	MaxReleaseLen     = 64
	// MaxMessageBytes and MaxStackTraceBytes are "16 KiB" and "64 KiB" of
	// CONTRACT 3 in code points (TooLong), as every length of an event
	// (CONTRACT 6); other routes cut to them in bytes.
	MaxMessageBytes    = 16 << 10
	MaxStackTraceBytes = 64 << 10
	// MaxAttributes caps the top-level keys of an event's attributes.
	MaxAttributes      = 64
	MaxAttributesBytes = 16 << 10
	// MaxAttributesDepth caps the nesting of attributes; the attributes
	// object itself is depth 1. Deeper data is a 422: nothing downstream
	// should have to walk pathological nesting.
	MaxAttributesDepth = 32
	// MaxTraceIDLen and MaxSpanIDLen cap trace_id and span_id. W3C ids are 32
	// and 16 hex digits; other tracers use longer strings, so the cap is loose.
	MaxTraceIDLen = 128
	MaxSpanIDLen  = 128
)

// Level is an event's normalised level. The zero Level is invalid.
type Level uint8

// The five levels, lowest first.
const (
	Debug Level = iota + 1
	Info
	Warn
	Error
	Fatal
)

var levelNames = [...]string{"", "debug", "info", "warn", "error", "fatal"}

// String returns the level's canonical name, or "invalid".
func (l Level) String() string {
	if l < Debug || l > Fatal {
		return "invalid"
	}
	return levelNames[l]
}

// ParseLevel maps a level name or one of its synonyms (CONTRACT section 3),
// in any case, to its Level.
func ParseLevel(s string) (Level, bool) {
	if len(s) < 3 || len(s) > 13 { // "err" … "informational"
		return 0, false
	}
	var buf [13]byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	switch string(buf[:len(s)]) { // compiled without allocating
	case "trace", "debug":
		return Debug, true
	case "info", "information", "informational", "notice", "log":
		return Info, true
	case "warn", "warning":
		return Warn, true
	case "error", "err":
		return Error, true
	case "fatal", "critical", "crit", "alert", "emerg", "emergency", "panic":
		return Fatal, true
	}
	return 0, false
}

// LevelNames returns every name ParseLevel accepts, in lower case: the five
// levels, then their synonyms. The API document lists them from here.
func LevelNames() []string {
	return []string{"debug", "info", "warn", "error", "fatal",
		"trace", "information", "informational", "notice", "log", "warning", "err",
		"critical", "crit", "alert", "emerg", "emergency", "panic"}
}

var errInvalidLevel = errors.New("ingest: invalid level")

// MarshalJSON encodes the level as its canonical name.
func (l Level) MarshalJSON() ([]byte, error) {
	if l < Debug || l > Fatal {
		return nil, errInvalidLevel
	}
	b := make([]byte, 0, 7)
	b = append(b, '"')
	b = append(b, levelNames[l]...)
	return append(b, '"'), nil
}

// UnmarshalJSON decodes a level name or synonym; null leaves l unchanged.
func (l *Level) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, ok := ParseLevel(s)
	if !ok {
		return errInvalidLevel
	}
	*l = v
	return nil
}

// Event is one normalised event, as stored in the queue. Batch defaults are
// applied, the level is canonical, the timestamp is set, and secret-like
// attribute values are redacted.
type Event struct {
	Service     string          `json:"service"`
	Environment string          `json:"environment,omitempty"`
	Release     string          `json:"release,omitempty"`
	Level       Level           `json:"level"`
	Message     string          `json:"message"`
	Timestamp   int64           `json:"ts"` // Unix milliseconds, UTC
	StackTrace  string          `json:"stack_trace,omitempty"`
	TraceID     string          `json:"trace_id,omitempty"`
	SpanID      string          `json:"span_id,omitempty"`
	Attributes  json.RawMessage `json:"attributes,omitempty"` // a compact JSON object, secrets redacted
	// SentTimestamp is the timestamp as the sender wrote it, kept by the
	// decoders only when it lies more than MaxFuture ahead of the receipt,
	// for ClampFuture's original_timestamp. It is not part of the payload.
	SentTimestamp string `json:"-"`
	// Symbolication is what the worker's source map step recorded (the
	// raw minified frames and notes, JSON), stored with the sample event.
	// It is not part of the payload.
	Symbolication json.RawMessage `json:"-"`
	// Detail is the event's breadcrumbs and source context (an encoded
	// Detail), nil when it has none; the queue payload carries it and the
	// sample event keeps it.
	Detail json.RawMessage `json:"-"`
}

// Attributes the Sentry mapping adds for symbolication in the worker
// (docs/sourcemaps.md): the event's dist, and its source map images as
// "debug_id file" lines.
const (
	AttrDist     = "sentry.dist"
	AttrDebugIDs = "sentry.debug_ids"
)
