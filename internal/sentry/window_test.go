package sentry

import (
	"bytes"
	"testing"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"
)

// TestDeclaredMemory reads the window a real brotli encoder declares for
// each window size, and declines zstd (whose later frames may declare
// more than the first) and gzip.
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

	// A zstd body's first frame says nothing of the next: two frames, the
	// first of one byte, the second with an 8 MiB window.
	e, err := zstd.NewWriter(nil, zstd.WithSingleSegment(true))
	if err != nil {
		t.Fatal(err)
	}
	two := e.EncodeAll([]byte("x"), nil)
	big, _ := zstd.NewWriter(nil, zstd.WithWindowSize(8<<20), zstd.WithSingleSegment(false))
	two = big.EncodeAll(body, two)
	if _, ok := DeclaredMemory("zstd", two); ok {
		t.Error("zstd: ok, want not known (DecoderMemory)")
	}
	if _, ok := DeclaredMemory("gzip", body); ok {
		t.Error("gzip: ok, want not known (its decoder's memory does not depend on the stream)")
	}
}
