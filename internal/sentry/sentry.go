// Package sentry speaks the protocol of Sentry SDKs, so that an application
// that already reports to Sentry can report to Errata by changing its DSN
// (CONTRACT section 7, docs/sentry.md).
//
// It is pure: bytes in, ingest events out, no HTTP, store or configuration.
// Package sentryhttp serves the endpoints with it; a request of POST
// /api/{number}/envelope/ runs, in this order:
//
//	key := the sentry_key query parameter, or AuthKey(X-Sentry-Auth) // 403 unless a key of project {number}
//	CheckEncoding(contentEncoding)                                  // 415 on ErrUnsupportedEncoding
//	r, err := Decompressor(contentEncoding, body)                   // DecoderMemory(contentEncoding) reserved meanwhile
//	body := read r up to MaxDecodedBytes                            // 413 past it
//	key = ParseDSN(ParseHeader(body).DSN).Key when it had none      // 403
//	env, err := ParseEnvelope(body)                                 // 400 on ErrMalformed, 413 on ErrItemTooLarge
//	res := Map(env, Options{Service: projectName, ReceivedAt: now, Redact: redactor})
//	commit res.Events; count res.Dropped and res.Malformed; answer {"id": res.EventID}
//
// POST /api/{number}/store/ does the same with ParseStore instead of
// ParseEnvelope.
package sentry

import (
	"errors"

	"github.com/errata-dev/errata/internal/ingest"
)

// Limits of one request (CONTRACT section 7, which follows Sentry's own).
const (
	// MaxBodyBytes caps a request body as it arrives, compressed or not.
	MaxBodyBytes = 20 << 20
	// MaxDecodedBytes caps a request body after decompression.
	MaxDecodedBytes = 100 << 20
	// MaxItemBytes caps the payload of one item, of any type, and the body
	// of a store request after its legacy base64 and zlib encoding is undone.
	MaxItemBytes = 1 << 20
	// MaxItems caps the items read from one envelope; SDKs send a handful.
	// Items past it are reported as one malformed item and not read.
	MaxItems = 1000
	// MaxEvents caps the events made from one envelope (a log item carries
	// one event per record, CONTRACT 7), as OTLP caps a request's records;
	// records past it are reported as malformed. They are committed in
	// batches of at most ingest.MaxEvents, together, and take one token of
	// the project's /v1/ingest bucket per 1,000 (CONTRACT 8).
	MaxEvents = 64 * ingest.MaxEvents
)

// Errors of a whole request. Each maps to one HTTP status; a malformed item
// is not an error but a Malformed entry of the Envelope or the Result.
var (
	// ErrMalformed: the body is not an envelope (or not an event, for the
	// store endpoint); 400.
	ErrMalformed = errors.New("sentry: malformed request body")
	// ErrItemTooLarge: an item is larger than MaxItemBytes; 413.
	ErrItemTooLarge = errors.New("sentry: item too large")
	// ErrUnsupportedEncoding: a Content-Encoding Errata cannot decode; 415.
	ErrUnsupportedEncoding = errors.New("sentry: unsupported content encoding")
)

// Malformed is an item (or a log record) that was dropped because it could
// not be read, and why; the other items of its envelope are kept.
type Malformed struct {
	Item   int    // the item's position in the envelope, from 0
	Type   string // the item's type, when its header could be read
	Reason string
}
