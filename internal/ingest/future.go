package ingest

import (
	"bytes"
	"strconv"
	"time"
)

// MaxFuture is how far ahead of its receipt an event's timestamp may be: a
// sender's clock may run a little fast, but an event from the future would
// be "first seen in 17 minutes" and outlive its group's last_seen.
const MaxFuture = 5 * time.Minute

// OriginalTimestampKey is the attribute that keeps a clamped timestamp as
// it was sent.
const OriginalTimestampKey = "original_timestamp"

// maxSentTimestamp bounds a timestamp kept as sent: RFC 3339 allows a
// fraction of any length, and the attribute must stay small.
const maxSentTimestamp = 64

// ClampFuture replaces, in place, every timestamp more than MaxFuture ahead
// of received with received, keeping the sent value in the attribute
// original_timestamp (CONTRACT 7): as the sender wrote it when a decoder
// kept it (SentTimestamp), else (OTLP's nanoseconds) in RFC 3339 with
// milliseconds, UTC.
func ClampFuture(events []Event, received time.Time) {
	limit := received.Add(MaxFuture).UnixMilli()
	for i := range events {
		e := &events[i]
		if e.Timestamp <= limit {
			continue
		}
		sent := e.SentTimestamp
		if sent == "" || len(sent) > maxSentTimestamp {
			sent = time.UnixMilli(e.Timestamp).UTC().Format("2006-01-02T15:04:05.000Z")
		}
		e.Timestamp = received.UnixMilli()
		e.Attributes = appendAttribute(e.Attributes, OriginalTimestampKey, sent)
	}
}

// appendAttribute returns attrs, a JSON object (or empty), with the string
// attribute key: value added at its end; attrs is never modified.
func appendAttribute(attrs []byte, key, value string) []byte {
	attrs = bytes.TrimSpace(attrs)
	out := make([]byte, 0, len(attrs)+len(key)+len(value)+8)
	switch {
	case len(attrs) < 2 || attrs[len(attrs)-1] != '}':
		out = append(out, '{') // none (or not an object, which callers never pass)
	default:
		out = append(out, attrs[:len(attrs)-1]...) // without its closing brace
		if string(attrs) != "{}" {
			out = append(out, ',')
		}
	}
	out = strconv.AppendQuote(out, key)
	out = append(out, ':')
	out = strconv.AppendQuote(out, value)
	return append(out, '}')
}
