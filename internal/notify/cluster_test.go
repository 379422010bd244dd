package notify_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/notify"
	"github.com/errata-dev/errata/internal/notify/delivery"
	"github.com/errata-dev/errata/internal/notify/webhook"
	"github.com/errata-dev/errata/internal/store"
)

// TestTwoEnginesShareTheWork: two delivery engines on one PostgreSQL
// database (as two worker processes run them) deliver every delivery once,
// with no fault anywhere: no delivery is claimed twice, and a channel never
// has more than PerChannel attempts in flight across both (issue 15).
func TestTwoEnginesShareTheWork(t *testing.T) {
	r := newBenchRig(t, store.Postgres, notify.Options{})
	var mu sync.Mutex
	sent := map[string]int{}
	inFlight := map[string]int{}
	most := 0
	var chans []store.Channel
	done := make(chan struct{})
	const perChannel, channels, each = 4, 6, 30
	total := channels * each
	for i := 0; i < channels; i++ {
		name := string(rune('a' + i))
		srv := r.server(t, func(w http.ResponseWriter, req *http.Request) {
			_, _ = io.Copy(io.Discard, req.Body)
			id := req.Header.Get("Service-Delivery-Id")
			mu.Lock()
			sent[id]++
			inFlight[name]++
			most = max(most, inFlight[name])
			n := len(sent)
			mu.Unlock()
			time.Sleep(15 * time.Millisecond) // an answer takes a little while
			mu.Lock()
			inFlight[name]--
			mu.Unlock()
			w.WriteHeader(http.StatusNoContent)
			if n == total {
				select {
				case <-done:
				default:
					close(done)
				}
			}
		})
		chans = append(chans, r.channel(t, srv.URL))
	}
	r.queue(t, chans, total, 0, func(int) time.Time { return time.Now().Add(-time.Minute) })
	var svcs []*notify.Service
	for i := 0; i < 2; i++ {
		s := notify.New(r.db, notify.Options{AppURL: "https://errata.example", Delivery: delivery.Options{PerChannel: perChannel, Idle: 50 * time.Millisecond},
			Logger: slog.New(slog.DiscardHandler), Webhook: webhook.Options{AllowPrivate: true, RootCAs: r.roots}})
		if err := s.Engine().Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		svcs = append(svcs, s)
	}
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatalf("receivers got %d of %d deliveries", len(sent), total)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		n, err := r.db.Read().CountPendingDeliveries(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d deliveries still pending", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, s := range svcs {
		s.Engine().Stop()
		s.Close()
	}
	mu.Lock()
	defer mu.Unlock()
	for id, n := range sent {
		if n != 1 {
			t.Errorf("delivery %s sent %d times with no fault", id, n)
		}
	}
	if most > perChannel {
		t.Errorf("a channel had %d attempts in flight across the two engines, want at most %d", most, perChannel)
	}
}
