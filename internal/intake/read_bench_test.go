package intake_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/intake"
)

// BenchmarkReadBody reads a 1,000-event batch (~550 KB) as /v1/ingest
// does: plain with its length announced, chunked, or gzip, under the
// memory budget, from as many goroutines as GOMAXPROCS.
//
//	go test -run '^$' -bench ReadBody -benchmem -count 6 ./internal/intake/
func BenchmarkReadBody(b *testing.B) {
	plain := bytes.Repeat([]byte(`{"message":"payment 4711 declined by the issuer","level":"error","service":"api"},`), 550_000/80)
	zipped := gzipBytes(plain)
	for _, tc := range []struct {
		name    string
		body    []byte
		gzipped bool
		chunked bool
	}{
		{"plain", plain, false, false},
		{"chunked", plain, false, true},
		{"gzip", zipped, true, false},
	} {
		b.Run(fmt.Sprintf("body=%s", tc.name), func(b *testing.B) {
			in := &intake.Intake{Memory: intake.NewBudget(256<<20, time.Second)}
			b.SetBytes(int64(len(plain)))
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					r := httptest.NewRequest(http.MethodPost, "/v1/ingest", bytes.NewReader(tc.body))
					if tc.chunked {
						r.ContentLength = -1
					}
					body, _, pr := in.ReadBody(context.Background(), r, "", tc.gzipped)
					if pr != nil {
						b.Fatal(pr)
					}
					if len(body.Bytes) != len(plain) {
						b.Fatalf("read %d bytes, want %d", len(body.Bytes), len(plain))
					}
					body.Release()
				}
			})
		})
	}
}
