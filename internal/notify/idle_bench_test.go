package notify_test

import (
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/notify"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// idleFor is how long BenchmarkEngineIdle lets the engine idle.
const idleFor = 10 * time.Second

// BenchmarkEngineIdle queues 10,000 deliveries whose next attempts (their
// fourth) are 1 to 12 hours away, starts the engine with its defaults and
// lets it idle for 10 s of wall clock. It reports the heap the engine holds
// then (in use after a collection, minus the same before Start), the heap
// since before the deliveries were queued, the growth of the resident set
// over the idle period (SQLite's page caches live outside the Go heap), and
// the CPU time the whole process used while idle (user + system). Each op
// is one 10 s idle period.
//
//	go test -run '^$' -bench EngineIdle -count 5 ./internal/notify/
func BenchmarkEngineIdle(b *testing.B) {
	const pending = 10000
	for _, d := range storetest.Dialects {
		b.Run(string(d), func(b *testing.B) {
			var heapEngine, heapQueued, rss, cpu float64
			for range b.N {
				b.StopTimer()
				r := newBenchRig(b, d, notify.Options{})
				var got atomic.Int64
				chs := r.fastChannels(b, &got)
				empty := heapInUse()
				start := time.Now()
				r.queue(b, chs, pending, 3, func(i int) time.Time {
					return start.Add(time.Hour + time.Duration(i)*11*time.Hour/pending)
				})
				// Let SQLite's background checkpointer copy the queued rows
				// out of the WAL first: that is the queueing's cost, not idling's.
				time.Sleep(time.Second)
				queued, rss0 := heapInUse(), residentSet(b)
				b.StartTimer()
				if err := r.svc.Engine().Start(context.Background()); err != nil {
					b.Fatal(err)
				}
				cpu0 := cpuTime(b)
				time.Sleep(idleFor)
				cpu += float64((cpuTime(b) - cpu0).Microseconds()) / 1000
				b.StopTimer()
				after, rss1 := heapInUse(), residentSet(b)
				r.svc.Engine().Stop()
				if n := got.Load(); n != 0 {
					b.Fatalf("receivers got %d requests while every delivery was hours away", n)
				}
				heapEngine += float64(after-queued) / (1 << 20)
				heapQueued += float64(after-empty) / (1 << 20)
				rss += float64(rss1-rss0) / (1 << 20)
			}
			n := float64(b.N)
			b.ReportMetric(heapEngine/n, "MB-heap")
			b.ReportMetric(heapQueued/n, "MB-heap-queued")
			b.ReportMetric(rss/n, "MB-rss")
			b.ReportMetric(cpu/n, "cpu-ms/10s")
		})
	}
}

// heapInUse is the heap in use after a full collection.
func heapInUse() int64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapInuse)
}

// cpuTime is the user and system CPU time the process has used.
func cpuTime(tb testing.TB) time.Duration {
	tb.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// residentSet is the process's resident set size (VmRSS) in bytes.
func residentSet(tb testing.TB) int64 {
	tb.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		tb.Skipf("no /proc/self/status: %v", err)
	}
	for line := range strings.Lines(string(b)) {
		if kb, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(kb), "kB")), 10, 64)
			if err != nil {
				tb.Fatalf("VmRSS %q: %v", kb, err)
			}
			return n << 10
		}
	}
	tb.Fatal("no VmRSS in /proc/self/status")
	return 0
}
