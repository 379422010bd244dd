package ingest

import (
	"encoding/json"
	"strings"
)

// redacted replaces the value of a secret-like attribute.
const redacted = `"[redacted]"`

// DefaultSecretKeys are the names a key is redacted for when it is, or ends
// with, one of them, ignoring ASCII case and the separators '-', '_', '.'
// and ' ' (CONTRACT 6 and 7): so "private_key" is "privatekey" and
// "X-Api-Key" ends with "apikey".
var DefaultSecretKeys = []string{
	"password", "passwd", "pwd", "passphrase", "secret", "token", "apikey", "authorization", "auth",
	"cookie", "privatekey", "credential", "credentials", "session", "sessionid",
}

// Redactor decides which attribute keys hold secrets: those that are, or
// end with, one of its names. The zero value is not usable; see
// NewRedactor.
type Redactor struct {
	// byLast holds the normalised names by their last byte, so a key is
	// compared only with the names it could end with.
	byLast [256][]string
}

// defaultRedactor redacts DefaultSecretKeys; it never changes.
var defaultRedactor = NewRedactor(nil)

// DefaultRedactor returns the Redactor of DefaultSecretKeys.
func DefaultRedactor() *Redactor { return defaultRedactor }

// NewRedactor returns a Redactor for DefaultSecretKeys plus extra
// (ERRATA_REDACT_KEYS), normalised the same way; names that normalise to
// nothing are ignored.
func NewRedactor(extra []string) *Redactor {
	r := &Redactor{}
	seen := map[string]bool{}
	for _, name := range append(append([]string(nil), DefaultSecretKeys...), extra...) {
		n := NormalizeKey(name)
		if n == "" || seen[n] {
			continue
		}
		seen[n] = true
		r.byLast[n[len(n)-1]] = append(r.byLast[n[len(n)-1]], n)
	}
	return r
}

// NormalizeKey lowercases ASCII letters and drops the separators '-', '_',
// '.' and ' ': the form keys are compared in.
func NormalizeKey(k string) string {
	var b strings.Builder
	for i := 0; i < len(k); i++ {
		switch c := k[i]; {
		case c == '-' || c == '_' || c == '.' || c == ' ':
		case 'A' <= c && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// secret reports whether key k looks like a secret.
func (r *Redactor) secret(k string) bool {
	c1, j := lastSignificant(k, len(k))
	if j < 0 {
		return false
	}
names:
	for _, name := range r.byLast[c1] {
		jj := j
		for m := len(name) - 2; m >= 0; m-- {
			var c byte
			if c, jj = lastSignificant(k, jj); c != name[m] {
				continue names
			}
		}
		return true
	}
	return false
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

// Redact is Redactor.Redact with DefaultSecretKeys.
func Redact(attrs json.RawMessage) json.RawMessage { return defaultRedactor.Redact(attrs) }

// Redact returns attrs, a JSON object, with the value of every secret-like
// key replaced by "[redacted]", at any depth of nested objects, also inside
// arrays. A key is secret-like when, ignoring ASCII case and the separators
// '-', '_', '.' and ' ', it is or ends with one of the redactor's names:
// with the defaults, "db_password", "X-Api-Key", "apiKey", "accessToken",
// "private_key" and "Set-Cookie" are; "token_count" and "password_hash" are
// not. The value is replaced whatever its type, and keys nested inside a
// replaced value go with it.
//
// attrs is never modified: when nothing needs redacting Redact returns attrs
// itself, otherwise a new slice. Input that is not a valid JSON object is
// returned unchanged; Decode only ever passes valid objects.
func (r *Redactor) Redact(attrs json.RawMessage) json.RawMessage {
	d := newDecoder(attrs, 0)
	d.redact = r
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
