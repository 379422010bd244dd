package sentry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Item types read into events; every other type is accepted and dropped.
const (
	TypeEvent = "event"
	TypeLog   = "log"
	// TypeTransaction is also the type of an "event" item whose payload
	// says "type": "transaction" (older SDKs); both are dropped.
	TypeTransaction = "transaction"
)

// Envelope is a request body split into its header and items, as the Sentry
// envelope format describes: a header line, then items, each an item header
// line and a payload of exactly "length" bytes or, without length, up to the
// next newline. Payloads are slices of the body, not yet decoded.
type Envelope struct {
	Header Header
	Items  []Item
	// Malformed lists the items that could not be framed (a bad item
	// header, a payload cut short); the items around them are kept.
	Malformed []Malformed
}

// Header holds the envelope header fields Errata uses.
type Header struct {
	EventID string // the event's id, answered as {"id": …}
	DSN     string // a DSN, when the envelope authenticates itself
	SentAt  string
	SDK     string // the SDK's name, such as "sentry.javascript.node"
}

// Item is one framed item. Index is its position in the envelope, counting
// malformed items too, so that reports name the item the client sent.
type Item struct {
	Index       int
	Type        string
	ContentType string
	Payload     []byte
}

// headerJSON is the envelope header as sent. Fields of an unexpected type
// are ignored rather than rejecting the envelope.
type headerJSON struct {
	EventID string `json:"event_id"`
	DSN     string `json:"dsn"`
	SentAt  string `json:"sent_at"`
	SDK     struct {
		Name string `json:"name"`
	} `json:"sdk"`
}

// itemHeaderJSON is an item header as sent.
type itemHeaderJSON struct {
	Type        json.RawMessage `json:"type"`
	Length      json.RawMessage `json:"length"`
	ContentType json.RawMessage `json:"content_type"`
}

// ParseEnvelope frames an envelope. A body whose first line is not a JSON
// object is ErrMalformed (400); an item of any type larger than
// MaxItemBytes is ErrItemTooLarge (413, CONTRACT 7: "1 MiB per item"). Any other fault drops one item: it is listed in
// Malformed and the items around it are kept.
//
// Beyond the specification it accepts blank lines between items and "\r\n"
// line ends after headers (hand-written envelopes have them); a trailing
// newline is optional.
func ParseEnvelope(body []byte) (*Envelope, error) {
	header, err := ParseHeader(body)
	if err != nil {
		return nil, err
	}
	_, rest := cutLine(body)
	env := &Envelope{Header: header}
	for index := 0; ; index++ {
		rest = skipBlankLines(rest)
		if len(rest) == 0 {
			return env, nil
		}
		if index == MaxItems {
			env.Malformed = append(env.Malformed, Malformed{Item: index,
				Reason: "more than " + strconv.Itoa(MaxItems) + " items: the rest of the envelope was not read"})
			return env, nil
		}
		var it Item
		var why string
		it, rest, why = nextItem(rest)
		it.Index = index
		if strings.HasPrefix(why, errTruncated) {
			return nil, fmt.Errorf("%w: item %d (%s): %s: the envelope was cut short", ErrMalformed, index, it.Type, why)
		}
		if why != "" {
			env.Malformed = append(env.Malformed, Malformed{Item: index, Type: it.Type, Reason: why})
			continue
		}
		if len(it.Payload) > MaxItemBytes {
			return nil, fmt.Errorf("%w: item %d (%s) is %d bytes, more than %d", ErrItemTooLarge, index, it.Type, len(it.Payload), MaxItemBytes)
		}
		env.Items = append(env.Items, it)
	}
}

// ParseHeader reads only the header line of an envelope: enough to
// authenticate a request by the header's dsn before its items are framed.
// A first line that is not a JSON object is ErrMalformed (400).
func ParseHeader(body []byte) (Header, error) {
	line, _ := cutLine(body)
	var h headerJSON
	if err := decodeObject(line, &h); err != nil {
		return Header{}, fmt.Errorf("%w: the envelope header (first line) %v", ErrMalformed, err)
	}
	return Header{EventID: h.EventID, DSN: h.DSN, SentAt: h.SentAt, SDK: h.SDK.Name}, nil
}

// nextItem reads one item from the start of b and returns it, the rest of
// b, and why the item is malformed ("" when it is not). A malformed item
// header is skipped with the line after it, its presumed payload: without a
// readable length that is the only framing there is.
func nextItem(b []byte) (Item, []byte, string) {
	line, rest := cutLine(b)
	var ih itemHeaderJSON
	if err := decodeObject(line, &ih); err != nil {
		// Its presumed payload goes with it, unless that line reads as an
		// item header itself: a stray line before an item must not take
		// the item's header along.
		if next, after := cutLine(rest); !isItemHeader(next, after) {
			rest = after
		}
		return Item{}, rest, "the item header " + err.Error()
	}
	var it Item
	typ, okType := jsonString(ih.Type)
	ct, okCT := jsonString(ih.ContentType)
	it.Type, it.ContentType = typ, ct
	length, hasLength, okLength := jsonLength(ih.Length)
	if !okLength {
		_, rest = cutLine(rest)
		return it, rest, "the item header's length is not a non-negative integer"
	}
	if hasLength {
		if uint64(len(rest)) < length {
			return it, nil, errTruncated + strconv.FormatUint(length, 10)
		}
		it.Payload, rest = rest[:length], rest[length:]
		if len(rest) > 0 {
			if rest[0] != '\n' {
				// The rest of the line goes with the payload (its length
				// was wrong), unless it reads as an item header: then the
				// newline was forgotten, and the next item is kept.
				if line, after := cutLine(rest); !isItemHeader(line, after) {
					rest = after
				}
				return it, rest, "the payload of length " + strconv.FormatUint(length, 10) + " is not followed by a newline"
			}
			rest = rest[1:]
		}
	} else {
		it.Payload, rest = cutLine(rest)
	}
	switch {
	case !okType || typ == "":
		return it, rest, "the item header has no type"
	case !okCT:
		return it, rest, "the item header's content_type is not a string"
	}
	return it, rest, ""
}

// errTruncated begins the reason of an item whose payload runs past the
// end of the body: the envelope was cut short, and is malformed (400).
const errTruncated = "the payload is shorter than its length "

// isItemHeader reports whether line, followed by rest, reads as an item
// header as SDKs write them: a JSON object with a string type whose members
// are all item-header members, or, with others (a newer SDK's), whose
// numeric length frames a payload that a newline or the body's end
// follows. It decides where framing resumes after a fault, so a payload
// line with a type of its own (a transaction, a line of a JSONL
// attachment), which carries other members and no such length, is not
// taken for one.
func isItemHeader(line, rest []byte) bool {
	var ih itemHeaderJSON
	if decodeObject(line, &ih) != nil {
		return false
	}
	if typ, ok := jsonString(ih.Type); !ok || typ == "" {
		return false
	}
	known := true
	for _, f := range objectFields(line) {
		known = known && itemHeaderKeys[f.key]
	}
	if known {
		return true
	}
	n, has, ok := jsonLength(ih.Length)
	return ok && has && uint64(len(rest)) >= n && (uint64(len(rest)) == n || rest[n] == '\n')
}

// itemHeaderKeys are the members of item headers SDKs and Relay write.
var itemHeaderKeys = map[string]bool{
	"type": true, "length": true, "content_type": true, "filename": true, "attachment_type": true,
	"item_count": true, "platform": true, "event_id": true, "sdk": true, "sampled": true,
	"meta_length": true, "span_id": true, "sentry_release": true, "sentry_environment": true, "profile_type": true,
	"rate_limited": true, "source_quantities": true, "sample_rates": true, "metrics_extracted": true,
	"spans_extracted": true, "fully_normalized": true, "routing_hint": true,
}

// cutLine splits b after its first "\n", which belongs to neither part.
func cutLine(b []byte) (line, rest []byte) {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i], b[i+1:]
	}
	return b, nil
}

// skipBlankLines drops empty lines ("\n", "\r\n") where an item header is
// expected.
func skipBlankLines(b []byte) []byte {
	for len(b) > 0 {
		switch {
		case b[0] == '\n':
			b = b[1:]
		case len(b) > 1 && b[0] == '\r' && b[1] == '\n':
			b = b[2:]
		default:
			return b
		}
	}
	return b
}

var errNotObject = errors.New("is not a JSON object")

// decodeObject decodes a header line, which must be one JSON object. Fields
// of an unexpected type are left empty rather than failing.
func decodeObject(line []byte, v any) error {
	t := bytes.TrimSpace(line)
	if len(t) == 0 || t[0] != '{' {
		return errNotObject
	}
	if lenient(json.Unmarshal(t, v)) != nil {
		return errNotObject
	}
	return nil
}

// jsonString decodes a JSON string; absent or null is "" and ok.
func jsonString(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", true
	}
	// The common case needs no decoding: no escapes, valid UTF-8.
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' && bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		return string(raw[1 : len(raw)-1]), true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// jsonLength decodes an item length: absent or null has none; anything but
// a non-negative integer is not ok.
func jsonLength(raw json.RawMessage) (n uint64, has, ok bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, false, true
	}
	n, err := strconv.ParseUint(string(raw), 10, 63)
	if err != nil {
		return 0, false, false
	}
	return n, true, true
}
