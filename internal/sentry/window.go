package sentry

import (
	"encoding/binary"
	"strings"
)

// windowSlack is what a brotli or zstd decoder holds besides its window:
// its tables and block buffers (within DecoderMemory's margins).
const windowSlack = 1 << 20

// DeclaredMemory is what decoding a body of the single coding encoding
// needs, read from its first bytes: the window its stream declares
// (brotli's WBITS, RFC 7932 section 9.1; a zstd frame's window or content
// size, RFC 8878 section 3.1.1.1) and the decoder's buffers, at most
// DecoderMemory(encoding). A stream that does not say (a zstd body that
// begins with a skippable frame, a brotli large window) is given
// DecoderMemory. ok is false when prefix is too short to tell, and for
// codings other than br and zstd.
func DeclaredMemory(encoding string, prefix []byte) (n int64, ok bool) {
	most := DecoderMemory(encoding)
	var window int64
	switch strings.ToLower(strings.TrimSpace(encoding)) {
	case "br":
		window, ok = brotliWindow(prefix)
	case "zstd":
		window, ok = zstdWindow(prefix)
	default:
		return 0, false
	}
	if !ok {
		return 0, false
	}
	if window < 0 {
		return most, true
	}
	return min(window+windowSlack, most), true
}

// brotliWindow is the sliding window a brotli stream declares in its first
// bits (WBITS); -1 for the large-window extension, which Decompressor does
// not decode.
func brotliWindow(prefix []byte) (int64, bool) {
	if len(prefix) == 0 {
		return 0, false
	}
	b := prefix[0]
	var wbits uint
	switch {
	case b&1 == 0:
		wbits = 16
	case (b>>1)&7 != 0:
		wbits = 17 + uint((b>>1)&7)
	case (b>>4)&7 == 1:
		return -1, true
	case (b>>4)&7 != 0:
		wbits = 8 + uint((b>>4)&7)
	default:
		wbits = 17
	}
	return 1<<wbits - 16, true
}

const (
	zstdMagic         = 0xFD2FB528
	zstdSkippableMask = 0xFFFFFFF0
	zstdSkippable     = 0x184D2A50
)

// zstdWindow is the window the first zstd frame of a body declares: its
// Window_Descriptor, or its content size when it is a single segment; -1
// when the body begins with a skippable frame (what follows it is not
// known yet) or is not zstd.
func zstdWindow(prefix []byte) (int64, bool) {
	if len(prefix) < 6 {
		return 0, false
	}
	magic := binary.LittleEndian.Uint32(prefix)
	if magic&zstdSkippableMask == zstdSkippable || magic != zstdMagic {
		return -1, true
	}
	fhd := prefix[4]
	if fhd&0x20 == 0 { // not a single segment: a Window_Descriptor follows
		wd := prefix[5]
		base := int64(1) << (10 + wd>>3)
		return base + base/8*int64(wd&7), true
	}
	did := [4]int{0, 1, 2, 4}[fhd&3]
	fcs := [4]int{1, 2, 4, 8}[fhd>>6]
	at := 5 + did
	if len(prefix) < at+fcs {
		return 0, false
	}
	switch fcs {
	case 1:
		return int64(prefix[at]), true
	case 2:
		return int64(binary.LittleEndian.Uint16(prefix[at:])) + 256, true
	case 4:
		return int64(binary.LittleEndian.Uint32(prefix[at:])), true
	}
	size := binary.LittleEndian.Uint64(prefix[at:])
	if size > 1<<40 {
		return -1, true
	}
	return int64(size), true
}
