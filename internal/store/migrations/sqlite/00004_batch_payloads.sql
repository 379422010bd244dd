-- +goose Up
-- Payloads move out of the queue rows: claiming a batch rewrites its row
-- (lease and attempts), and SQLite rewrites a whole row, blob included.
CREATE TABLE ingest_payloads (
    batch_id INTEGER PRIMARY KEY REFERENCES ingest_batches(id) ON DELETE CASCADE,
    payload  BLOB NOT NULL
);
INSERT INTO ingest_payloads (batch_id, payload) SELECT id, payload FROM ingest_batches;
ALTER TABLE ingest_batches DROP COLUMN payload;

-- +goose Down
ALTER TABLE ingest_batches ADD COLUMN payload BLOB NOT NULL DEFAULT x'';
UPDATE ingest_batches SET payload = (SELECT payload FROM ingest_payloads WHERE batch_id = ingest_batches.id);
DROP TABLE ingest_payloads;
