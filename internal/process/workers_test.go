package process_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/process"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
	"github.com/errata-dev/errata/internal/tickets"
)

// TestOneGroupCountedExactlyUnderContention: several workers apply batches
// of one group while people change the group's status; no batch's count is
// lost to a concurrent write of the group (PostgreSQL runs these
// transactions side by side).
func TestOneGroupCountedExactlyUnderContention(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := newEnv(t, db)
		e.send(errEvent("shared", ingest.Error)) // the group exists before the race
		gid := e.groups()[0].ID
		const batches = 60
		for i := 0; i < batches; i++ {
			e.queue(errEvent("shared", ingest.Error), errEvent("shared", ingest.Error))
		}
		svc := tickets.NewService(db, e.clock.Now)
		var wg sync.WaitGroup
		for w := 0; w < 4; w++ {
			p := process.New(db, process.Options{Now: e.clock.Now})
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := p.Drain(ctx); err != nil {
					t.Errorf("Drain: %v", err)
				}
			}()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				status := []string{store.GroupIgnored, store.GroupUnresolved}[i%2]
				if _, err := svc.SetGroupStatus(ctx, tickets.Actor{}, gid, status); err != nil {
					t.Errorf("SetGroupStatus: %v", err)
				}
			}
		}()
		wg.Wait()
		if g := e.groups(); len(g) != 1 || g[0].EventCount != 1+2*batches {
			t.Fatalf("groups = %+v, want one group counting %d events", g, 1+2*batches)
		}
	})
}

// TestHelpersJoinOnlyABacklog: a claim that takes a full ClaimBatches marks
// a backlog (the helper workers join in); a claim that takes less, or
// nothing, ends it, so that one worker alone takes the arrivals in larger
// claims.
func TestHelpersJoinOnlyABacklog(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := newEnv(t, db)
		for i := 0; i < 5; i++ {
			e.queue(errEvent("queued", ingest.Error))
		}
		p := process.New(db, process.Options{Now: e.clock.Now, ClaimBatches: 2})
		for i, want := range []struct{ did, backlog bool }{{true, true}, {true, true}, {true, false}, {false, false}} {
			did, err := p.ProcessOne(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if did != want.did || p.Backlogged() != want.backlog {
				t.Fatalf("claim %d: did %v, backlog %v; want %v, %v", i+1, did, p.Backlogged(), want.did, want.backlog)
			}
		}
		if g := e.groups(); len(g) != 1 || g[0].EventCount != 5 {
			t.Fatalf("groups = %+v, want one counting 5", g)
		}
	})
}

// TestStartedWorkersDrainABacklog: with helpers waiting for a backlog, a
// started Processor still processes everything, a backlog and a lone batch
// alike.
func TestStartedWorkersDrainABacklog(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		for i := 0; i < 40; i++ {
			e.queue(errEvent("queued", ingest.Error))
		}
		var mu sync.Mutex
		processed := 0
		drained, done := make(chan struct{}), make(chan struct{})
		p := process.New(db, process.Options{Now: e.clock.Now, Workers: 3, ClaimBatches: 4, Idle: 10 * time.Millisecond,
			Observe: func(events int, _ time.Duration) {
				mu.Lock()
				defer mu.Unlock()
				processed += events
				switch processed {
				case 40:
					close(drained)
				case 41:
					close(done)
				}
			}})
		if err := p.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		defer p.Stop()
		select {
		case <-drained:
		case <-time.After(30 * time.Second):
			t.Fatal("the backlog was not drained in 30 s")
		}
		e.queue(errEvent("queued", ingest.Error))
		p.Wake()
		receive(t, done, "a lone batch after the backlog was not processed in 30 s")
		if g := e.groups(); len(g) != 1 || g[0].EventCount != 41 {
			t.Fatalf("groups = %+v, want one counting 41", g)
		}
	})
}

// TestHelpersLeaveWakeUpsToTheFirstWorker: after a backlog, a batch
// committed and announced with Wake is processed at once, not when a
// worker's idle timer ends (a helper must not take the wake-up).
func TestHelpersLeaveWakeUpsToTheFirstWorker(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnv(t, db)
		processed := make(chan int, 100)
		p := process.New(db, process.Options{Now: e.clock.Now, Workers: 2, ClaimBatches: 1, Idle: time.Minute,
			Observe: func(events int, _ time.Duration) { processed <- events }})
		for i := 0; i < 4; i++ {
			e.queue(errEvent("queued", ingest.Error))
		}
		if err := p.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		defer p.Stop()
		for i := 0; i < 4; i++ {
			select {
			case <-processed:
			case <-time.After(30 * time.Second):
				t.Fatal("the backlog of 4 batches was not drained")
			}
		}
		for round := 0; round < 5; round++ {
			time.Sleep(20 * time.Millisecond) // let both workers go idle
			e.queue(errEvent("queued", ingest.Error))
			p.Wake()
			select {
			case <-processed:
			case <-time.After(10 * time.Second):
				t.Fatalf("round %d: a batch announced with Wake waited for the idle timer", round)
			}
		}
	})
}

// TestClaimAppliedInParts: a claim larger than the apply budget is applied
// in several transactions, each completing its own batches with their
// results, and every event is counted once.
func TestClaimAppliedInParts(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := newEnv(t, db)
		for i := 0; i < 5; i++ {
			e.queue(errEvent("queued", ingest.Error), errEvent("queued", ingest.Error))
		}
		var parts []int
		// A target of an hour keeps the budget at ApplyEvents however slow
		// the machine (the race detector, a busy CI).
		p := process.New(db, process.Options{Now: e.clock.Now, ClaimBatches: 5, ApplyEvents: 4, ApplyTarget: time.Hour,
			Observe: func(events int, _ time.Duration) { parts = append(parts, events) }})
		did, err := p.ProcessOne(ctx)
		if err != nil || !did {
			t.Fatalf("ProcessOne = %v, %v", did, err)
		}
		if want := []int{4, 4, 2}; !slices.Equal(parts, want) {
			t.Fatalf("parts of %v events, want %v", parts, want)
		}
		if did, err := p.ProcessOne(ctx); did || err != nil {
			t.Fatalf("after the claim: ProcessOne = %v, %v; want the queue empty", did, err)
		}
		if g := e.groups(); len(g) != 1 || g[0].EventCount != 10 {
			t.Fatalf("groups = %+v, want one counting 10", g)
		}
	})
}
