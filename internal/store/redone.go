package store

import (
	"context"
	"database/sql/driver"
	"fmt"
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
	asked := time.Now()
	if db.dialect == Postgres {
		return db.runTx(ctx, asked, db.write.BeginTx, func(c *Conn) error {
			if _, err := c.exec(ctx, `SET LOCAL synchronous_commit TO off`); err != nil {
				return fmt.Errorf("store: lazy commit: %w", err)
			}
			return fn(c)
		})
	}
	conn, err := db.write.Conn(ctx) // the writer: the pool has one
	if err != nil {
		return fmt.Errorf("store: begin: %w", translate(err))
	}
	if _, err := conn.ExecContext(ctx, `PRAGMA synchronous = NORMAL`); err != nil {
		_ = conn.Close()
		return fmt.Errorf("store: lazy commit: %w", translate(err))
	}
	err = db.runTx(ctx, asked, conn.BeginTx, fn)
	if _, rerr := conn.ExecContext(context.WithoutCancel(ctx), `PRAGMA synchronous = FULL`); rerr != nil {
		// Never hand the writer back without FULL: the pool closes a
		// connection reported bad, and the next one opens with FULL.
		_ = conn.Raw(func(any) error { return driver.ErrBadConn })
	}
	_ = conn.Close()
	if err == nil {
		db.wstmts.prepareWanted(ctx, db.write)
	}
	return err
}
