package httpapi_test

import (
	"fmt"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/store/storetest"
)

// BenchmarkIngestSenders is issue 16's load in one process: a fixed number
// of senders, each with one realistic 1,000-event batch in flight over its
// own keep-alive connection, to a real server (every 202 after its durable
// commit). It reports accepted events per second and the batch latency's
// p50 and p99. With few senders, throughput is senders ÷ latency, so the
// latency is the figure to watch.
//
//	go test -run '^$' -bench IngestSenders -benchtime 2000x -count 6 ./internal/httpapi/
func BenchmarkIngestSenders(b *testing.B) {
	bodies := benchBodies(b)
	for _, d := range storetest.Dialects {
		for _, senders := range []int{4, 8, 16} {
			b.Run(fmt.Sprintf("db=%s/senders=%d", d, senders), func(b *testing.B) {
				s, _, key := benchServer(b, d)
				var next atomic.Int64
				lat := make([]time.Duration, b.N)
				var wg sync.WaitGroup
				b.SetBytes(int64(len(bodies[0])))
				b.ResetTimer()
				for w := 0; w < senders; w++ {
					wg.Add(1)
					go func() {
						defer wg.Done()
						client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
						defer client.CloseIdleConnections()
						for {
							i := int(next.Add(1)) - 1
							if i >= b.N {
								return
							}
							start := time.Now()
							if err := postBatch(client, s.URL, key, bodies[i%len(bodies)], false); err != nil {
								b.Error(err)
								return
							}
							lat[i] = time.Since(start)
						}
					}()
				}
				wg.Wait()
				b.StopTimer()
				slices.Sort(lat)
				b.ReportMetric(float64(b.N)*1000/b.Elapsed().Seconds(), "events/s")
				b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
				b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
			})
		}
	}
}
