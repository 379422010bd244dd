-- +goose Up
-- The durable ingest queue: one row per accepted batch, written in the
-- commit that precedes the 202 and deleted in the transaction that stores the
-- batch's results.
CREATE TABLE ingest_batches (
    id          BIGSERIAL PRIMARY KEY,
    project_id  TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    received_at BIGINT NOT NULL,
    event_count INTEGER NOT NULL,
    byte_size   INTEGER NOT NULL,
    payload     BYTEA NOT NULL,
    lease_until BIGINT NOT NULL DEFAULT 0,
    attempts    INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX ingest_batches_lease ON ingest_batches(lease_until, id);

-- +goose Down
DROP TABLE ingest_batches;
