package httpapi_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"net/http"
	"testing"

	"github.com/errata-dev/errata/internal/store/storetest"
)

// BenchmarkIngest posts realistic 1,000-event batches (~540 bytes an event)
// to a real server over loopback, from as many goroutines as GOMAXPROCS,
// and reports accepted events per second: decode, validate, redact, encode
// and the durable group commit, on each database.
//
//	go test -run '^$' -bench Ingest -benchtime 200x -count 6 ./internal/httpapi/
func BenchmarkIngest(b *testing.B) {
	plain := benchBodies(b)
	var zipped [][]byte
	for _, body := range plain {
		var z bytes.Buffer
		w := gzip.NewWriter(&z)
		_, _ = w.Write(body)
		_ = w.Close()
		zipped = append(zipped, z.Bytes())
	}
	for _, d := range storetest.Dialects {
		for _, gzipped := range []bool{false, true} {
			b.Run(fmt.Sprintf("db=%s/gzip=%v", d, gzipped), func(b *testing.B) {
				s, _, key := benchServer(b, d)
				bodies := plain
				if gzipped {
					bodies = zipped
				}
				client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
				b.SetBytes(int64(len(plain[0])))
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					i := 0
					for pb.Next() {
						if err := postBatch(client, s.URL, key, bodies[i%len(bodies)], gzipped); err != nil {
							b.Error(err)
							return
						}
						i++
					}
				})
				b.ReportMetric(float64(b.N)*1000/b.Elapsed().Seconds(), "events/s")
			})
		}
	}
}
