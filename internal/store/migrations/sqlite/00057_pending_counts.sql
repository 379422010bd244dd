-- +goose Up
-- Value counts and event ids that processing recorded while it had a
-- backlog, to be added to group_facets and event_refs a second later
-- (store.FoldPendingCounts): one row an apply transaction and bucket of
-- groups, its counts encoded in data. Writing one row instead of
-- thousands of upserts an apply transaction, and adding a second's counts
-- at once, cut the whole server's processing cost (docs/decisions.md,
-- "Value counts under a backlog").
CREATE TABLE pending_counts (
    id     INTEGER PRIMARY KEY AUTOINCREMENT,
    bucket INTEGER NOT NULL,
    data   BLOB NOT NULL
);
CREATE INDEX pending_counts_bucket ON pending_counts(bucket, id);

-- +goose Down
DROP TABLE pending_counts;
