package sentry

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strconv"

	"github.com/errata-dev/errata/internal/ingest"
)

// Attributes of a Sentry log record that become event fields rather than
// attributes.
const (
	logAttrEnvironment = "sentry.environment"
	logAttrRelease     = "sentry.release"
	logAttrService     = "service"
	logAttrTemplate    = "sentry.message.template"
)

// logRecord is one record of a log item (Sentry logs protocol).
type logRecord struct {
	Timestamp      json.RawMessage `json:"timestamp"` // seconds since the epoch
	TraceID        string          `json:"trace_id"`
	SpanID         string          `json:"span_id"`
	Level          string          `json:"level"`
	SeverityNumber int             `json:"severity_number"`
	Body           string          `json:"body"`
	Attributes     map[string]struct {
		Value any `json:"value"` // numbers as json.Number: integers stay exact
	} `json:"attributes"` // {"key": {"value": …, "type": …}}
}

// mapLogItem maps a log item ({"items": [record, …]}) into res, one event
// per record. A record without a body is malformed (an event needs a
// message); the other records of its item are kept.
func mapLogItem(res *Result, it Item, m *mapping) {
	var payload struct {
		Items []logRecord `json:"items"`
	}
	t := bytes.TrimSpace(it.Payload)
	if len(t) == 0 || t[0] != '{' || decodeNumbers(t, &payload) != nil {
		res.Malformed = append(res.Malformed, Malformed{Item: it.Index, Type: it.Type, Reason: "the log item is not a JSON object with items"})
		return
	}
	for k := range payload.Items {
		if len(res.Events) >= MaxEvents {
			res.Malformed = append(res.Malformed, Malformed{Item: it.Index, Type: it.Type,
				Reason: strconv.Itoa(len(payload.Items)-k) + " log records past the limit of " + strconv.Itoa(MaxEvents) + " events in one envelope"})
			return
		}
		rec := &payload.Items[k]
		if rec.Body == "" {
			res.Malformed = append(res.Malformed, Malformed{Item: it.Index, Type: it.Type,
				Reason: "log record " + strconv.Itoa(k) + " has no body"})
			continue
		}
		res.Events = append(res.Events, mapLogRecord(rec, m))
	}
}

// personal are the user attributes an SDK adds to its logs that are not
// kept (docs/sentry.md: an event keeps user.id only).
var personal = map[string]bool{"user.email": true, "user.name": true, "user.username": true, "user.ip_address": true}

func mapLogRecord(rec *logRecord, m *mapping) ingest.Event {
	service := m.service
	ev := ingest.Event{
		Level:     logLevel(rec.Level, rec.SeverityNumber),
		Message:   limitBytes(clean(rec.Body), ingest.MaxMessageBytes),
		Timestamp: eventTime(rec.Timestamp, m.received),
		TraceID:   limitRunes(clean(rec.TraceID), ingest.MaxTraceIDLen),
		SpanID:    limitRunes(clean(rec.SpanID), ingest.MaxSpanIDLen),
	}
	ev.SentTimestamp = sentIfFuture(rec.Timestamp, ev.Timestamp, m.received)
	var a attrs
	// Sorted, as SDKs send attributes in no particular order; the template
	// first, so that the attribute limits never leave out what INFO
	// summaries read.
	keys := slices.Sorted(maps.Keys(rec.Attributes))
	if k := slices.Index(keys, logAttrTemplate); k > 0 {
		copy(keys[1:k+1], keys[:k])
		keys[0] = logAttrTemplate
	}
	for _, key := range keys {
		v := rec.Attributes[key].Value
		if v == nil {
			continue
		}
		s, isString := v.(string)
		switch {
		case key == logAttrEnvironment && isString:
			ev.Environment = limitRunes(clean(s), ingest.MaxEnvironmentLen)
		case key == logAttrRelease && isString:
			ev.Release = limitRunes(clean(s), ingest.MaxReleaseLen)
		case key == logAttrService && isString && s != "":
			service = s
		case personal[key]:
			// As on events: the user's id is kept, the rest of what an
			// SDK's setUser gives its logs is personal data.
		default:
			if isString && len(s) > maxValueBytes {
				v = limitBytes(s, maxValueBytes)
			}
			a.add(key, appendValue(nil, v, 1))
		}
	}
	ev.Service = limitRunes(clean(service), ingest.MaxServiceLen)
	if ev.Service == "" {
		ev.Service = "unknown_service"
	}
	ev.Attributes = a.done(m.redact)
	return ev
}

// logLevel maps a log record's level (trace, debug, info, warn, error,
// fatal), else its OpenTelemetry severity number, else info.
func logLevel(level string, severity int) ingest.Level {
	if l, ok := ingest.ParseLevel(level); ok {
		return l
	}
	switch {
	case severity >= 1 && severity <= 8:
		return ingest.Debug
	case severity >= 13 && severity <= 16:
		return ingest.Warn
	case severity >= 17 && severity <= 20:
		return ingest.Error
	case severity >= 21 && severity <= 24:
		return ingest.Fatal
	}
	return ingest.Info
}
