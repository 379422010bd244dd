-- +goose Up
-- Leases of work one process of an installation does at a time (the
-- scheduler's periodic jobs): held until `until`, renewed by the holder,
-- taken over by another process once it has passed.
CREATE TABLE leases (
    name   TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    until  INTEGER NOT NULL
);
-- Processes of the installation and their roles, seen every few seconds:
-- limits shared by the api processes divide by how many are alive.
CREATE TABLE processes (
    id         TEXT PRIMARY KEY,
    roles      TEXT NOT NULL,
    host       TEXT NOT NULL,
    pid        INTEGER NOT NULL,
    started_at INTEGER NOT NULL,
    seen_at    INTEGER NOT NULL
);
-- A channel's deliveries leased by any process: a claim counts them, so
-- that a channel has at most its per-channel cap in flight cluster-wide.
CREATE INDEX deliveries_channel_lease ON deliveries(channel_id, lease_until) WHERE status = 'pending';

-- +goose Down
DROP INDEX deliveries_channel_lease;
DROP TABLE processes;
DROP TABLE leases;
