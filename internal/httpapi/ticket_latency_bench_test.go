package httpapi_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// BenchmarkNewTicketLatency measures how long after its 202 a new error
// group's ticket exists, while the server takes a background load of
// 10,000 events/s (ten realistic 1,000-event batches a second) and
// processes it. Each iteration sends one probe batch whose error opens a new
// group and waits for its ticket; the p50 and p99 are reported.
//
//	go test -run '^$' -bench NewTicketLatency -benchtime 100x ./internal/httpapi/
func BenchmarkNewTicketLatency(b *testing.B) {
	bodies := benchBodies(b)
	for _, d := range storetest.Dialects {
		b.Run("db="+string(d), func(b *testing.B) {
			s, prj, key := benchServer(b, d)
			if err := s.App.Processor.Start(context.Background()); err != nil {
				b.Fatal(err)
			}
			post := func(body []byte) {
				req, _ := http.NewRequest("POST", s.URL+"/v1/ingest", bytes.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+key)
				req.Header.Set("Content-Type", "application/json")
				res, err := http.DefaultClient.Do(req)
				if err != nil {
					b.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, res.Body)
				res.Body.Close()
				if res.StatusCode != http.StatusAccepted {
					b.Errorf("ingest: %d", res.StatusCode)
				}
			}
			stop := make(chan struct{})
			done := make(chan struct{})
			go func() { // background load: 10 batches a second
				defer close(done)
				t := time.NewTicker(100 * time.Millisecond)
				defer t.Stop()
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					case <-t.C:
						post(bodies[i%len(bodies)])
					}
				}
			}()
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				msg := fmt.Sprintf("probe %d failed", i)
				post([]byte(fmt.Sprintf(`{"service":"probe","events":[{"level":"error","message":%q,"attributes":{"fingerprint":"probe-%d"}}]}`, msg, i)))
				start := time.Now()
				for {
					ts, err := s.App.DB.Read().ListTickets(context.Background(), prj, store.TicketFilter{Service: "probe"}, "", 1)
					if err != nil {
						b.Fatal(err)
					}
					if len(ts) == 1 && ts[0].Group.SampleMessage == msg {
						break
					}
					if time.Since(start) > 30*time.Second {
						b.Fatalf("no ticket for %q after 30s", msg)
					}
					time.Sleep(2 * time.Millisecond)
				}
				lat = append(lat, time.Since(start))
				time.Sleep(50 * time.Millisecond)
			}
			b.StopTimer()
			close(stop)
			<-done
			s.App.Processor.Stop()
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(lat[(len(lat)*99)/100].Microseconds())/1000, "p99-ms")
		})
	}
}
