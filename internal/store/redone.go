package store

import (
	"context"
	"time"
)

// TxRedone runs fn in one write transaction like Tx, for work whose loss
// in a power failure or an operating system crash is redone by itself:
// the processing of queued batches, whose results commit together with
// the batches' deletion (or the lease of a claim), so that a lost commit
// leaves the batches queued and they are processed again. Its commit does
// not wait for the disk: on SQLite the transaction runs with
// synchronous=NORMAL (its WAL frames reach the disk with the next commit
// that waits, or before the next checkpoint), on PostgreSQL with
// synchronous_commit off. A crash of Errata alone loses nothing: the
// operating system still writes what was committed.
//
// On SQLite every commit that waits for the disk holds the one writer
// during its fsync, and every queue commit of ingestion waits behind it:
// the processing commits were half the writer's fsyncs (issue 30,
// docs/decisions.md).
func (db *DB) TxRedone(ctx context.Context, fn func(c *Conn) error) error {
	return db.drv.lazyTx(ctx, db, time.Now(), fn)
}
