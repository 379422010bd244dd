-- +goose Up
-- A batch whose processing keeps failing is set aside instead of blocking
-- the queue: failures counts failed attempts (a crash is not one), and
-- failed_at marks the batch set aside after the fifth, with the last error.
-- Set-aside batches are no longer claimed or counted as backlog until
-- `errata queue retry` puts them back.
ALTER TABLE ingest_batches ADD COLUMN failures INTEGER NOT NULL DEFAULT 0;
ALTER TABLE ingest_batches ADD COLUMN failed_at INTEGER;
ALTER TABLE ingest_batches ADD COLUMN last_error TEXT NOT NULL DEFAULT '';
CREATE INDEX ingest_batches_failed ON ingest_batches(failed_at) WHERE failed_at IS NOT NULL;

-- +goose Down
DROP INDEX ingest_batches_failed;
ALTER TABLE ingest_batches DROP COLUMN last_error;
ALTER TABLE ingest_batches DROP COLUMN failed_at;
ALTER TABLE ingest_batches DROP COLUMN failures;
