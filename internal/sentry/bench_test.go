package sentry

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkParseEnvelope measures what a handler spends on one typical
// single-exception envelope once its body is read: framing and mapping (the
// JSON decoding, the stack rendering, the attributes), for envelopes the
// real SDKs sent. The lead target is 5,000 such envelopes a second end to
// end; see docs/performance.md for figures.
func BenchmarkParseEnvelope(b *testing.B) {
	for _, name := range []string{"node_exception.envelope", "go_exception.envelope", "node_logs.envelope"} {
		body, err := os.ReadFile(filepath.Join("testdata", "sdk", name))
		if err != nil {
			b.Fatal(err)
		}
		opts := Options{Service: "shop", ReceivedAt: time.Now()}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				env, err := ParseEnvelope(body)
				if err != nil {
					b.Fatal(err)
				}
				if res := Map(env, opts); len(res.Events) == 0 {
					b.Fatal("no event")
				}
			}
		})
	}
}

// BenchmarkDecompressGzip measures undoing the gzip of a large event, as
// @sentry/node sends events over 32 KiB.
func BenchmarkDecompressGzip(b *testing.B) {
	body, err := os.ReadFile(filepath.Join("testdata", "sdk", "node_large.envelope.gz"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		r, err := Decompressor("gzip", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, r); err != nil {
			b.Fatal(err)
		}
		r.Close()
	}
}
