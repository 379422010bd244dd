package sentry

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
)

// TestDeclaredMemory reads the windows real encoders declare: brotli's
// WBITS for each window size, a zstd frame's Window_Descriptor or its
// content size, and gives a stream that does not say DecoderMemory.
func TestDeclaredMemory(t *testing.T) {
	body := bytes.Repeat([]byte("{\"message\":\"x\"}\n"), 1<<17) // 2 MiB
	for _, lgwin := range []int{10, 15, 16, 17, 18, 22, 24} {
		var b bytes.Buffer
		w := brotli.NewWriterOptions(&b, brotli.WriterOptions{Quality: 5, LGWin: lgwin})
		_, _ = w.Write(body)
		_ = w.Close()
		got, ok := DeclaredMemory("br", b.Bytes()[:1])
		want := min(int64(1)<<lgwin-16+windowSlack, brotliMemory)
		if !ok || got != want {
			t.Errorf("br lgwin %d: DeclaredMemory = %d %v, want %d", lgwin, got, ok, want)
		}
	}
	if _, ok := DeclaredMemory("br", nil); ok {
		t.Error("br with no byte yet: ok, want not known")
	}

	for _, window := range []int{1 << 10, 1 << 20, 2 << 20} {
		e, err := zstd.NewWriter(nil, zstd.WithWindowSize(window), zstd.WithSingleSegment(false))
		if err != nil {
			t.Fatal(err)
		}
		frame := e.EncodeAll(body, nil)
		got, ok := DeclaredMemory("zstd", frame[:6])
		if want := min(int64(window)+windowSlack, zstdMemory); !ok || got != want {
			t.Errorf("zstd window %d: DeclaredMemory = %d %v, want %d", window, got, ok, want)
		}
	}
	// Window descriptors written by hand: 8 MiB (exponent 13), 3 MiB (2 MiB
	// and four eighths of it), 16 MiB (past MaxZstdWindow: the decoder
	// refuses it, DecoderMemory bounds it).
	for wd, want := range map[byte]int64{13 << 3: 8<<20 + windowSlack, 11<<3 | 4: 3<<20 + windowSlack, 14 << 3: zstdMemory} {
		hdr := binary.LittleEndian.AppendUint32(nil, zstdMagic)
		if got, ok := DeclaredMemory("zstd", append(hdr, 0, wd)); !ok || got != want {
			t.Errorf("zstd window descriptor %#x: DeclaredMemory = %d %v, want %d", wd, got, ok, want)
		}
	}
	e, _ := zstd.NewWriter(nil, zstd.WithSingleSegment(true))
	small := e.EncodeAll(body[:5000], nil)
	if got, ok := DeclaredMemory("zstd", small[:14]); !ok || got != 5000+windowSlack {
		t.Errorf("zstd single segment of 5000 bytes: DeclaredMemory = %d %v, want %d", got, ok, 5000+windowSlack)
	}
	skip := binary.LittleEndian.AppendUint32(nil, zstdSkippable|3)
	skip = binary.LittleEndian.AppendUint32(skip, 2)
	if got, ok := DeclaredMemory("zstd", append(skip, 0, 0)); !ok || got != zstdMemory {
		t.Errorf("zstd after a skippable frame: DeclaredMemory = %d %v, want %d", got, ok, zstdMemory)
	}
	if _, ok := DeclaredMemory("gzip", body); ok {
		t.Error("gzip: ok, want not known (its decoder's memory does not depend on the stream)")
	}
}
