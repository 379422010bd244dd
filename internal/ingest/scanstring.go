package ingest

import (
	"encoding/binary"
	"unicode/utf8"
)

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// special reports whether any byte of x is '"', '\\' or a control character.
func special(x uint64) bool {
	q := x ^ (ones * '"')
	bs := x ^ (ones * '\\')
	return ((x-ones*0x20)&^x|(q-ones)&^q|(bs-ones)&^bs)&highs != 0
}

// How str treats a string's value.
const (
	skip = iota // only validate it
	view        // return it; it may alias the document, so must not outlive the scan
	keep        // return it from the arena
)

// plain returns the index of the first '"', '\\' or control character at or
// after j, or len(d.s). It reads eight bytes at a time.
func (d *decoder) plain(j int) int {
	for j+8 <= len(d.b) && !special(binary.LittleEndian.Uint64(d.b[j:])) {
		j += 8
	}
	for j < len(d.s) && d.s[j] != '"' && d.s[j] != '\\' && d.s[j] >= 0x20 {
		j++
	}
	return j
}

// str scans the string starting at d.i (a '"') and returns its value as mode
// says.
func (d *decoder) str(mode int) (string, bool) {
	start := d.i + 1
	j := d.plain(start)
	if j < len(d.s) && d.s[j] == '"' {
		d.i = j + 1
		switch mode {
		case view:
			return d.s[start:j], true
		case keep:
			from := len(d.out.buf)
			d.out.buf = append(d.out.buf, d.s[start:j]...)
			return d.out.string(from), true
		}
		return "", true
	}
	return d.strEscaped(start, j, mode)
}

// strEscaped finishes str from j, the first escape or control character,
// decoding into the arena. Lone surrogate escapes become U+FFFD, as with
// encoding/json.
func (d *decoder) strEscaped(start, j int, mode int) (string, bool) {
	decode := mode != skip
	from := len(d.out.buf)
	buf := d.out.buf
	if decode {
		buf = append(buf, d.s[start:j]...)
	}
	s := d.s
	for j < len(s) {
		c := s[j]
		switch {
		case c == '"':
			d.i = j + 1
			if !decode {
				return "", true
			}
			d.out.buf = buf
			return d.out.string(from), true
		case c < 0x20:
			d.i = j
			return "", d.fail("control character in string")
		case c != '\\':
			k := d.plain(j + 1)
			if decode {
				buf = append(buf, s[j:k]...)
			}
			j = k
			continue
		}
		// An escape.
		if j+1 >= len(s) {
			break
		}
		e := s[j+1]
		j += 2
		switch e {
		case '"', '\\', '/':
		case 'b':
			e = '\b'
		case 'f':
			e = '\f'
		case 'n':
			e = '\n'
		case 'r':
			e = '\r'
		case 't':
			e = '\t'
		case 'u':
			r, ok := hex4(s, j)
			if !ok {
				d.i = j
				return "", d.fail("invalid \\u escape")
			}
			j += 4
			if utf16IsHigh(r) && j+6 <= len(s) && s[j] == '\\' && s[j+1] == 'u' {
				if lo, ok := hex4(s, j+2); ok && utf16IsLow(lo) {
					r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
					j += 6
				}
			}
			if decode {
				buf = utf8.AppendRune(buf, r) // a lone surrogate appends U+FFFD
			}
			continue
		default:
			d.i = j - 1
			return "", d.fail("invalid escape")
		}
		if decode {
			buf = append(buf, e)
		}
	}
	d.i = len(s)
	return "", d.fail("unterminated string")
}

func utf16IsHigh(r rune) bool { return 0xD800 <= r && r < 0xDC00 }
func utf16IsLow(r rune) bool  { return 0xDC00 <= r && r < 0xE000 }

func hex4(s string, j int) (rune, bool) {
	if j+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[j : j+4]) {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
