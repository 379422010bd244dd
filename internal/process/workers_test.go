package process_test

import (
	"context"
	"sync"
	"testing"

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
				if _, err := svc.SetGroupStatus(ctx, gid, status); err != nil {
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
