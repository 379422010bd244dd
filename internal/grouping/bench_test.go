package grouping

import (
	"os"
	"path/filepath"
	"testing"
)

// typical are one-line messages of the kind most events carry.
var typical = []string{
	"user 42 not found",
	"dial tcp 10.0.3.12:5432: connect: connection refused",
	"GET https://api.example.com/v1/orders?page=2 returned 502 after 1.5s",
	"order 3f2a1b9c-1234-4abc-8def-0123456789ab is already paid",
	"context deadline exceeded",
	"batch started 2024-01-02T15:04:05.123Z did not finish in 30s",
	"invalid config key=\"max_conns\" value='ten' enabled=true",
	"User bob@example.com failed to log in from 203.0.113.7",
}

func BenchmarkParameterize(b *testing.B) {
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		Parameterize(typical[i%len(typical)])
	}
}

func BenchmarkFingerprint(b *testing.B) {
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		Fingerprint(Input{Message: typical[i%len(typical)]})
	}
}

func BenchmarkFingerprintJavaTrace(b *testing.B) {
	trace, err := os.ReadFile(filepath.Join("testdata", "java", "caused_by_a.txt"))
	if err != nil {
		b.Fatal(err)
	}
	in := Input{StackTrace: string(trace)}
	b.ReportAllocs()
	b.SetBytes(int64(len(trace)))
	for b.Loop() {
		Fingerprint(in)
	}
}

func BenchmarkFingerprintGoTrace(b *testing.B) {
	trace, err := os.ReadFile(filepath.Join("testdata", "go", "nil_deref_a.txt"))
	if err != nil {
		b.Fatal(err)
	}
	in := Input{StackTrace: string(trace)}
	b.ReportAllocs()
	b.SetBytes(int64(len(trace)))
	for b.Loop() {
		Fingerprint(in)
	}
}
