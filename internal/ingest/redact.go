package ingest

import "encoding/json"

// redacted replaces the value of a secret-like attribute.
const redacted = `"[redacted]"`

// isSecretKey reports whether an attribute key looks like a secret, as Redact
// describes.
func isSecretKey(k string) bool {
	// Dispatch on the last two significant bytes: most keys stop there.
	c1, j := lastSignificant(k, len(k))
	c2, j := lastSignificant(k, j)
	var name string
	switch uint16(c2)<<8 | uint16(c1) {
	case 'r'<<8 | 'd':
		name = "password"
	case 'w'<<8 | 'd':
		name = "passwd"
	case 'e'<<8 | 't':
		name = "secret"
	case 'e'<<8 | 'n':
		name = "token"
	case 'o'<<8 | 'n':
		name = "authorization"
	case 'e'<<8 | 'y':
		name = "apikey"
	case 'i'<<8 | 'e':
		name = "cookie"
	default:
		return false
	}
	for m := len(name) - 3; m >= 0; m-- {
		var c byte
		if c, j = lastSignificant(k, j); c != name[m] {
			return false
		}
	}
	return true
}

// lastSignificant returns the last byte of k[:j] that is not a separator,
// lowercased, and its index; 0 and -1 when there is none.
func lastSignificant(k string, j int) (byte, int) {
	for j--; j >= 0; j-- {
		switch c := k[j]; {
		case c == '-' || c == '_' || c == '.' || c == ' ':
		case 'A' <= c && c <= 'Z':
			return c + 'a' - 'A', j
		default:
			return c, j
		}
	}
	return 0, -1
}

// Redact returns attrs, a JSON object, with the value of every secret-like
// key replaced by "[redacted]", at any depth of nested objects, also inside
// arrays. A key is secret-like when, ignoring ASCII case and the separators
// '-', '_', '.' and ' ', it is or ends with password, passwd, secret, token,
// apikey, authorization or cookie (CONTRACT section 6): "db_password",
// "X-Api-Key", "apiKey", "accessToken" and "Set-Cookie" are; "token_count"
// and "password_hash" are not. The value is replaced whatever its type, and
// keys nested inside a replaced value go with it.
//
// attrs is never modified: when nothing needs redacting Redact returns attrs
// itself, otherwise a new slice. Input that is not a valid JSON object is
// returned unchanged; Decode only ever passes valid objects.
func Redact(attrs json.RawMessage) json.RawMessage {
	d := newDecoder(attrs, 0)
	d.attr.redactAt = -1
	d.ws()
	if d.i >= len(d.s) || d.s[d.i] != '{' || !d.skipValue(true) {
		return attrs
	}
	if d.ws(); d.i != len(d.s) || len(d.attr.spans) == 0 {
		return attrs
	}
	out := make([]byte, 0, len(attrs)+len(d.attr.spans)*len(redacted))
	return appendAttributes(out, d.s, 0, d.attr.spans, false)
}

// appendAttributes appends raw, found at offset base of the document, with
// the spans (offsets into the document) replaced by "[redacted]", and without
// insignificant whitespace when compact.
func appendAttributes(dst []byte, raw string, base int, spans []span, compact bool) []byte {
	prev := 0
	for _, sp := range spans {
		dst = appendJSON(dst, raw[prev:sp.start-base], compact)
		dst = append(dst, redacted...)
		prev = sp.end - base
	}
	return appendJSON(dst, raw[prev:], compact)
}

// appendJSON appends s, a run of valid JSON tokens that does not start or end
// inside a string, without its insignificant whitespace when compact.
func appendJSON(dst []byte, s string, compact bool) []byte {
	if !compact {
		return append(dst, s...)
	}
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case in && c == '\\':
			dst = append(dst, c, s[i+1])
			i++
			continue
		case in && c == '"':
			in = false
		case in:
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			continue
		case c == '"':
			in = true
		}
		dst = append(dst, c)
	}
	return dst
}
