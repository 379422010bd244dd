package sentry

import (
	"bufio"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
)

// MaxZstdWindow is the largest zstd window accepted: 8 MiB, the limit RFC
// 9659 sets for the zstd content coding in HTTP. It bounds what a hostile
// frame can make the decoder allocate; frames asking for more fail.
const MaxZstdWindow = 8 << 20

// maxCodings caps the codings listed in one Content-Encoding header.
const maxCodings = 3

// What one decoder holds at most while it runs, measured by
// TestDecompressorHostile with a margin: its window and tables.
const (
	flateMemory  = 64 << 10              // gzip and deflate: a 32 KiB window
	brotliMemory = 17 << 20              // a 16 MiB window at most
	zstdMemory   = MaxZstdWindow + 1<<20 // MaxZstdWindow and its buffers
)

// CheckEncoding reports ErrUnsupportedEncoding (415) for a Content-Encoding
// that Decompressor refuses, so that a handler can answer before it reads
// the body.
//
// A list of more than maxCodings known codings is ErrTooManyCodings, a
// malformed header (400) rather than an unsupported coding.
func CheckEncoding(encoding string) error {
	codings := strings.Split(encoding, ",")
	for _, c := range codings {
		if !knownCoding(c) {
			return fmt.Errorf("%w: %q", ErrUnsupportedEncoding, strings.TrimSpace(c))
		}
	}
	if len(codings) > maxCodings {
		return fmt.Errorf("%w: more than %d codings in %q", ErrTooManyCodings, maxCodings, encoding)
	}
	return nil
}

// ErrTooManyCodings is a Content-Encoding listing more than maxCodings
// codings, each known.
var ErrTooManyCodings = errors.New("sentry: too many codings in Content-Encoding")

// DecoderMemory is the most the decoders of an accepted Content-Encoding
// hold at once, besides their output, for a memory budget to reserve
// before decoding: 64 KiB for gzip or deflate, 17 MiB for br, 9 MiB for zstd,
// summed over a list of codings; 0 for none.
func DecoderMemory(encoding string) int64 {
	var n int64
	for _, c := range strings.Split(encoding, ",") {
		switch strings.ToLower(strings.TrimSpace(c)) {
		case "gzip", "x-gzip", "deflate":
			n += flateMemory
		case "br":
			n += brotliMemory
		case "zstd":
			n += zstdMemory
		}
	}
	return n
}

// Decompressor returns a reader of body decoded as the Content-Encoding
// header says: gzip (also x-gzip), deflate (zlib-wrapped or raw, detected
// from the first bytes, since clients differ), br, zstd, identity or none,
// or a comma-separated list of them applied in order. Any other coding is
// ErrUnsupportedEncoding (415).
//
// The reader does not limit its output: the caller reads it through its own
// limit (MaxDecodedBytes) and answers 413 past it. The decoders' own memory
// is bounded whatever the input: 32 KiB windows for gzip and deflate, at most
// 16 MiB for brotli (the large-window extension is off) and MaxZstdWindow for
// zstd. Close releases the decoders; it does not close body.
func Decompressor(encoding string, body io.Reader) (io.ReadCloser, error) {
	if err := CheckEncoding(encoding); err != nil {
		return nil, err
	}
	codings := strings.Split(encoding, ",")
	chain := &closers{r: body}
	// Codings are listed in the order they were applied: undo the last first.
	for k := len(codings) - 1; k >= 0; k-- {
		if err := chain.push(strings.ToLower(strings.TrimSpace(codings[k]))); err != nil {
			chain.Close()
			return nil, err
		}
	}
	return chain, nil
}

func knownCoding(c string) bool {
	switch strings.ToLower(strings.TrimSpace(c)) {
	case "", "identity", "gzip", "x-gzip", "deflate", "br", "zstd":
		return true
	}
	return false
}

// closers is a chain of decoders, the last pushed read first.
type closers struct {
	r   io.Reader
	all []io.Closer
}

func (c *closers) Read(p []byte) (int, error) { return c.r.Read(p) }

// Close closes every decoder of the chain.
func (c *closers) Close() error {
	for k := len(c.all) - 1; k >= 0; k-- {
		c.all[k].Close()
	}
	c.all = nil
	return nil
}

// push wraps the chain's reader in a decoder of coding. A decoder that cannot
// read its own header (a gzip body that is not gzip) is a malformed body.
func (c *closers) push(coding string) error {
	switch coding {
	case "", "identity":
		return nil
	case "gzip", "x-gzip":
		zr, err := gzip.NewReader(c.r)
		if err != nil {
			return fmt.Errorf("%w: gzip: %v", ErrMalformed, err)
		}
		c.r = zr
		c.all = append(c.all, zr)
	case "deflate":
		br := bufio.NewReaderSize(c.r, 512)
		head, _ := br.Peek(2)
		if isZlibHeader(head) {
			zr, err := zlib.NewReader(br)
			if err != nil {
				return fmt.Errorf("%w: deflate: %v", ErrMalformed, err)
			}
			c.r = zr
			c.all = append(c.all, zr)
			return nil
		}
		fr := flate.NewReader(br)
		c.r = fr
		c.all = append(c.all, fr)
	case "br":
		c.r = brotli.NewReader(c.r)
	case "zstd":
		zr, err := zstd.NewReader(c.r,
			zstd.WithDecoderConcurrency(1), // decode in the caller's goroutine
			zstd.WithDecoderLowmem(true),
			zstd.WithDecoderMaxWindow(MaxZstdWindow),
			// Also caps the window of single-segment frames, which is their
			// declared content size.
			zstd.WithDecoderMaxMemory(MaxZstdWindow))
		if err != nil {
			return fmt.Errorf("sentry: zstd decoder: %w", err)
		}
		c.r = zr
		c.all = append(c.all, closeFunc(zr.Close))
	}
	return nil
}

type closeFunc func()

func (f closeFunc) Close() error { f(); return nil }

// isZlibHeader reports whether b starts a zlib stream (RFC 1950): method 8
// (deflate), a window of at most 32 KiB, and a header checksum. A raw deflate
// stream starting so would open with a stored block whose padding bits are
// not zero, which encoders do not write: the detection does not guess.
func isZlibHeader(b []byte) bool {
	return len(b) == 2 && b[0]&0x0f == 8 && b[0]>>4 <= 7 && (uint(b[0])<<8|uint(b[1]))%31 == 0
}
