package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
	"unicode/utf8"
)

// maxBatchError bounds the error text kept with a failed batch.
const maxBatchError = 2000

// RecordBatchFailure notes that processing b failed with cause, provided
// the caller still holds b's lease. Below maxFailures the batch is retried
// once its lease, moved to retryAt, ends; at maxFailures it is set aside:
// no longer claimed nor counted as backlog, until RetryBatches. It reports
// whether the batch was set aside.
func (c *Conn) RecordBatchFailure(ctx context.Context, b Batch, cause string, maxFailures int, now, retryAt time.Time) (bool, error) {
	if len(cause) > maxBatchError {
		cut := maxBatchError
		for cut > 0 && !utf8.RuneStart(cause[cut]) {
			cut--
		}
		cause = cause[:cut]
	}
	var failures int
	err := c.queryRow(ctx, `UPDATE ingest_batches SET failures = failures + 1, last_error = ?,
			lease_until = CASE WHEN failures + 1 >= ? THEN 0 ELSE CAST(? AS BIGINT) END,
			failed_at = CASE WHEN failures + 1 >= ? THEN CAST(? AS BIGINT) ELSE NULL END
		WHERE id = ? AND lease_until = ? RETURNING failures`,
		cause, maxFailures, ms(retryAt), maxFailures, ms(now), b.ID, ms(b.LeaseUntil)).Scan(&failures)
	if errors.Is(err, ErrNotFound) {
		return false, ErrLeaseLost
	}
	if err != nil {
		return false, fmt.Errorf("store: record failure of batch %d: %w", b.ID, err)
	}
	return failures >= maxFailures, nil
}

// FailedBatches lists the batches set aside, oldest first, without their
// payloads.
func (c *Conn) FailedBatches(ctx context.Context) ([]Batch, error) {
	rows, err := c.query(ctx, `SELECT id, project_id, received_at, event_count, attempts, failures, failed_at, last_error
		FROM ingest_batches WHERE failed_at IS NOT NULL ORDER BY id`)
	if err != nil {
		return nil, fmt.Errorf("store: failed batches: %w", err)
	}
	return collect(rows, func(s interface{ Scan(...any) error }) (Batch, error) {
		var b Batch
		var r int64
		var f sql.NullInt64
		err := s.Scan(&b.ID, &b.ProjectID, &r, &b.EventCount, &b.Attempts, &b.Failures, &f, &b.LastError)
		b.ReceivedAt, b.FailedAt = fromMS(r), fromNullMS(f)
		return b, err
	})
}

// CountFailedBatches counts the batches set aside.
func (c *Conn) CountFailedBatches(ctx context.Context) (int64, error) {
	var n int64
	if err := c.queryRow(ctx, `SELECT COUNT(*) FROM ingest_batches WHERE failed_at IS NOT NULL`).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: count failed batches: %w", err)
	}
	return n, nil
}

// RetryBatches puts set-aside batches back in the queue with their
// failures forgotten: those of ids, or every one when ids is empty. It
// reports how many were put back; an id that names no set-aside batch is
// ErrNotFound.
func (c *Conn) RetryBatches(ctx context.Context, ids []int64) (int64, error) {
	q := `UPDATE ingest_batches SET failed_at = NULL, failures = 0, lease_until = 0, last_error = '' WHERE failed_at IS NOT NULL`
	args := make([]any, len(ids))
	for i, id := range ids {
		args[i] = id
	}
	if len(ids) > 0 {
		q += ` AND id IN (` + tuples(len(ids), "?") + `)`
	}
	res, err := c.exec(ctx, q, args...)
	if err != nil {
		return 0, fmt.Errorf("store: retry batches: %w", err)
	}
	n, err := res.RowsAffected()
	if err == nil && len(ids) > 0 && n < int64(len(ids)) {
		return n, fmt.Errorf("store: retry batches: %d of %d ids name no set-aside batch: %w", int64(len(ids))-n, len(ids), ErrNotFound)
	}
	return n, err
}
