package sentry

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime"
)

// envelopeMediaType marks a store request whose body is an envelope, as
// Sentry's own store endpoint accepts.
const envelopeMediaType = "application/x-sentry-envelope"

// ParseStore reads the body of a legacy store request (POST /api/{n}/store/)
// as an envelope of one event item. The body is the event's JSON, or, as the
// old raven clients sent it, that JSON zlib-compressed and base64-encoded,
// or only base64-encoded; with Content-Type application/x-sentry-envelope it
// is an envelope. Anything else is ErrMalformed (400); an event larger than
// MaxItemBytes once decoded is ErrItemTooLarge (413).
func ParseStore(contentType string, body []byte) (*Envelope, error) {
	if mt, _, err := mime.ParseMediaType(contentType); err == nil && mt == envelopeMediaType {
		return ParseEnvelope(body)
	}
	payload, err := decodeStoreBody(body)
	if err != nil {
		return nil, err
	}
	if len(payload) > MaxItemBytes {
		return nil, fmt.Errorf("%w: the event is %d bytes, more than %d", ErrItemTooLarge, len(payload), MaxItemBytes)
	}
	if !json.Valid(payload) {
		fixed, changed := fixNonFinite(payload)
		if !changed || !json.Valid(fixed) {
			return nil, fmt.Errorf("%w: the body is not a JSON event", ErrMalformed)
		}
		payload = fixed
	}
	return &Envelope{Items: []Item{{Type: TypeEvent, ContentType: "application/json", Payload: payload}}}, nil
}

// decodeStoreBody undoes the legacy encodings of a store body: base64, then
// zlib when the decoded bytes are not JSON.
func decodeStoreBody(body []byte) ([]byte, error) {
	t := bytes.TrimSpace(body)
	if len(t) == 0 {
		return nil, fmt.Errorf("%w: the body is empty", ErrMalformed)
	}
	if t[0] == '{' {
		return t, nil
	}
	raw := bytes.TrimRight(t, "=")
	bin := make([]byte, base64.RawStdEncoding.DecodedLen(len(raw)))
	n, err := base64.RawStdEncoding.Decode(bin, raw)
	if err != nil {
		return nil, fmt.Errorf("%w: the body is neither JSON nor base64", ErrMalformed)
	}
	bin = bin[:n]
	if len(bin) > 0 && bin[0] == '{' {
		return bin, nil
	}
	zr, err := zlib.NewReader(bytes.NewReader(bin))
	if err != nil {
		return nil, fmt.Errorf("%w: the base64 body is neither JSON nor zlib", ErrMalformed)
	}
	defer zr.Close()
	out, err := io.ReadAll(io.LimitReader(zr, MaxItemBytes+1))
	switch {
	case len(out) > MaxItemBytes:
		return nil, fmt.Errorf("%w: the event is more than %d bytes once inflated", ErrItemTooLarge, MaxItemBytes)
	case err != nil:
		return nil, fmt.Errorf("%w: the zlib body is corrupt: %v", ErrMalformed, err)
	}
	return out, nil
}

// fixNonFinite replaces the bare NaN, Infinity and -Infinity tokens that
// Python's json module writes (and Sentry's Python SDKs have sent) with null,
// outside strings. It reports whether it changed anything.
func fixNonFinite(b []byte) ([]byte, bool) {
	var out []byte
	last := 0
	inString := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case inString:
		case c == 'N' && bytes.HasPrefix(b[i:], []byte("NaN")),
			c == 'I' && bytes.HasPrefix(b[i:], []byte("Infinity")),
			c == '-' && bytes.HasPrefix(b[i:], []byte("-Infinity")):
			n := 3
			if c != 'N' {
				n = bytes.IndexByte(b[i:], 'y') + 1
			}
			out = append(out, b[last:i]...)
			out = append(out, "null"...)
			last = i + n
			i += n - 1
		}
	}
	if out == nil {
		return b, false
	}
	return append(out, b[last:]...), true
}
