package notify_test

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/notify"
	"github.com/errata-dev/errata/internal/notify/delivery"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// A receiver that does not answer holds at most PerChannel attempts and
// never delays another channel's deliveries.
func TestEngineHasNoHeadOfLineBlocking(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		r := newRig(t, db, notify.Options{Delivery: delivery.Options{PerChannel: 2, Workers: 8, Idle: 50 * time.Millisecond}})
		r.clock.Set(time.Now().UTC())
		release := make(chan struct{})
		var inFlight, most atomic.Int32
		slow := r.receiver(t, func(w http.ResponseWriter, req *http.Request) {
			n := inFlight.Add(1)
			for {
				m := most.Load()
				if n <= m || most.CompareAndSwap(m, n) {
					break
				}
			}
			select {
			case <-release:
			case <-req.Context().Done():
			}
			inFlight.Add(-1)
			w.WriteHeader(200)
		})
		var fastDone sync.WaitGroup
		fast := r.receiver(t, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(200); fastDone.Done() })
		r.webhookChannel(t, slow.srv.URL)
		if err := r.svc.Engine().Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		defer r.svc.Engine().Stop()
		defer close(release)
		// Tickets first reach the slow channel (created first), then the fast one.
		const n = 10
		fastDone.Add(n)
		for range n {
			r.openTicket(t, "critical")
		}
		r.svc.Wake()
		waitFor(t, func() bool { return inFlight.Load() == 2 })
		r.webhookChannel(t, fast.srv.URL)
		for range n {
			r.openTicket(t, "critical")
		}
		// openTicket queued n more for the slow channel too, behind its blocked ones.
		r.svc.AfterCommit()
		done := make(chan struct{})
		go func() { fastDone.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Fatalf("the fast channel got %d of %d deliveries while the slow one was stuck", n-countFast(fast), n)
		}
		if len(slow.requests()) != 2 || most.Load() != 2 {
			t.Fatalf("slow channel: %d requests, at most %d at once; want exactly PerChannel (2)", len(slow.requests()), most.Load())
		}
	})
}

func countFast(rc *receiver) int { return len(rc.requests()) }

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 30s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// The engine delivers everything queued, and Stop leaves nothing half-done.
func TestEngineDeliversEverything(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		r := newRig(t, db, notify.Options{Delivery: delivery.Options{Idle: 50 * time.Millisecond}})
		r.clock.Set(time.Now().UTC())
		var got atomic.Int32
		rc := r.receiver(t, func(w http.ResponseWriter, _ *http.Request) { got.Add(1); w.WriteHeader(204) })
		ch := r.webhookChannel(t, rc.srv.URL)
		const n = 50
		for range n {
			r.openTicket(t, "high")
		}
		if err := r.svc.Engine().Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		r.svc.AfterCommit()
		waitFor(t, func() bool {
			for _, d := range r.deliveries(t, ch) {
				if d.Status != store.DeliveryDelivered {
					return false
				}
			}
			return true
		})
		r.svc.Engine().Stop()
		if got.Load() != n {
			t.Fatalf("receiver got %d requests, want %d", got.Load(), n)
		}
	})
}

// TestEngineManyDeadReceivers: with the default caps, nine receivers that
// do not answer (each holding its channel's PerChannel attempts) still
// leave room for another channel's deliveries, which arrive while all of
// theirs hang.
func TestEngineManyDeadReceivers(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		r := newRig(t, db, notify.Options{Delivery: delivery.Options{Idle: 50 * time.Millisecond}})
		r.clock.Set(time.Now().UTC())
		release := make(chan struct{})
		var inFlight atomic.Int32
		const dead, perChannel = 9, 8
		for range dead {
			slow := r.receiver(t, func(w http.ResponseWriter, req *http.Request) {
				inFlight.Add(1)
				defer inFlight.Add(-1)
				select {
				case <-release:
				case <-req.Context().Done():
				}
				w.WriteHeader(200)
			})
			r.webhookChannel(t, slow.srv.URL)
		}
		if err := r.svc.Engine().Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		defer r.svc.Engine().Stop()
		defer close(release)
		for range perChannel {
			r.openTicket(t, "critical")
		}
		r.svc.Wake()
		waitFor(t, func() bool { return inFlight.Load() == dead*perChannel })
		var fastDone sync.WaitGroup
		fastDone.Add(1)
		fast := r.receiver(t, func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(200); fastDone.Done() })
		r.webhookChannel(t, fast.srv.URL)
		r.openTicket(t, "critical")
		r.svc.AfterCommit()
		fastDone.Wait()
		if n := inFlight.Load(); n != dead*perChannel {
			t.Fatalf("the live channel's delivery came after a dead receiver's attempt ended (%d of %d in flight)", n, dead*perChannel)
		}
	})
}
