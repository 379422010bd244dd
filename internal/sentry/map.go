package sentry

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"github.com/errata-dev/errata/internal/ingest"
)

// Options are what the mapping needs besides the envelope.
type Options struct {
	// Service is the service of events without a "service" tag: the
	// project's name (a Sentry project is usually one service).
	Service string
	// ReceivedAt is the timestamp of events that carry none.
	ReceivedAt time.Time
	// Redact redacts the events' attributes (ERRATA_REDACT_KEYS); nil
	// uses ingest's default redactor.
	Redact *ingest.Redactor
	// UserAgent is the User-Agent header of the HTTP request that carried
	// the envelope. A browser's is the user agent of the events whose own
	// request names none (CONTRACT 8: browser and os come from it); an SDK's
	// own agent (sentry.python/2.0) is not, since it names no browser.
	UserAgent string
	// NewID gives an event without a usable event_id its id; nil: a
	// random one (newEventID).
	NewID func() string
}

// Result is what Map made of an envelope.
type Result struct {
	// EventID is the id to answer with, {"id": EventID}: the envelope
	// header's event_id, else the first event item's, else (neither is 32
	// hexadecimal digits) a new one the first event is stored with; ""
	// (answer {}) for envelopes without an event, such as sessions or logs
	// alone.
	EventID string
	// Events are the accepted events, in envelope order: one per event
	// item, one per log record. Each is valid for ingestion: limits are met
	// by truncating, never by rejecting, since an SDK cannot fix its events.
	Events []ingest.Event
	// Dropped counts the items accepted and dropped, by item type
	// ("session", "client_report", "transaction", …); nil when none.
	Dropped map[string]int
	// Malformed lists the items and log records dropped because they could
	// not be read, with the envelope's own framing faults first.
	Malformed []Malformed
}

func (r *Result) drop(typ string) {
	if r.Dropped == nil {
		r.Dropped = make(map[string]int, 2)
	}
	r.Dropped[typ]++
}

// Map turns the items of an envelope into events: each event item becomes
// one event, each log record one event, and every other item type is
// counted as dropped. An item that cannot be read is listed in Malformed and
// the others are kept. Map is pure (but for Options.NewID); docs/sentry.md describes the mapping.
func Map(env *Envelope, opts Options) Result {
	res := Result{EventID: cleanID(env.Header.EventID)}
	res.Malformed = append(res.Malformed, env.Malformed...)
	m := mapping{service: opts.Service, received: opts.ReceivedAt.UnixMilli(), redact: opts.Redact, newID: opts.NewID}
	if m.newID == nil {
		m.newID = newEventID
	}
	if strings.HasPrefix(opts.UserAgent, "Mozilla/") { // every browser's, and no SDK's
		m.userAgent = opts.UserAgent
	}
	if m.redact == nil {
		m.redact = ingest.DefaultRedactor()
	}
	for _, it := range env.Items {
		switch it.Type {
		case TypeEvent:
			mapEventItem(&res, it, &m)
		case TypeLog:
			mapLogItem(&res, it, &m)
		default:
			res.drop(it.Type)
		}
	}
	return res
}

// mapping is what mapping one event needs besides its item.
type mapping struct {
	service  string // the project's name, for events without a service
	received int64  // Unix milliseconds, for events without a timestamp
	redact   *ingest.Redactor
	newID    func() string
	// userAgent is a browser's User-Agent header of the request (Options).
	userAgent string
	// headerIDTaken is set once the envelope's first event took the
	// header's event_id, the id the SDK is answered with.
	headerIDTaken bool
}

// mapEventItem maps one event item into res.
func mapEventItem(res *Result, it Item, m *mapping) {
	var se sentryEvent
	if err := decodeEvent(it.Payload, &se); err != nil {
		res.Malformed = append(res.Malformed, Malformed{Item: it.Index, Type: it.Type, Reason: "the event " + err.Error()})
		return
	}
	if se.Type == TypeTransaction {
		res.drop(TypeTransaction)
		return
	}
	if len(res.Events) >= MaxEvents {
		res.Malformed = append(res.Malformed, Malformed{Item: it.Index, Type: it.Type,
			Reason: "more than " + strconv.Itoa(MaxEvents) + " events in one envelope"})
		return
	}
	switch {
	case res.EventID == "":
		if cleanID(se.EventID) == "" {
			// As Relay does, an event without a usable id is given one, so
			// that the id answered finds it (lookup).
			se.EventID = m.newID()
		}
		res.EventID, m.headerIDTaken = cleanID(se.EventID), true
	case !m.headerIDTaken:
		// The id the SDK is answered with is the envelope header's: the
		// event it came with is found by it (lookup), whatever id its
		// payload names.
		se.EventID, m.headerIDTaken = res.EventID, true
	case cleanID(se.EventID) == "":
		se.EventID = m.newID()
	}
	res.Events = append(res.Events, mapEvent(&se, m))
}

// newEventID is a random event id: 32 lowercase hexadecimal digits, a
// version 4 UUID's without its dashes.
func newEventID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return hex.EncodeToString(b[:])
}

// cleanID keeps an event id that is 32 hexadecimal digits, with or without
// the dashes of a UUID, as 32 lowercase digits; anything else is "", so that
// nothing a client sends is echoed back unchecked.
func cleanID(id string) string {
	var b [32]byte
	n := 0
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c == '-' && len(id) == 36:
			continue
		case '0' <= c && c <= '9', 'a' <= c && c <= 'f':
		case 'A' <= c && c <= 'F':
			c += 'a' - 'A'
		default:
			return ""
		}
		if n == len(b) {
			return ""
		}
		b[n] = c
		n++
	}
	if n != len(b) {
		return ""
	}
	return string(b[:])
}
