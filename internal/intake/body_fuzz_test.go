package intake_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/intake"
)

func gzipBytes(b []byte) []byte {
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	_, _ = w.Write(b)
	_ = w.Close()
	return z.Bytes()
}

// FuzzReadBody feeds arbitrary bytes to the gzip path of the ingest
// body reader and then to the decoder: nothing panics, every refusal is a
// 400 or 413 problem, a body inflates to at most the 20 MiB limit, and what
// the standard gzip reader inflates within the limit is never refused as
// malformed. Plain `go test` runs the seeds only.
func FuzzReadBody(f *testing.F) {
	ok := []byte(`{"service":"api","events":[{"message":"m","level":"error"}]}`)
	f.Add(gzipBytes(ok))
	f.Add(gzipBytes(nil))
	f.Add(gzipBytes(ok)[:10])                            // truncated
	f.Add(append(gzipBytes(ok), gzipBytes(ok)...))       // two members
	f.Add(append(gzipBytes(ok), 0, 1, 2))                // trailing garbage
	f.Add([]byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff}) // header only
	f.Add(gzipBytes(bytes.Repeat([]byte("{"), 1<<16)))   // deep nesting
	f.Add(gzipBytes([]byte("{\"events\":[\"\xff\"]}")))  // invalid UTF-8 inside
	f.Add([]byte("not gzip at all"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := httptest.NewRequest(http.MethodPost, "/v1/ingest", bytes.NewReader(data))
		in := &intake.Intake{Memory: intake.NewBudget(256<<20, time.Second)}
		body, reason, pr := in.ReadBody(r.Context(), r, "", true)
		want := stdlibInflate(data)
		if pr != nil {
			if pr.Status != http.StatusBadRequest && pr.Status != http.StatusRequestEntityTooLarge {
				t.Fatalf("refusal %d (%s), want 400 or 413", pr.Status, reason)
			}
			if pr.Status == http.StatusBadRequest && want != nil {
				t.Fatalf("refused as malformed, but the standard reader inflates %d bytes", len(want))
			}
			return
		}
		defer body.Release()
		if len(body.Bytes) > intake.MaxDecodedBytes {
			t.Fatalf("inflated %d bytes, over the limit", len(body.Bytes))
		}
		if want != nil && !bytes.Equal(body.Bytes, want) {
			t.Fatalf("inflated %d bytes, the standard reader %d", len(body.Bytes), len(want))
		}
		if _, err := ingest.Decode(body.Bytes, ingestTime); err != nil {
			if _, ok := err.(interface{ GetStatus() int }); !ok {
				t.Fatalf("Decode error %v is not a problem", err)
			}
		}
	})
}

// stdlibInflate returns what compress/gzip inflates from data within the
// limit, or nil when it refuses it.
func stdlibInflate(data []byte) []byte {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil
	}
	b, err := io.ReadAll(io.LimitReader(zr, intake.MaxDecodedBytes+1))
	if err != nil || len(b) > intake.MaxDecodedBytes {
		return nil
	}
	return b
}

var ingestTime = time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)
