package sentry

import "strings"

// windowSlack is what a brotli decoder holds besides its window: its
// tables and ring buffer's slack (within DecoderMemory's margin).
const windowSlack = 1 << 20

// DeclaredMemory is what decoding a br body needs, read from its first
// byte: the window its stream declares (WBITS, RFC 7932 section 9.1) and
// the decoder's tables, at most DecoderMemory("br"); the large-window
// extension, which Decompressor does not decode, is given DecoderMemory.
// ok is false when prefix is empty, and for every other coding: a zstd
// body may hold several frames, each declaring its own window (RFC 8878
// section 3.1.1.1), and the first one's says nothing of the next (a
// black-box audit sent a one-byte frame, then one of 8 MiB), so a zstd
// decoder is given DecoderMemory whatever its first frame says.
func DeclaredMemory(encoding string, prefix []byte) (n int64, ok bool) {
	if strings.ToLower(strings.TrimSpace(encoding)) != "br" {
		return 0, false
	}
	most := DecoderMemory(encoding)
	window, ok := brotliWindow(prefix)
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
