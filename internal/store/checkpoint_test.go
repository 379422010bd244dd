package store_test

import (
	"context"
	"crypto/rand"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// TestWALStartsOver: under writes without a pause and readers without a
// pause, the WAL is started over whenever it passes its bound, instead of
// growing until the load pauses (and then being truncated while the
// writer waits: issue 30). SQLite only: PostgreSQL manages its own WAL.
func TestWALStartsOver(t *testing.T) {
	t.Parallel()
	db := storetest.Open(t, store.SQLite)
	ctx := context.Background()
	const bound = 1 << 20
	db.SetWALRestartForTest(bound)
	if err := db.ExecForTest(ctx, `CREATE TABLE walfill (b BLOB)`); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var biggest int64
	wg.Go(func() { // readers, one after another, never pausing
		for {
			select {
			case <-stop:
				return
			default:
			}
			var n int
			_ = db.Read().QueryRowForTest(ctx, `SELECT count(*) FROM walfill`).Scan(&n)
		}
	})
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
			}
			if fi, err := os.Stat(db.Path() + "-wal"); err == nil {
				biggest = max(biggest, fi.Size())
			}
		}
	})
	blob := make([]byte, 128<<10)
	_, _ = rand.Read(blob)
	// At least 30 MiB, and for at least two seconds: the checkpointer looks
	// every 250 ms, and without the race detector 30 MiB take half a second.
	var written int64
	for start := time.Now(); written < 30<<20 || time.Since(start) < 2*time.Second; written += int64(len(blob)) {
		if err := db.ExecForTest(ctx, `INSERT INTO walfill (b) VALUES (?)`, blob); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	// Never started over, the WAL holds everything written (the bug this
	// guards against); started over, it holds a few rounds of the
	// checkpointer's. Half leaves room for a machine so busy that the
	// checkpointer's rounds come late (98 MiB of 214 MiB once, with the
	// whole suite and other work sharing two cores).
	if biggest == 0 || biggest > written/2 {
		t.Errorf("the WAL grew to %d bytes while %d bytes were written; want it started over past %d bytes (a few rounds of writes beyond)", biggest, written, bound)
	}
}
