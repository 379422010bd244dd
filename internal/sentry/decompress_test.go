package sentry

import (
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
)

// compress encodes b with one coding, as a client would.
func compress(t testing.TB, coding string, b []byte, opts ...any) []byte {
	t.Helper()
	var buf bytes.Buffer
	var w io.WriteCloser
	switch coding {
	case "gzip":
		w = gzip.NewWriter(&buf)
	case "zlib":
		w = zlib.NewWriter(&buf)
	case "raw":
		w, _ = flate.NewWriter(&buf, flate.BestSpeed)
	case "br":
		o := brotli.WriterOptions{Quality: 1, LGWin: 22}
		for _, opt := range opts {
			o = opt.(brotli.WriterOptions)
		}
		w = brotli.NewWriterOptions(&buf, o)
	case "zstd":
		zopts := []zstd.EOption{zstd.WithEncoderLevel(zstd.SpeedFastest)}
		for _, opt := range opts {
			zopts = append(zopts, opt.(zstd.EOption))
		}
		var err error
		if w, err = zstd.NewWriter(&buf, zopts...); err != nil {
			t.Fatal(err)
		}
	default:
		t.Fatalf("no coding %q", coding)
	}
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func decodeAll(encoding string, body []byte) ([]byte, error) {
	r, err := Decompressor(encoding, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(io.LimitReader(r, MaxDecodedBytes+1))
}

func TestDecompressor(t *testing.T) {
	plain := []byte(strings.Repeat(`{"type":"event"}`+"\n"+`{"message":"hello"}`+"\n", 200))
	gz := compress(t, "gzip", plain)
	tests := []struct {
		encoding string
		body     []byte
		err      error
	}{
		{"", plain, nil},
		{"identity", plain, nil},
		{"gzip", gz, nil},
		{"x-gzip", gz, nil},
		{" GZIP ", gz, nil},
		{"deflate", compress(t, "zlib", plain), nil},
		{"deflate", compress(t, "raw", plain), nil},
		{"br", compress(t, "br", plain), nil},
		{"zstd", compress(t, "zstd", plain), nil},
		{"gzip, br", compress(t, "br", gz), nil}, // gzip applied first, then br
		{"gzip, identity", gz, nil},
		{"compress", plain, ErrUnsupportedEncoding},
		{"gzip, compress", gz, ErrUnsupportedEncoding},
		{"gzip,gzip,gzip,gzip", gz, ErrTooManyCodings}, // known codings: a malformed list, not an unsupported one
		{"gzip", plain, ErrMalformed},
	}
	for _, tt := range tests {
		got, err := decodeAll(tt.encoding, tt.body)
		if !errors.Is(err, tt.err) {
			t.Errorf("%q: err %v, want %v", tt.encoding, err, tt.err)
			continue
		}
		if err == nil && !bytes.Equal(got, plain) {
			t.Errorf("%q: decoded %d bytes, not the %d sent", tt.encoding, len(got), len(plain))
		}
	}
	// A corrupt stream fails while reading, which the handler answers 400.
	bad := append([]byte(nil), gz...)
	bad[len(bad)/2] ^= 0xff
	if _, err := decodeAll("gzip", bad); err == nil {
		t.Error("a corrupt gzip body decoded without error")
	}
}

// TestDecompressorHostile checks that a decompression bomb stops at the
// caller's limit, and that what the decoders hold stays bounded however much
// they are asked to produce: the window of the stream, 32 KiB for gzip and
// deflate, at most 16 MiB for brotli and MaxZstdWindow for zstd, whatever a
// stream asks for. (Brotli grows its ring buffer by doubling, so it
// allocates about twice its window over a stream.)
func TestDecompressorHostile(t *testing.T) {
	zeros := make([]byte, 24<<20)
	for _, tt := range []struct {
		encoding string
		body     []byte
		maxAlloc uint64
	}{
		{"gzip", compress(t, "gzip", zeros), 2 << 20},
		{"deflate", compress(t, "raw", zeros), 2 << 20},
		{"br", compress(t, "br", zeros, brotli.WriterOptions{Quality: 1, LGWin: 24}), 17 << 20},
		{"zstd", compress(t, "zstd", zeros, zstd.WithWindowSize(MaxZstdWindow)), 12 << 20},
	} {
		const limit = 8 << 20
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		r, err := Decompressor(tt.encoding, bytes.NewReader(tt.body))
		if err != nil {
			t.Fatal(err)
		}
		n, err := io.Copy(io.Discard, io.LimitReader(r, limit+1))
		// What the decoder holds once it has produced its output: its window.
		runtime.GC()
		runtime.ReadMemStats(&after)
		r.Close()
		if err != nil || n != limit+1 {
			t.Errorf("%s bomb of %d bytes: read %d bytes, %v; want to stop at the limit", tt.encoding, len(tt.body), n, err)
		}
		live := int64(after.HeapAlloc) - int64(before.HeapAlloc)
		t.Logf("%s: %d compressed bytes, %d decoded to the limit; %.1f MiB held by the decoder, %.1f MiB allocated in all",
			tt.encoding, len(tt.body), n, float64(live)/(1<<20), float64(after.TotalAlloc-before.TotalAlloc)/(1<<20))
		if live > int64(tt.maxAlloc) {
			t.Errorf("%s: the decoder holds %d bytes, more than %d", tt.encoding, live, tt.maxAlloc)
		}
	}

	// zstd frames asking for a window past MaxZstdWindow are refused before
	// anything is allocated for them: one made by an encoder, and a header
	// alone claiming 2 GiB.
	wide := compress(t, "zstd", zeros[:1<<20], zstd.WithWindowSize(32<<20), zstd.WithSingleSegment(false))
	if _, err := decodeAll("zstd", wide); err == nil {
		t.Error("a zstd frame with a 32 MiB window was decoded")
	}
	// Magic, frame header descriptor 0 (window descriptor follows), window
	// descriptor exponent 21: 2^(10+21) bytes.
	claim := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 21 << 3, 0, 0, 0}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if _, err := decodeAll("zstd", claim); err == nil {
		t.Error("a zstd frame claiming a 2 GiB window was decoded")
	}
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
		t.Errorf("a zstd header claiming 2 GiB made the decoder allocate %d bytes", alloc)
	}
	// Brotli's large-window extension (window bits 0x11) is off.
	if _, err := decodeAll("br", []byte{0x11, 0x3e, 0x00}); err == nil {
		t.Error("a large-window brotli stream was decoded")
	}
}

// TestCheckEncodingAndDecoderMemory checks the two helpers a handler calls
// before it reads a body: the 415 check agrees with Decompressor, and the
// memory to reserve covers each coding's decoder.
func TestCheckEncodingAndDecoderMemory(t *testing.T) {
	t.Parallel()
	if err := CheckEncoding("gzip, gzip, gzip, gzip"); !errors.Is(err, ErrTooManyCodings) {
		t.Errorf("CheckEncoding of four known codings = %v, want ErrTooManyCodings", err)
	}
	for _, tt := range []struct {
		encoding string
		ok       bool
		memory   int64
	}{
		{"", true, 0},
		{"identity", true, 0},
		{"gzip", true, 64 << 10},
		{"deflate", true, 64 << 10},
		{"br", true, 17 << 20},
		{" ZSTD ", true, 9 << 20},
		{"gzip, br", true, 64<<10 + 17<<20},
		{"compress", false, 0},
	} {
		err := CheckEncoding(tt.encoding)
		if (err == nil) != tt.ok || (err != nil && !errors.Is(err, ErrUnsupportedEncoding)) {
			t.Errorf("CheckEncoding(%q) = %v, want ok %v", tt.encoding, err, tt.ok)
		}
		if _, derr := Decompressor(tt.encoding, strings.NewReader("")); (derr != nil && errors.Is(derr, ErrUnsupportedEncoding)) == tt.ok {
			t.Errorf("Decompressor(%q) = %v, disagreeing with CheckEncoding", tt.encoding, derr)
		}
		if tt.ok {
			if got := DecoderMemory(tt.encoding); got != tt.memory {
				t.Errorf("DecoderMemory(%q) = %d, want %d", tt.encoding, got, tt.memory)
			}
		}
	}
}
