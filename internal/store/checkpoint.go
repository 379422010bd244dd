package store

import (
	"context"
	"database/sql/driver"
	"time"
)

// checkpointInterval is how often the background checkpointer copies the
// WAL into the database file.
const checkpointInterval = 250 * time.Millisecond

// walRestartBytes is the WAL size past which the checkpointer starts the
// WAL over from its beginning: the journal_size_limit the connections are
// opened with, so that starting over truncates little or nothing.
const walRestartBytes = 64 << 20

// checkpointer runs PASSIVE checkpoints until Close: they copy what they
// can without blocking the writer or readers. When the WAL has grown past
// walRestart, it has the writer start the WAL over (restartWAL).
func (db *DB) checkpointer() {
	defer close(db.ckptDone)
	t := time.NewTicker(checkpointInterval)
	defer t.Stop()
	pageSize := int64(4096)
	_ = db.ckpt.QueryRow(`PRAGMA page_size`).Scan(&pageSize)
	for {
		select {
		case <-db.stopCkpt:
			return
		case <-t.C:
			var busy, frames, copied int64
			err := db.ckpt.QueryRow(`PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &frames, &copied)
			if err == nil && frames*pageSize >= db.walRestart.Load() {
				db.restartWAL()
			}
		}
	}
}

// restartWAL checkpoints on the writer connection (RESTART), so that the
// next write starts the WAL over from its beginning.
//
// SQLite starts the WAL over only when a write begins while every frame
// has been copied into the database and no reader still reads from the
// WAL. Under a steady load the writer always adds frames the background
// checkpoint has not copied yet, so that moment never came: the WAL grew
// by gigabytes until the load paused, and the write that then started it
// over truncated it back to journal_size_limit while holding the writer
// (1.6–1.8 s in 2-minute mixed runs, 4.7 s after 8 minutes; issue 30,
// docs/decisions.md). On the writer connection no write can come between
// the checkpoint and the next write, and the background checkpoint has
// copied nearly everything already. busy_timeout is 50 ms meanwhile: the
// readers still in the WAL finish their short reads within it (readers
// that begin meanwhile read the database file, the WAL being all copied),
// while a long read (a backup) makes the checkpoint give up rather than
// hold the writer while it waits, and the next round tries again.
func (db *DB) restartWAL() {
	ctx := context.Background()
	asked := time.Now()
	conn, err := db.write.Conn(ctx)
	if err != nil {
		return
	}
	defer func() { _ = conn.Close() }()
	began := time.Now()
	if _, err := conn.ExecContext(ctx, `PRAGMA busy_timeout = 50`); err != nil {
		return
	}
	_, _ = conn.ExecContext(ctx, `PRAGMA wal_checkpoint(RESTART)`)
	if _, err := conn.ExecContext(ctx, `PRAGMA busy_timeout = 10000`); err != nil {
		// The pool closes a connection reported bad; the next opens
		// with the busy_timeout of its DSN.
		_ = conn.Raw(func(any) error { return driver.ErrBadConn })
	}
	db.slow.done(ctx, SQLite, "checkpoint", began, began.Sub(asked), 0)
}
