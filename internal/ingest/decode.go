package ingest

import (
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/errata-dev/errata/internal/problem"
)

// Decode parses a decompressed POST /v1/ingest body. It returns the
// normalised events, or a *problem.Problem: 400 "malformed-body" for invalid
// JSON or invalid UTF-8, else 422 "validation-failed" whose detail starts with
// the first offending field, e.g. "events[3].level: …". receivedAt is the
// timestamp of events without one.
//
// Order: any syntax error anywhere wins over any validation error. Among
// validation errors, the batch (events, then service, environment, release)
// comes first, then the first offending event; within an event the fields are
// checked in a fixed order, whatever their order in the document: service,
// environment, release, message, level, timestamp, stack_trace, trace_id,
// span_id, attributes, breadcrumbs. A null value counts as absent, as does an empty
// service, environment or release (the batch default applies). Unknown fields
// are ignored.
//
// A timestamp is an RFC 3339 date-time: YYYY-MM-DD, 'T' (or 't' or a space,
// as RFC 3339 allows), hh:mm:ss, an optional fraction of any length after '.'
// or ',' (truncated to milliseconds), and a zone: 'Z', ±hh:mm or ±hhmm. A
// zone is required; numbers are refused. Lone UTF-16 surrogate escapes
// decode to U+FFFD, as with encoding/json.
//
// The events do not refer to body, which the caller may reuse at once.
// Attributes are redacted with DefaultSecretKeys; Decoder.Decode takes
// other names.
func Decode(body []byte, receivedAt time.Time) ([]Event, error) {
	return (&Decoder{}).Decode(body, receivedAt)
}

// Decoder decodes POST /v1/ingest bodies as Decode describes, redacting
// attributes with Redact (nil: DefaultSecretKeys).
type Decoder struct {
	Redact *Redactor
}

// Decode is the package's Decode with d's redaction.
func (dec *Decoder) Decode(body []byte, receivedAt time.Time) ([]Event, error) {
	if !utf8.Valid(body) {
		return nil, problem.New("malformed-body", "the body is not valid UTF-8")
	}
	d := newDecoder(body, len(body)) // decoded values are never longer than the body
	if dec.Redact != nil {
		d.redact = dec.Redact
	}
	var bt batch
	if !bt.parse(d) {
		return nil, problem.New("malformed-body", d.syntax)
	}
	if detail := bt.check(); detail != "" {
		return nil, problem.New("validation-failed", detail)
	}
	ts := receivedAt.UnixMilli()
	for i := range bt.events {
		ev := &bt.events[i]
		st := &bt.states[i]
		if ev.Service == "" {
			ev.Service = bt.service
		}
		if ev.Environment == "" {
			ev.Environment = bt.environment
		}
		if ev.Release == "" {
			ev.Release = bt.release
		}
		if st.has&fTimestamp == 0 {
			ev.Timestamp = ts
		} else if ev.Timestamp > ts+MaxFuture.Milliseconds() {
			ev.SentTimestamp = st.timestamp
		}
		if ev.Level == 0 {
			ev.Level = Info
			if ev.StackTrace != "" {
				ev.Level = Error
			}
		}
	}
	return bt.events, nil
}

// Event fields, in the order they are checked.
const (
	fService uint16 = 1 << iota
	fEnvironment
	fRelease
	fMessage
	fLevel
	fTimestamp
	fStackTrace
	fTraceID
	fSpanID
	fAttributes
)

// batch is the state of one Decode.
type batch struct {
	service, environment, release string
	bad                           uint16 // batch fields of the wrong type
	hasEvents                     bool   // an events array was seen
	eventsBad                     bool   // events is present but not an array
	notObject                     bool   // the body is JSON but not an object
	n                             int    // elements of the events array

	events []Event
	states []eventState

	errIdx  int    // first event with an error other than a missing service, or -1
	errText string // its detail
	missSvc int    // first event without a service, or -1
}

// eventState is what validation needs to know of an event beyond the Event.
type eventState struct {
	has, bad  uint16 // fields present (not null) / of the wrong JSON type
	level     string // as sent
	timestamp string // as sent
	crumbs    string // the breadcrumbs value as sent, "" when absent or null
}

func (bt *batch) parse(d *decoder) bool {
	bt.errIdx, bt.missSvc = -1, -1
	d.ws()
	if d.i >= len(d.s) {
		return d.fail("empty body")
	}
	if d.s[d.i] != '{' { // valid JSON perhaps, but no events in it
		bt.eventsBad, bt.notObject = true, true
		if !d.skipValue(false) {
			return false
		}
		d.ws()
		return d.i == len(d.s) || d.fail("data after the top-level value")
	}
	d.i++
	d.ws()
	if d.i < len(d.s) && d.s[d.i] == '}' {
		d.i++
	} else {
		for {
			if !d.expect('"') {
				return false
			}
			d.i--
			k, ok := d.str(view)
			if !ok || !d.expect(':') {
				return false
			}
			d.ws()
			ok = true
			switch k {
			case "events":
				ok = bt.parseEvents(d)
			case "service":
				ok = optString(d, keep, &bt.service, fService, &bt.bad, nil)
			case "environment":
				ok = optString(d, keep, &bt.environment, fEnvironment, &bt.bad, nil)
			case "release":
				ok = optString(d, keep, &bt.release, fRelease, &bt.bad, nil)
			default:
				ok = d.skipValue(false)
			}
			if !ok {
				return false
			}
			d.ws()
			if d.i < len(d.s) && d.s[d.i] == ',' {
				d.i++
				continue
			}
			if !d.expect('}') {
				return false
			}
			break
		}
	}
	d.ws()
	return d.i == len(d.s) || d.fail("data after the top-level value")
}

// optString scans an optional string field: a string, or null for absent.
// Any other type marks field bad. The last of repeated keys wins.
func optString(d *decoder, mode int, dst *string, field uint16, bad, has *uint16) bool {
	var hasBits uint16
	if has == nil {
		has = &hasBits
	}
	*has &^= field
	*bad &^= field
	*dst = ""
	if d.i < len(d.s) && d.s[d.i] == '"' {
		v, ok := d.str(mode)
		*dst = v
		*has |= field
		return ok
	}
	if d.null() {
		return true
	}
	*bad |= field
	return d.skipValue(false)
}

func (bt *batch) parseEvents(d *decoder) bool {
	// A repeated events key replaces the earlier array, as with encoding/json.
	bt.events, bt.states, bt.n = bt.events[:0], bt.states[:0], 0
	bt.errIdx, bt.errText, bt.missSvc = -1, "", -1
	if d.i >= len(d.s) || d.s[d.i] != '[' {
		bt.hasEvents, bt.eventsBad = false, true
		return d.skipValue(false)
	}
	bt.hasEvents, bt.eventsBad = true, false
	if bt.events == nil {
		bt.events = make([]Event, 0, min(MaxEvents, len(d.s)/256+1))
		bt.states = make([]eventState, 0, cap(bt.events))
	}
	d.i++
	d.ws()
	if d.i < len(d.s) && d.s[d.i] == ']' {
		d.i++
		return true
	}
	for {
		d.ws()
		i := bt.n
		bt.n++
		var ok bool
		switch {
		case i >= MaxEvents || bt.errIdx >= 0:
			ok = d.skipValue(false) // the answer is a 422 already: only syntax matters
		case d.i < len(d.s) && d.s[d.i] == '{':
			ok = bt.parseEvent(d, i)
		default:
			bt.errIdx, bt.errText = i, "events["+strconv.Itoa(i)+"]: must be an object"
			ok = d.skipValue(false)
		}
		if !ok {
			return false
		}
		d.ws()
		if d.i < len(d.s) && d.s[d.i] == ',' {
			d.i++
			continue
		}
		return d.expect(']')
	}
}

// parseEvent scans the event object at d.i, the i-th of the batch.
func (bt *batch) parseEvent(d *decoder, i int) bool {
	bt.events = append(bt.events, Event{})
	bt.states = append(bt.states, eventState{})
	ev, st := &bt.events[len(bt.events)-1], &bt.states[len(bt.states)-1]
	var attr attrScan
	d.i++
	d.ws()
	if d.i < len(d.s) && d.s[d.i] == '}' {
		d.i++
	} else {
		for {
			if !d.expect('"') {
				return false
			}
			d.i--
			k, ok := d.str(view)
			if !ok || !d.expect(':') {
				return false
			}
			d.ws()
			if !eventField(d, k, ev, st, &attr) {
				return false
			}
			d.ws()
			if d.i < len(d.s) && d.s[d.i] == ',' {
				d.i++
				continue
			}
			if !d.expect('}') {
				return false
			}
			break
		}
	}
	if detail := bt.checkEvent(i, ev, st, &attr); detail != "" {
		bt.errIdx, bt.errText = i, detail
		return true
	}
	if st.crumbs != "" { // rare, so decoded the plain way, last of the fields
		crumbs, detail := parseBreadcrumbs(st.crumbs, "events["+strconv.Itoa(i)+"].", d.redact)
		if detail != "" {
			bt.errIdx, bt.errText = i, detail
			return true
		}
		ev.Detail = (&Detail{Breadcrumbs: crumbs}).Encode()
	}
	if attr.raw != "" {
		from := len(d.out.buf)
		d.out.buf = appendAttributes(d.out.buf, attr.raw, attr.base, attr.spans, attr.ws > 0)
		ev.Attributes = d.out.bytes(from)
	}
	return true
}

// eventField scans the value of an event's field k into ev, st and attr;
// false when the JSON is malformed.
func eventField(d *decoder, k string, ev *Event, st *eventState, attr *attrScan) bool {
	switch k {
	case "message":
		return optString(d, keep, &ev.Message, fMessage, &st.bad, &st.has)
	case "level":
		return optString(d, view, &st.level, fLevel, &st.bad, &st.has)
	case "timestamp":
		return optString(d, view, &st.timestamp, fTimestamp, &st.bad, &st.has)
	case "stack_trace":
		return optString(d, keep, &ev.StackTrace, fStackTrace, &st.bad, &st.has)
	case "service":
		return optString(d, keep, &ev.Service, fService, &st.bad, &st.has)
	case "environment":
		return optString(d, keep, &ev.Environment, fEnvironment, &st.bad, &st.has)
	case "release":
		return optString(d, keep, &ev.Release, fRelease, &st.bad, &st.has)
	case "trace_id":
		return optString(d, keep, &ev.TraceID, fTraceID, &st.bad, &st.has)
	case "span_id":
		return optString(d, keep, &ev.SpanID, fSpanID, &st.bad, &st.has)
	case "attributes":
		return scanAttributes(d, st, attr)
	case "breadcrumbs":
		st.crumbs = ""
		if d.null() {
			return true
		}
		start := d.i
		ok := d.skipValue(false)
		st.crumbs = d.s[start:d.i]
		return ok
	default:
		return d.skipValue(false)
	}
}

// scanAttributes scans an event's attributes value into attr.
func scanAttributes(d *decoder, st *eventState, attr *attrScan) bool {
	*attr = attrScan{}
	st.has &^= fAttributes
	st.bad &^= fAttributes
	if d.null() {
		return true
	}
	if d.i >= len(d.s) || d.s[d.i] != '{' {
		st.bad |= fAttributes
		return d.skipValue(false)
	}
	st.has |= fAttributes
	start := d.i
	d.attr = attrScan{redactAt: -1, spans: d.attr.spans[:0]}
	if !d.skipValue(true) {
		return false
	}
	*attr = d.attr
	attr.raw, attr.base = d.s[start:d.i], start
	return true
}
