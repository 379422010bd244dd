package sentry

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/errata-dev/errata/internal/ingest"
)

// breadcrumb is one entry of a Sentry event's breadcrumbs.
type breadcrumb struct {
	Timestamp json.RawMessage `json:"timestamp"` // RFC 3339 string or seconds
	Type      string          `json:"type"`
	Category  string          `json:"category"`
	Level     string          `json:"level"`
	Message   string          `json:"message"`
	Data      json.RawMessage `json:"data"`
}

// Limits of the source context an event keeps: SDKs send five lines either
// side; the frames' context stops growing past maxSourcesBytes of JSON.
const (
	maxContextLines = 10
	maxContextBytes = 1024
	maxSourcesBytes = 256 << 10
)

// eventDetail is what a Sentry event keeps for the event detail only
// (CONTRACT 8): its last ingest.MaxBreadcrumbs breadcrumbs and the source
// context and columns of its frames, as an encoded ingest.Detail; nil when it has
// neither. It writes the JSON itself, as the attributes are written: this
// runs for every event.
func eventDetail(se *sentryEvent, excs []exception, m *mapping) json.RawMessage {
	crumbs := se.Breadcrumbs.Values
	if len(crumbs) > ingest.MaxBreadcrumbs {
		crumbs = crumbs[len(crumbs)-ingest.MaxBreadcrumbs:]
	}
	var b []byte
	if len(crumbs) > 0 {
		b = append(b, `{"breadcrumbs":[`...)
		for k := range crumbs {
			if k > 0 {
				b = append(b, ',')
			}
			b = appendBreadcrumb(b, &crumbs[k], m.redact)
		}
		b = append(b, ']')
	}
	start, n := len(b), 0
	add := func(frames []frame) {
		for k := range frames {
			f := &frames[k]
			if f.ContextLine == "" && f.Colno <= 0 || f.Lineno <= 0 || len(b)-start > maxSourcesBytes {
				continue
			}
			if n == 0 {
				if len(b) == 0 {
					b = append(b, '{')
				} else {
					b = append(b, ',')
				}
				b = append(b, `"sources":[`...)
			} else {
				b = append(b, ',')
			}
			n++
			b = append(b, `{"file":`...)
			b = appendString(b, framePath(f))
			b = append(b, `,"function":`...)
			b = appendString(b, frameFunction(f))
			b = append(append(b, `,"line":`...), strconv.Itoa(f.Lineno)...)
			if f.Colno > 0 {
				b = append(append(b, `,"column":`...), strconv.Itoa(f.Colno)...)
			}
			b = appendLines(append(b, `,"pre":`...), f.PreContext, true)
			b = appendString(append(b, `,"text":`...), cutUTF8(f.ContextLine, maxContextBytes))
			b = append(appendLines(append(b, `,"post":`...), f.PostContext, false), '}')
		}
	}
	for k := range excs {
		if st := excs[k].Stacktrace; st != nil {
			add(st.Frames)
		}
	}
	add(threadFrames(se))
	switch {
	case n > 0:
		b = append(b, ']', '}')
	case len(b) > 0:
		b = append(b, '}')
	default:
		return nil
	}
	return b
}

// appendBreadcrumb appends c as an ingest.Breadcrumb, cut to its limits;
// data that is not an object of at most ingest.MaxBreadcrumbDataBytes is
// null, and secrets in it are redacted by r.
func appendBreadcrumb(b []byte, c *breadcrumb, r *ingest.Redactor) []byte {
	b = append(b, `{"timestamp":`...)
	if ms := eventTime(c.Timestamp, -1); ms >= 0 {
		b = strconv.AppendInt(b, ms, 10)
	} else {
		b = append(b, "null"...)
	}
	category := c.Category
	if category == "" {
		category = c.Type
	}
	b = appendString(append(b, `,"category":`...), limitBytes(category, ingest.MaxBreadcrumbCategory))
	b = appendString(append(b, `,"level":`...), limitBytes(c.Level, ingest.MaxBreadcrumbLevel))
	b = appendString(append(b, `,"message":`...), limitBytes(c.Message, ingest.MaxBreadcrumbMessage))
	b = append(b, `,"data":`...)
	if data := bytes.TrimSpace(c.Data); len(data) > 0 && data[0] == '{' && len(data) <= ingest.MaxBreadcrumbDataBytes && json.Valid(data) {
		b = append(b, r.Redact(data)...)
	} else {
		b = append(b, "null"...)
	}
	return append(b, '}')
}

// appendLines appends a frame's context lines (raw, a JSON array of
// strings) as a JSON array of at most maxContextLines lines of at most
// maxContextBytes, the ones nearest the frame's line (the last ones before
// it when pre, else the first ones after it). An array already within the
// limits is copied as it is; anything but an array is empty.
func appendLines(b []byte, raw json.RawMessage, pre bool) []byte {
	t := bytes.TrimSpace(raw)
	if plainLines(t) {
		return append(b, t...)
	}
	var lines []string
	if len(t) == 0 || t[0] != '[' || decode(t, &lines) != nil {
		return append(b, '[', ']')
	}
	if len(lines) > maxContextLines {
		if pre {
			lines = lines[len(lines)-maxContextLines:]
		} else {
			lines = lines[:maxContextLines]
		}
	}
	b = append(b, '[')
	for k, l := range lines {
		if k > 0 {
			b = append(b, ',')
		}
		b = appendString(b, cutUTF8(l, maxContextBytes))
	}
	return append(b, ']')
}

// plainLines reports whether t is a valid JSON array of at most
// maxContextLines strings of at most maxContextBytes, none with an escaped
// NUL, so that it can be kept as sent.
func plainLines(t []byte) bool {
	if len(t) < 2 || t[0] != '[' || !json.Valid(t) {
		return false
	}
	i := skipSpace(t, 1)
	if t[i] == ']' {
		return true
	}
	for n := 1; n <= maxContextLines; n++ {
		if t[i] != '"' {
			return false
		}
		end := stringEnd(t, i)
		if end < 0 || end-i > maxContextBytes || bytes.Contains(t[i:end], []byte(`\u0000`)) {
			return false
		}
		if i = skipSpace(t, end); t[i] == ']' {
			return true
		}
		i = skipSpace(t, i+1) // a comma: the array is valid
	}
	return false
}
