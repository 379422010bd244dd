-- +goose Up
-- Free words of a search (CONTRACT 8) are answered through a pg_trgm GIN
-- index of each group's title, culprit and latest sample message, joined by
-- U+001F (a control character, which no query may hold, so no word matches
-- across two columns): ILIKE '%word%' on that expression uses the index and
-- is rechecked on the row, so the words keep their meaning (docs/search.md).
-- pg_trgm ships with PostgreSQL and is a trusted extension: a role with
-- CREATE on the database may install it. PostgreSQL keeps the index in step
-- with every write; building it here indexes the existing groups.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX error_groups_search ON error_groups
    USING gin ((title || E'\x1f' || culprit || E'\x1f' || sample_message) gin_trgm_ops);

-- +goose Down
DROP INDEX error_groups_search;
