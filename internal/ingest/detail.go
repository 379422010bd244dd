package ingest

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// Limits of the breadcrumbs an event keeps (CONTRACT 8). An event keeps its
// last MaxBreadcrumbs; the strings count bytes of UTF-8, data the bytes of
// its compact JSON.
const (
	MaxBreadcrumbs          = 100
	MaxBreadcrumbCategory   = 256
	MaxBreadcrumbLevel      = 32
	MaxBreadcrumbMessage    = 8 << 10
	MaxBreadcrumbDataBytes  = 4 << 10
	MaxBreadcrumbsListBytes = 1 << 20 // the breadcrumbs array as sent
)

// Breadcrumb is one of the steps an SDK recorded before an event.
type Breadcrumb struct {
	Timestamp *int64          `json:"timestamp"` // Unix milliseconds; nil when not sent
	Category  string          `json:"category"`
	Level     string          `json:"level"`
	Message   string          `json:"message"`
	Data      json.RawMessage `json:"data"` // a JSON object, or nil
}

// FrameSource is the source around a frame's line as a Sentry SDK sent it,
// matched to the stored trace's frames by file and line.
type FrameSource struct {
	File     string `json:"file"`
	Function string `json:"function"`
	Line     int    `json:"line"`
	// Column is the frame's column as a structured frame gave it (Sentry's
	// colno), which its rendered trace may not print (Python's does not);
	// 0 when unknown.
	Column int      `json:"column,omitempty"`
	Pre    []string `json:"pre"`
	Text   string   `json:"text"`
	Post   []string `json:"post"`
}

// Detail is what an event carries beyond its fields for the event detail
// only: breadcrumbs and the source context of frames. It is stored with the
// sample event as one JSON value (Event.Detail). Processing adds Agent to a
// stored sample's: the only part searched (browser: and os: on the group's
// events list).
type Detail struct {
	Breadcrumbs []Breadcrumb  `json:"breadcrumbs,omitempty"`
	Sources     []FrameSource `json:"sources,omitempty"`
	Agent       *Agent        `json:"agent,omitempty"`
}

// Agent is the browser and operating system processing derived from an
// event's user agent (CONTRACT 8), for events that carry no such attribute.
type Agent struct {
	Browser string `json:"browser,omitempty"`
	OS      string `json:"os,omitempty"`
}

// WithAgent is the stored detail raw with a added (raw "" is an empty
// detail): the object's other members are kept as they are.
func WithAgent(raw string, a Agent) string {
	b, err := json.Marshal(a)
	if err != nil || (a.Browser == "" && a.OS == "") {
		return raw
	}
	if raw = strings.TrimSpace(raw); len(raw) < 2 || raw[0] != '{' {
		return `{"agent":` + string(b) + `}`
	}
	if strings.TrimSpace(raw[1:len(raw)-1]) == "" {
		return `{"agent":` + string(b) + `}`
	}
	return raw[:len(raw)-1] + `,"agent":` + string(b) + `}`
}

// Encode is d as JSON, or nil when it holds nothing.
func (d *Detail) Encode() json.RawMessage {
	if len(d.Breadcrumbs) == 0 && len(d.Sources) == 0 && d.Agent == nil {
		return nil
	}
	b, err := json.Marshal(d)
	if err != nil {
		return nil // only strings, numbers and valid raw JSON: never happens
	}
	return b
}

// ParseDetail reads a stored Detail; "" or anything unreadable is empty.
func ParseDetail(raw string) Detail {
	var d Detail
	if raw != "" {
		_ = json.Unmarshal([]byte(raw), &d)
	}
	return d
}

// rawCrumb is a /v1/ingest breadcrumb as sent, each field kept raw so that a
// value of the wrong type is named.
type rawCrumb struct {
	Timestamp json.RawMessage `json:"timestamp"`
	Category  json.RawMessage `json:"category"`
	Level     json.RawMessage `json:"level"`
	Message   json.RawMessage `json:"message"`
	Data      json.RawMessage `json:"data"`
}

// parseBreadcrumbs validates the breadcrumbs array of a /v1/ingest event
// (raw, as sent) and returns its last MaxBreadcrumbs with their data
// redacted by r, or the detail of the first error after prefix
// ("events[3].").
func parseBreadcrumbs(raw string, prefix string, r *Redactor) ([]Breadcrumb, string) {
	name := prefix + "breadcrumbs"
	if len(raw) > MaxBreadcrumbsListBytes {
		return nil, name + ": is " + strconv.Itoa(len(raw)) + " bytes of JSON, more than " + strconv.Itoa(MaxBreadcrumbsListBytes)
	}
	var items []json.RawMessage
	if raw[0] != '[' || json.Unmarshal([]byte(raw), &items) != nil {
		return nil, name + ": must be an array of breadcrumbs"
	}
	first := max(0, len(items)-MaxBreadcrumbs)
	out := make([]Breadcrumb, 0, len(items)-first)
	for k := first; k < len(items); k++ {
		at := name + "[" + strconv.Itoa(k) + "]"
		var rc rawCrumb
		if items[k][0] != '{' || json.Unmarshal(items[k], &rc) != nil {
			return nil, at + ": must be an object"
		}
		var c Breadcrumb
		if isSet(rc.Timestamp) {
			var s string
			if json.Unmarshal(rc.Timestamp, &s) != nil {
				return nil, at + ".timestamp: must be an RFC 3339 date-time string"
			}
			ms, ok := parseTimestamp(s)
			if !ok {
				return nil, at + ".timestamp: " + quote(s) + " is not an RFC 3339 date-time with a time zone"
			}
			c.Timestamp = &ms
		}
		for _, f := range [...]struct {
			name string
			raw  json.RawMessage
			dst  *string
			max  int
		}{
			{"category", rc.Category, &c.Category, MaxBreadcrumbCategory},
			{"level", rc.Level, &c.Level, MaxBreadcrumbLevel},
			{"message", rc.Message, &c.Message, MaxBreadcrumbMessage},
		} {
			if !isSet(f.raw) {
				continue
			}
			if json.Unmarshal(f.raw, f.dst) != nil {
				return nil, at + "." + f.name + ": must be a string"
			}
			if TooLong(*f.dst, f.max) {
				return nil, at + "." + f.name + ": is longer than " + strconv.Itoa(f.max) + " characters"
			}
			*f.dst = strings.ReplaceAll(*f.dst, "\x00", "\uFFFD") // as ScrubNUL does for the fields
		}
		if isSet(rc.Data) {
			if rc.Data[0] != '{' {
				return nil, at + ".data: must be an object"
			}
			var buf bytes.Buffer
			_ = json.Compact(&buf, rc.Data) // valid: it was decoded
			if buf.Len() > MaxBreadcrumbDataBytes {
				return nil, at + ".data: is " + strconv.Itoa(buf.Len()) + " bytes of JSON, more than " + strconv.Itoa(MaxBreadcrumbDataBytes)
			}
			c.Data = r.Redact(buf.Bytes())
		}
		out = append(out, c)
	}
	return out, ""
}

// isSet reports whether a raw member was sent and is not null.
func isSet(raw json.RawMessage) bool {
	return len(raw) > 0 && !bytes.Equal(raw, []byte("null"))
}
