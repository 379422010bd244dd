package notify_test

import (
	"context"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/notify"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// benchChannels is how many fast channels the engine benchmarks spread
// their deliveries over: with the default 8 attempts in flight per channel,
// 4 channels keep 32 attempts in flight.
const benchChannels = 4

// BenchmarkEngineThroughput measures deliveries per second from queued to
// recorded as delivered, through the engine with its default limits, to
// fast TLS receivers on loopback. Each run queues b.N deliveries on a fresh
// database; the time counts from Start until the last one is recorded.
//
//	go test -run '^$' -bench EngineThroughput -benchtime 10000x -count 5 ./internal/notify/
func BenchmarkEngineThroughput(b *testing.B) {
	for _, d := range storetest.Dialects {
		b.Run(string(d), func(b *testing.B) {
			r := newBenchRig(b, d, notify.Options{})
			var got atomic.Int64
			chs := r.fastChannels(b, &got)
			r.queue(b, chs, b.N, 0, func(int) time.Time { return time.Now() })
			b.ResetTimer()
			if err := r.svc.Engine().Start(context.Background()); err != nil {
				b.Fatal(err)
			}
			r.svc.Wake()
			r.waitDelivered(b, &got, int64(b.N), 0)
			b.StopTimer()
			r.svc.Engine().Stop()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "deliveries/s")
		})
	}
}

// BenchmarkEngineWithDeadChannel is BenchmarkEngineThroughput while one
// more channel's receiver never answers: its attempts hang until the
// response time-out (the default 10s, longer than a run), holding that
// channel's 8 slots throughout. The fast channels' rate should stay near
// BenchmarkEngineThroughput's.
//
//	go test -run '^$' -bench EngineWithDeadChannel -benchtime 10000x -count 5 ./internal/notify/
func BenchmarkEngineWithDeadChannel(b *testing.B) {
	const dead = 1000
	for _, d := range storetest.Dialects {
		b.Run(string(d), func(b *testing.B) {
			r := newBenchRig(b, d, notify.Options{})
			release := make(chan struct{})
			var hung atomic.Int64
			deadSrv := r.server(b, func(w http.ResponseWriter, req *http.Request) {
				hung.Add(1)
				select {
				case <-release:
				case <-req.Context().Done():
				}
				w.WriteHeader(http.StatusServiceUnavailable)
			})
			deadCh := r.channel(b, deadSrv.URL)
			var got atomic.Int64
			chs := r.fastChannels(b, &got)
			// The dead channel's deliveries are due first, so the engine
			// meets them before the fast ones.
			early := time.Now().Add(-time.Minute)
			r.queue(b, []store.Channel{deadCh}, dead, 0, func(int) time.Time { return early })
			r.queue(b, chs, b.N, 0, func(int) time.Time { return time.Now() })
			b.ResetTimer()
			if err := r.svc.Engine().Start(context.Background()); err != nil {
				b.Fatal(err)
			}
			r.svc.Wake()
			r.waitDelivered(b, &got, int64(b.N), dead)
			b.StopTimer()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "deliveries/s")
			b.ReportMetric(float64(hung.Load()), "dead-attempts")
			close(release) // Stop waits for the attempts in flight
			r.svc.Engine().Stop()
		})
	}
}

// fastChannels creates benchChannels channels, each with its own fast
// receiver counting into got.
func (r *benchRig) fastChannels(tb testing.TB, got *atomic.Int64) []store.Channel {
	tb.Helper()
	chs := make([]store.Channel, benchChannels)
	for i := range chs {
		chs[i] = r.channel(tb, r.fastReceiver(tb, got).URL)
	}
	return chs
}
