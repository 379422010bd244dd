package otlp

import "encoding/binary"

// The HTTP/2 frames of a gRPC connection, as far as the gate needs them
// (RFC 9113 §4.1, §6): which stream each DATA byte belongs to, where a
// header block ends, and when a stream's request ends.
const (
	frameData         = 0x0
	frameHeaders      = 0x1
	frameRSTStream    = 0x3
	frameContinuation = 0x9

	flagEndStream  = 0x1
	flagEndHeaders = 0x4
	flagPadded     = 0x8

	frameHeaderLen = 9
	// clientPrefaceLen is the client connection preface's fixed part,
	// "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"; its SETTINGS frame follows as an
	// ordinary frame.
	clientPrefaceLen = 24
)

// frameHooks receive what the frames handed to gRPC carry.
type frameHooks interface {
	// data is DATA payload of stream, padding left out.
	data(stream uint32, p []byte)
	// ended is the end of stream's request (END_STREAM or RST_STREAM).
	ended(stream uint32)
	// headerBlock is the end of a header block that opened or continued
	// stream; endStream reports whether its HEADERS frame also ended the
	// stream's request.
	headerBlock(stream uint32, endStream bool)
}

// frameReader follows the frames of a connection's bytes in the order they
// are handed to gRPC, byte by byte, whatever the chunks.
type frameReader struct {
	preface int // preface bytes still to pass
	hdr     [frameHeaderLen]byte
	hdrN    int // bytes of hdr filled
	length  int // the current frame's payload length
	pos     int // payload bytes passed
	typ     byte
	flags   byte
	stream  uint32
	padLen  int // DATA with PADDED: the padding's length, once read
	// blockEndStream is the END_STREAM flag of the HEADERS frame whose
	// block CONTINUATION frames are continuing.
	blockEndStream bool
}

func newFrameReader() frameReader { return frameReader{preface: clientPrefaceLen} }

// pass follows b and stops right after the end of a header block, so that
// gRPC (which runs a new stream's tap as soon as it has read the stream's
// header block) never holds bytes of a later frame when it does. It
// returns how many bytes of b it passed: at least one when b is not empty.
func (f *frameReader) pass(b []byte, h frameHooks) int {
	n := 0
	for n < len(b) {
		if f.preface > 0 {
			k := min(f.preface, len(b)-n)
			f.preface -= k
			n += k
			continue
		}
		if f.hdrN < frameHeaderLen {
			k := copy(f.hdr[f.hdrN:], b[n:])
			f.hdrN += k
			n += k
			if f.hdrN < frameHeaderLen {
				return n
			}
			f.length = int(f.hdr[0])<<16 | int(f.hdr[1])<<8 | int(f.hdr[2])
			f.typ, f.flags = f.hdr[3], f.hdr[4]
			f.stream = binary.BigEndian.Uint32(f.hdr[5:]) & 0x7fffffff
			f.pos, f.padLen = 0, 0
			if f.length == 0 && f.finish(h) {
				return n
			}
			continue
		}
		k := min(f.length-f.pos, len(b)-n)
		if f.typ == frameData {
			f.dataBytes(b[n:n+k], h)
		}
		f.pos += k
		n += k
		if f.pos == f.length && f.finish(h) {
			return n
		}
	}
	return n
}

// dataBytes hands the part of p (payload from offset f.pos on) that is
// data, not the pad length or the padding.
func (f *frameReader) dataBytes(p []byte, h frameHooks) {
	lo, hi := 0, f.length
	if f.flags&flagPadded != 0 {
		if f.pos == 0 && len(p) > 0 {
			f.padLen = int(p[0])
		}
		lo, hi = 1, f.length-f.padLen
	}
	a, b := max(lo, f.pos), min(hi, f.pos+len(p))
	if a < b {
		h.data(f.stream, p[a-f.pos:b-f.pos])
	}
}

// finish ends the current frame and reports whether it ended a header
// block.
func (f *frameReader) finish(h frameHooks) bool {
	f.hdrN = 0
	switch f.typ {
	case frameData:
		if f.flags&flagEndStream != 0 {
			h.ended(f.stream)
		}
	case frameRSTStream:
		h.ended(f.stream)
	case frameHeaders:
		f.blockEndStream = f.flags&flagEndStream != 0
		if f.flags&flagEndHeaders != 0 {
			h.headerBlock(f.stream, f.blockEndStream)
			return true
		}
	case frameContinuation:
		if f.flags&flagEndHeaders != 0 {
			h.headerBlock(f.stream, f.blockEndStream)
			return true
		}
	}
	return false
}
