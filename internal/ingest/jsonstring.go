package ingest

import "unicode/utf8"

// AppendJSONString appends s as a JSON string: '"', '\\' and control
// characters escaped (\n, \r, \t by name, the others as \u00XX), "<", ">"
// and "&" kept as they are, each byte of invalid UTF-8 written as U+FFFD.
// With scrubNUL a NUL also becomes U+FFFD (CONTRACT 7), else it is \u0000.
// valid reports whether s was valid UTF-8.
//
// It is the one JSON string writer of the transports that build event
// payloads by hand (OTLP, Sentry) and of the load generator. They differ
// only where the stored bytes differ: the Sentry mapping scrubs NULs as it
// writes (scrubNUL), while an OTLP payload keeps \u0000 for intake's
// ScrubNUL to replace, and refuses invalid UTF-8 (valid false) as protobuf
// strings must be valid.
func AppendJSONString(dst []byte, s string, scrubNUL bool) (out []byte, valid bool) {
	const hex = "0123456789abcdef"
	valid = true
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if plainJSON[c] {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError || size != 1 {
				i += size
				continue
			}
			valid = false
		}
		dst = append(dst, s[start:i]...)
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c >= utf8.RuneSelf || (c == 0 && scrubNUL):
			dst = append(dst, "\uFFFD"...)
		default:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"'), valid
}

// plainJSON marks the ASCII bytes a JSON string holds as they are.
var plainJSON = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()
