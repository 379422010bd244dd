-- +goose Up
-- event_count counted info and debug events while debug_count counted the
-- debug ones again; now event_count is info events only (CONTRACT 7), so
-- that groups' event_count + summaries' event_count + debug_count is every
-- accepted event exactly once.
UPDATE info_summaries SET event_count = event_count - debug_count;

-- +goose Down
UPDATE info_summaries SET event_count = event_count + debug_count;
