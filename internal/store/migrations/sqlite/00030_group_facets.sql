-- +goose Up
-- Counts of the attribute values of each group's events (CONTRACT 8,
-- "Finding anything"): behind key:value search terms, GET
-- /v1/groups/{group_id}/facets and user_count. Processing adds a batch's
-- counts in the transaction that applies it, at most 1,000 distinct values
-- a key a group; later new values are counted under "(other)".
CREATE TABLE group_facets (
    group_id TEXT NOT NULL REFERENCES error_groups(id) ON DELETE CASCADE,
    key      TEXT NOT NULL,
    value    TEXT NOT NULL,
    count    INTEGER NOT NULL,
    PRIMARY KEY (group_id, key, value)
);
-- A key:value term finds its groups from here rather than probing every
-- group of the project. Only a value new to a group adds an entry: the
-- count, updated by every batch, is not in it.
CREATE INDEX group_facets_value ON group_facets(key, value, group_id);
-- One row a group and key: how many distinct values group_facets holds for
-- it (so that the cap is checked without counting), and for user.id past
-- the cap a HyperLogLog sketch of every value seen (user_count's estimate).
CREATE TABLE group_facet_keys (
    group_id TEXT NOT NULL REFERENCES error_groups(id) ON DELETE CASCADE,
    key      TEXT NOT NULL,
    distinct_values INTEGER NOT NULL,
    sketch   BLOB,
    PRIMARY KEY (group_id, key)
);
-- Distinct user.id values of the group's events: exact up to 1,000, then
-- the sketch's estimate.
ALTER TABLE error_groups ADD COLUMN user_count INTEGER NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE error_groups DROP COLUMN user_count;
DROP TABLE group_facet_keys;
DROP TABLE group_facets;
