package webhook

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/notify/delivery"
)

// BenchmarkSend measures deliveries per second to one fast TLS receiver on
// loopback, from one sender and from many, with keep-alive bounded by
// MaxConnAge (the default 30s, and 100ms to show the cost of re-dialing).
func BenchmarkSend(b *testing.B) {
	ca := newTestCA(b)
	rc := newReceiver(b, ca, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusNoContent)
	})
	req := newRequest(rc.URL + "/hook")
	for _, age := range []time.Duration{DefaultMaxConnAge, 100 * time.Millisecond} {
		c := newClient(b, ca, Options{AllowPrivate: true, MaxConnAge: age})
		send := func(b *testing.B) bool {
			res := c.Send(context.Background(), req)
			if res.Outcome != delivery.Delivered {
				b.Errorf("Send() = %+v, want delivered", res)
			}
			return res.Outcome == delivery.Delivered
		}
		b.Run("sequential/age="+age.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if !send(b) {
					return
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "deliveries/s")
		})
		b.Run("parallel/age="+age.String(), func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() && send(b) {
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "deliveries/s")
		})
	}
}
