package store

import (
	"context"
	"database/sql/driver"
	"fmt"
)

// FillInfoSummariesWindowed is FillInfoSummaries with the templates read by
// the ROW_NUMBER query on either database, so its tests check that query on
// SQLite too.
func (c *Conn) FillInfoSummariesWindowed(ctx context.Context, list []InfoSummary, top int) error {
	return c.fillInfoSummaries(ctx, list, top, true)
}

// MigrateDownTo rolls the schema back to version, so that a test can write
// rows as an older release did and check what a migration makes of them.
func (db *DB) MigrateDownTo(ctx context.Context, version int64) error {
	p, err := db.migrations()
	if err != nil {
		return err
	}
	_, err = p.DownTo(ctx, version)
	return err
}

// ExecForTest runs one statement on the writer, for tests that write rows
// as an older schema had them.
func (db *DB) ExecForTest(ctx context.Context, q string, args ...any) error {
	_, err := db.Write().exec(ctx, q, args...)
	return err
}

// ExecForTest runs a statement as written (with ? placeholders) on c, for
// tests that write rows as an older schema had them.
func (c *Conn) ExecForTest(ctx context.Context, query string, args ...any) error {
	_, err := c.exec(ctx, query, args...)
	return err
}

// SystemEmailBody is the stored body of the system email about subjectID.
func (c *Conn) SystemEmailBody(ctx context.Context, subjectID string) ([]byte, error) {
	var b []byte
	err := c.queryRow(ctx, `SELECT body FROM deliveries WHERE channel_id IS NULL AND subject_id = ?`, subjectID).Scan(&b)
	return b, err
}

// QueryRowForTest runs a query (with ? placeholders) on c, for tests that
// read what no store method reads.
func (c *Conn) QueryRowForTest(ctx context.Context, query string, args ...any) interface{ Scan(...any) error } {
	return c.queryRow(ctx, query, args...)
}

// SetWALRestartForTest sets the WAL size past which the checkpointer
// starts the WAL over.
func (db *DB) SetWALRestartForTest(bytes int64) { db.walRestart.Store(bytes) }

// PendingBucketForTest is the bucket of a group's pending counts.
func PendingBucketForTest(groupID string) int { return pendingBucket(groupID) }

// SetReadOnlyForTest makes the database refuse writes (on) or take them
// again: SQLite's one writer connection with query_only, PostgreSQL's
// database with default_transaction_read_only, its idle writer
// connections dropped so that the next ones have the setting.
func (db *DB) SetReadOnlyForTest(ctx context.Context, on bool) error {
	if db.dialect == SQLite {
		_, err := db.write.ExecContext(ctx, fmt.Sprintf("PRAGMA query_only = %t", on))
		return err
	}
	conn, err := db.write.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `SET default_transaction_read_only = off`); err != nil {
		return err
	}
	_, err = conn.ExecContext(ctx, fmt.Sprintf(`DO $$ BEGIN EXECUTE format('ALTER DATABASE %%I SET default_transaction_read_only = %t', current_database()); END $$`, on))
	_ = conn.Raw(func(any) error { return driver.ErrBadConn }) // not back to the pool with its session setting
	db.write.SetMaxIdleConns(0)
	db.write.SetMaxIdleConns(16)
	return err
}

// QueryForTest runs q as the store's list queries run, reads its rows and
// closes them, and returns the context the statement ran under.
func (c *Conn) QueryForTest(ctx context.Context, q string) (context.Context, error) {
	r, err := c.query(ctx, q)
	if err != nil {
		return nil, err
	}
	for r.Next() {
	}
	return r.ctx, r.Close()
}
