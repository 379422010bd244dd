-- +goose Up
-- Free words find a group by its search_message, a recent sample message
-- that processing refreshes at most once a minute a group, rather than by
-- sample_message, which changes with nearly every event: every such update
-- also updated the trigram index (and so could never be a heap-only update).
-- sample_message stays the latest message, as tickets' facts show it.
ALTER TABLE error_groups ADD COLUMN search_message text NOT NULL DEFAULT '';
UPDATE error_groups SET search_message = sample_message;
DROP INDEX error_groups_search;
CREATE INDEX error_groups_search ON error_groups
    USING gin ((title || E'\x1f' || culprit || E'\x1f' || search_message) gin_trgm_ops);

-- +goose Down
DROP INDEX error_groups_search;
CREATE INDEX error_groups_search ON error_groups
    USING gin ((title || E'\x1f' || culprit || E'\x1f' || sample_message) gin_trgm_ops);
ALTER TABLE error_groups DROP COLUMN search_message;
