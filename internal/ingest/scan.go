package ingest

import (
	"strconv"
	"strings"
	"unsafe"
)

// decoder is a validating JSON scanner over one document. Every method that
// returns a bool returns false after a syntax error, recorded in syntax;
// scanning stops there.
type decoder struct {
	b []byte // the document
	s string // the same bytes, viewed as a string while scanning
	i int

	syntax string // first syntax error
	stack  []byte // open containers of skipValue
	out    arena  // what the results are made of

	// Set by skipValue(true), which scans attributes.
	attr attrScan
	// redact decides which attribute keys hold secrets.
	redact *Redactor
}

// attrScan is what scanning one attributes value found.
type attrScan struct {
	raw      string // the value as sent
	base     int    // its offset in decoder.s
	keys     int    // top-level keys
	depth    int    // deepest nesting; the outer object is 1
	ws       int    // bytes of insignificant whitespace
	spans    []span // values of secret-like keys, as offsets into decoder.s
	redactAt int    // depth of the secret key whose value is being scanned, or -1
}

type span struct{ start, end int }

// newDecoder scans doc. doc must not change while the decoder is in use;
// results made from the arena do not refer to it.
func newDecoder(doc []byte, arenaSize int) *decoder {
	return &decoder{b: doc, s: unsafe.String(unsafe.SliceData(doc), len(doc)), out: arena{make([]byte, 0, arenaSize)}, redact: defaultRedactor}
}

// arena is an append-only buffer the decoded strings and attributes are
// made of, saving an allocation each. Bytes below len(buf) are never written
// again, so every string and slice handed out stays immutable even when an
// append moves buf, as in strings.Builder.
type arena struct{ buf []byte }

// string returns buf[from:] as a string, without copying.
func (a *arena) string(from int) string {
	if from == len(a.buf) {
		return ""
	}
	return unsafe.String(&a.buf[from], len(a.buf)-from)
}

// bytes returns buf[from:] with no spare capacity, so appends to it copy.
func (a *arena) bytes(from int) []byte { return a.buf[from:len(a.buf):len(a.buf)] }

func (d *decoder) fail(msg string) bool {
	if d.syntax == "" {
		d.syntax = "invalid JSON at byte " + strconv.Itoa(d.i) + ": " + msg
	}
	return false
}

func (d *decoder) ws() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// wsAttr is ws that also counts the whitespace it skips inside attributes.
func (d *decoder) wsAttr(attr bool) {
	start := d.i
	d.ws()
	if attr {
		d.attr.ws += d.i - start
	}
}

// expect consumes c after optional whitespace.
func (d *decoder) expect(c byte) bool {
	d.ws()
	if d.i >= len(d.s) {
		return d.fail("unexpected end of input, expected '" + string(c) + "'")
	}
	if d.s[d.i] != c {
		return d.fail("expected '" + string(c) + "'")
	}
	d.i++
	return true
}

func (d *decoder) number() bool {
	s, i := d.s, d.i
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() bool {
		k := i
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
		return i > k
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case !digits():
		d.i = i
		return d.fail("invalid number")
	}
	if i < len(s) && s[i] == '.' {
		i++
		if !digits() {
			d.i = i
			return d.fail("invalid number")
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if !digits() {
			d.i = i
			return d.fail("invalid number")
		}
	}
	d.i = i
	return true
}

func (d *decoder) literal(word string) bool {
	if !strings.HasPrefix(d.s[d.i:], word) {
		return d.fail("invalid literal")
	}
	d.i += len(word)
	return true
}

// null consumes a null literal at d.i, if there is one.
func (d *decoder) null() bool {
	if strings.HasPrefix(d.s[d.i:], "null") {
		d.i += 4
		return true
	}
	return false
}

// skipValue scans one value of any type after optional whitespace. It is
// iterative, so nesting depth costs memory, never stack. With attr it records
// what Decode checks of attributes and where the values of secret-like keys
// are, at any depth.
func (d *decoder) skipValue(attr bool) bool {
	stack := d.stack[:0]
	defer func() { d.stack = stack[:0] }()
	for {
		// One value starts here.
		d.wsAttr(attr)
		if d.i >= len(d.s) {
			return d.fail("unexpected end of input")
		}
		switch c := d.s[d.i]; {
		case c == '{' || c == '[':
			d.i++
			if attr && len(stack)+1 > d.attr.depth {
				d.attr.depth = len(stack) + 1
			}
			d.wsAttr(attr)
			if d.i < len(d.s) && d.s[d.i] == c+2 { // '}' or ']'
				d.i++
				break
			}
			stack = append(stack, c)
			if c == '{' && !d.key(attr, len(stack)) {
				return false
			}
			continue
		case c == '"':
			if _, ok := d.str(skip); !ok {
				return false
			}
		case c == 't':
			if !d.literal("true") {
				return false
			}
		case c == 'f':
			if !d.literal("false") {
				return false
			}
		case c == 'n':
			if !d.literal("null") {
				return false
			}
		case c == '-' || '0' <= c && c <= '9':
			if !d.number() {
				return false
			}
		default:
			return d.fail("unexpected character")
		}
		// A value ended; close containers until the next value starts.
	closing:
		for {
			if attr && d.attr.redactAt == len(stack) {
				d.attr.spans[len(d.attr.spans)-1].end = d.i
				d.attr.redactAt = -1
			}
			if len(stack) == 0 {
				return true
			}
			d.wsAttr(attr)
			if d.i >= len(d.s) {
				return d.fail("unexpected end of input")
			}
			top := stack[len(stack)-1]
			switch c := d.s[d.i]; {
			case c == ',':
				d.i++
				if top == '{' && !d.key(attr, len(stack)) {
					return false
				}
				break closing
			case c == top+2:
				d.i++
				stack = stack[:len(stack)-1]
			default:
				return d.fail("expected ',' or '" + string(top+2) + "'")
			}
		}
	}
}

// key scans an object key and its colon inside skipValue, at the given depth.
func (d *decoder) key(attr bool, depth int) bool {
	d.wsAttr(attr)
	if d.i >= len(d.s) || d.s[d.i] != '"' {
		return d.fail("expected a string key")
	}
	mode := skip
	if attr {
		mode = view
	}
	k, ok := d.str(mode)
	if !ok {
		return false
	}
	d.wsAttr(attr)
	if d.i >= len(d.s) || d.s[d.i] != ':' {
		return d.fail("expected ':'")
	}
	d.i++
	if !attr {
		return true
	}
	d.wsAttr(attr)
	if depth == 1 {
		d.attr.keys++
	}
	if d.attr.redactAt < 0 && d.redact.secret(k) {
		d.attr.redactAt = depth
		d.attr.spans = append(d.attr.spans, span{start: d.i})
	}
	return true
}
