// Package wire reads the compact binary encodings Errata stores: varints
// and length-prefixed byte strings (the queue's payloads, the pending value
// counts).
package wire

import "encoding/binary"

// Reader reads values from B, front to back. Its first error sticks: every
// later read returns a zero value, and Err is Bad, the error the caller
// gave for malformed input.
type Reader struct {
	B   []byte
	Bad error
	Err error
}

func (r *Reader) fail() {
	r.Err = r.Bad
	r.B = nil
}

// Uvarint reads an unsigned varint.
func (r *Reader) Uvarint() uint64 {
	v, n := binary.Uvarint(r.B)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.B = r.B[n:]
	return v
}

// Varint reads a signed varint.
func (r *Reader) Varint() int64 {
	v, n := binary.Varint(r.B)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.B = r.B[n:]
	return v
}

// Byte reads one byte.
func (r *Reader) Byte() byte {
	if len(r.B) == 0 {
		r.fail()
		return 0
	}
	c := r.B[0]
	r.B = r.B[1:]
	return c
}

// Bytes reads a byte string prefixed by its length (a uvarint); the result
// shares B's memory.
func (r *Reader) Bytes() []byte {
	n := r.Uvarint()
	if r.Err != nil || n > uint64(len(r.B)) {
		r.fail()
		return nil
	}
	s := r.B[:n]
	r.B = r.B[n:]
	return s
}
