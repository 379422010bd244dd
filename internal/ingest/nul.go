package ingest

import (
	"bytes"
	"strings"
)

// ScrubNUL replaces U+0000 in every string of events with U+FFFD, in
// place (CONTRACT 7): PostgreSQL's text cannot hold it, and both databases
// must store the same thing. In attributes and the detail (breadcrumbs,
// source context), JSON, it replaces the
// escape `\u0000` (and any raw NUL byte) with `\ufffd`. Events without a
// NUL cost one scan of their bytes.
func ScrubNUL(events []Event) {
	for i := range events {
		e := &events[i]
		for _, s := range [...]*string{&e.Service, &e.Environment, &e.Release, &e.Message, &e.StackTrace, &e.TraceID, &e.SpanID} {
			if strings.IndexByte(*s, 0) >= 0 {
				*s = strings.ReplaceAll(*s, "\x00", "\uFFFD")
			}
		}
		if len(e.Attributes) > 0 {
			e.Attributes = scrubJSON(e.Attributes)
		}
		if len(e.Detail) > 0 { // breadcrumbs' data and source context, JSON too
			e.Detail = scrubJSON(e.Detail)
		}
	}
}

var escNUL = []byte(`\u0000`)

// scrubJSON returns attrs with every `\u0000` escape and raw NUL byte
// replaced; attrs itself when there is none (it is never modified).
func scrubJSON(attrs []byte) []byte {
	if !bytes.Contains(attrs, escNUL) && bytes.IndexByte(attrs, 0) < 0 {
		return attrs
	}
	out := make([]byte, 0, len(attrs)+8)
	for i := 0; i < len(attrs); i++ {
		c := attrs[i]
		switch {
		case c == 0:
			out = append(out, `\ufffd`...)
		case c == '\\' && i+1 < len(attrs):
			if bytes.HasPrefix(attrs[i:], escNUL) {
				out = append(out, `\ufffd`...)
				i += len(escNUL) - 1
				continue
			}
			out = append(out, c, attrs[i+1]) // any other escape, `\\` included, passes whole
			i++
		default:
			out = append(out, c)
		}
	}
	return out
}
