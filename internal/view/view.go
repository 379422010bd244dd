// Package view holds the JSON objects that more than one way out shares: the
// REST API answers with them and the webhook and email bodies embed them, so
// a ticket in a webhook is exactly the ticket GET /v1/tickets/{id} returns
// (spec 6.1). Each type also feeds the OpenAPI document through huma.
package view

import (
	"time"

	"github.com/danielgtaylor/huma/v2"
)

// TimeFormat is how every timestamp is written: UTC, milliseconds, Z.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// Timestamp writes a time as TimeFormat.
type Timestamp time.Time

// MarshalJSON writes the timestamp as a JSON string.
func (t Timestamp) MarshalJSON() ([]byte, error) {
	return []byte(`"` + time.Time(t).UTC().Format(TimeFormat) + `"`), nil
}

// UnmarshalJSON reads an RFC 3339 timestamp.
func (t *Timestamp) UnmarshalJSON(b []byte) error {
	v, err := time.Parse(`"`+time.RFC3339Nano+`"`, string(b))
	if err != nil {
		return err
	}
	*t = Timestamp(v)
	return nil
}

// Schema documents the format in the OpenAPI document; the pattern holds
// clients to the milliseconds and the Z that date-time alone leaves open.
func (Timestamp) Schema(huma.Registry) *huma.Schema {
	return &huma.Schema{Type: huma.TypeString, Format: "date-time", Pattern: `^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$`,
		Examples: []any{"2026-11-22T08:00:00.000Z"}, Description: "UTC, ISO 8601 with milliseconds and a trailing Z"}
}

// TS converts a time.
func TS(t time.Time) Timestamp { return Timestamp(t) }

// TSPtr converts an optional time.
func TSPtr(t *time.Time) *Timestamp {
	if t == nil {
		return nil
	}
	v := Timestamp(*t)
	return &v
}
