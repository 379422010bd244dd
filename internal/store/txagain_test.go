package store_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/store/storetest"
)

// TestTxAgainRunsALostRaceAgain: a transaction PostgreSQL aborts to break
// a deadlock is run again by TxAgain and succeeds, where Tx answers the
// conflict. The two transactions lock two rows in opposite orders; the
// one under TxAgain waits first, so its deadlock check fires first and it
// is the one aborted.
func TestTxAgainRunsALostRaceAgain(t *testing.T) {
	db := storetest.Open(t, store.Postgres)
	ctx := context.Background()
	exec := func(c *store.Conn, q string) error {
		if err := c.QueryRowForTest(ctx, q).Scan(); err != nil && !errors.Is(err, sql.ErrNoRows) && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		return nil
	}
	if err := db.Tx(ctx, func(c *store.Conn) error {
		if err := exec(c, `CREATE TABLE race_rows (id int PRIMARY KEY, n int NOT NULL)`); err != nil {
			return err
		}
		return exec(c, `INSERT INTO race_rows VALUES (1, 0), (2, 0)`)
	}); err != nil {
		t.Fatal(err)
	}
	sum := func() int {
		var n int
		if err := db.Write().QueryRowForTest(ctx, `SELECT SUM(n) FROM race_rows`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for try := 1; ; try++ {
		before := sum()
		lockedFirst, lockedSecond, waiting := make(chan struct{}), make(chan struct{}), make(chan struct{})
		other := make(chan error, 1)
		go func() {
			other <- db.Tx(ctx, func(c *store.Conn) error {
				<-lockedFirst
				if err := exec(c, `UPDATE race_rows SET n = n + 1 WHERE id = 2`); err != nil {
					return err
				}
				close(lockedSecond)
				<-waiting
				time.Sleep(300 * time.Millisecond) // let the other wait first
				return exec(c, `UPDATE race_rows SET n = n + 1 WHERE id = 1`)
			})
		}()
		attempts := 0
		err := db.TxAgain(ctx, func(c *store.Conn) error {
			attempts++
			if err := exec(c, `UPDATE race_rows SET n = n + 1 WHERE id = 1`); err != nil {
				return err
			}
			if attempts == 1 {
				close(lockedFirst)
				<-lockedSecond
				close(waiting)
			}
			return exec(c, `UPDATE race_rows SET n = n + 1 WHERE id = 2`)
		})
		otherErr := <-other
		if attempts == 1 && err == nil && store.LostRace(otherErr) && try < 3 {
			// A loaded machine let the other wait first: it was the one
			// aborted. Set the stage again.
			continue
		}
		if err != nil || attempts != 2 || otherErr != nil {
			t.Fatalf("TxAgain = %v after %d attempts (the other: %v), want success at the second", err, attempts, otherErr)
		}
		if n := sum() - before; n != 4 {
			t.Fatalf("the sum grew by %d, want both transactions' two updates", n)
		}
		return
	}
}

// TestClosedRowsStopTheirDeadline: a bounded query's deadline (AsWork on
// PostgreSQL: WorkTimeouts request timeouts) is stopped when its rows are
// closed. The process's own work runs on contexts that never end, so a
// timer left running held each query's context for 200 s: on a busy
// worker, tens of megabytes.
func TestClosedRowsStopTheirDeadline(t *testing.T) {
	db := storetest.Open(t, store.Postgres)
	db.BoundRequests(time.Second)
	for _, ctx := range []context.Context{store.AsWork(context.Background()), store.AsRequest(context.Background())} {
		qctx, err := db.Read().QueryForTest(ctx, `SELECT 1 UNION ALL SELECT 2`)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := qctx.Deadline(); !ok {
			t.Fatal("the query ran without a deadline")
		}
		if !errors.Is(qctx.Err(), context.Canceled) {
			t.Fatalf("after Close the query's context is %v, want cancelled", qctx.Err())
		}
	}
}
