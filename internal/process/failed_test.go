package process_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/process"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// TestBadBatchIsSetAside: a batch that cannot be processed fails alone, not
// with the batches claimed beside it; after its fifth failure it is set
// aside (no longer claimed nor counted as backlog), and retrying puts it
// back (CONTRACT 7).
func TestBadBatchIsSetAside(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		e := newEnv(t, db)
		var setAside int
		e.proc = process.New(db, process.Options{Now: e.clock.Now, InfoWindow: time.Hour, OnSetAside: func() { setAside++ }})
		e.queue(errEvent("before the bad batch", ingest.Error))
		bad := store.Batch{ProjectID: e.prj, ReceivedAt: e.clock.Now(), EventCount: 3, Payload: []byte("not a payload")}
		if err := db.Tx(ctx, func(c *store.Conn) error { return c.InsertBatches(ctx, []store.Batch{bad}) }); err != nil {
			t.Fatal(err)
		}
		e.queue(errEvent("after the bad batch", ingest.Error))

		for i := 0; i < 10; i++ {
			if err := e.proc.Drain(ctx); err != nil {
				t.Fatalf("Drain: %v", err)
			}
			e.clock.Add(20 * time.Second) // past each retry's backoff
		}
		if gs := e.groups(); len(gs) != 2 {
			t.Fatalf("groups = %d, want the 2 good batches' groups", len(gs))
		}
		failed, err := db.Read().FailedBatches(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(failed) != 1 || failed[0].Failures != process.MaxFailures || failed[0].FailedAt == nil ||
			!strings.Contains(failed[0].LastError, "corrupt payload") || failed[0].EventCount != 3 {
			t.Fatalf("failed batches = %+v, want the bad one after %d failures with its error", failed, process.MaxFailures)
		}
		if setAside != 1 {
			t.Errorf("OnSetAside called %d times, want 1", setAside)
		}
		if b, ev, _, err := db.Read().Backlog(ctx); err != nil || b != 0 || ev != 0 {
			t.Errorf("backlog = %d batches, %d events, %v; want none: a set-aside batch is not backlog", b, ev, err)
		}
		if did, err := e.proc.ProcessOne(ctx); did || err != nil {
			t.Errorf("ProcessOne = %v, %v; want nothing to claim", did, err)
		}

		n, err := db.Write().RetryBatches(ctx, []int64{failed[0].ID})
		if err != nil || n != 1 {
			t.Fatalf("RetryBatches = %d, %v", n, err)
		}
		if b, _, _, _ := db.Read().Backlog(ctx); b != 1 {
			t.Fatalf("backlog after retry = %d batches, want 1", b)
		}
		if _, err := db.Write().RetryBatches(ctx, []int64{failed[0].ID}); err == nil {
			t.Error("retrying a batch that is not set aside succeeded")
		}
		if did, err := e.proc.ProcessOne(ctx); !did || err != nil {
			t.Fatalf("ProcessOne after retry = %v, %v; want the batch claimed again", did, err)
		}
		again, _ := db.Read().FailedBatches(ctx)
		if len(again) != 0 {
			t.Errorf("failed batches right after one more failure = %d, want 0 (failures start over)", len(again))
		}
	})
}
