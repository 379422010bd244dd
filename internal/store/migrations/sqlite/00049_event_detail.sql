-- +goose Up
-- What a sample event carries for the event detail only (JSON,
-- ingest.Detail: {"breadcrumbs": [...], "sources": [...]}), '' when
-- nothing (CONTRACT 8).
ALTER TABLE group_events ADD COLUMN detail TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE group_events DROP COLUMN detail;
