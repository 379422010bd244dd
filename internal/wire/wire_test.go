package wire_test

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/errata-dev/errata/internal/wire"
)

var errBad = errors.New("bad")

// TestReader: values read back as written; a truncated input sets Bad,
// which sticks.
func TestReader(t *testing.T) {
	var b []byte
	b = binary.AppendUvarint(b, 300)
	b = binary.AppendVarint(b, -7)
	b = append(b, 9)
	b = binary.AppendUvarint(b, 3)
	b = append(b, "abc"...)
	r := wire.Reader{B: b, Bad: errBad}
	if u, v, c, s := r.Uvarint(), r.Varint(), r.Byte(), string(r.Bytes()); u != 300 || v != -7 || c != 9 || s != "abc" || r.Err != nil {
		t.Fatalf("read %d %d %d %q %v", u, v, c, s, r.Err)
	}
	short := wire.Reader{B: []byte{5, 'a'}, Bad: errBad}
	if s := short.Bytes(); s != nil || !errors.Is(short.Err, errBad) {
		t.Fatalf("a string longer than its input: %q, %v; want nil, Bad", s, short.Err)
	}
	if u := short.Uvarint(); u != 0 || !errors.Is(short.Err, errBad) {
		t.Fatalf("after an error: %d, %v; want 0 and the error kept", u, short.Err)
	}
	empty := wire.Reader{Bad: errBad}
	if empty.Byte(); !errors.Is(empty.Err, errBad) {
		t.Fatal("a byte from nothing: no error")
	}
}
