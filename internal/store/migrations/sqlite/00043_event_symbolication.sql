-- +goose Up
-- What source map symbolication recorded for a sample event (JSON:
-- {"frames": [{function, file, line, column, context, raw}], "notes": […]}),
-- '' when it did nothing (CONTRACT 8).
ALTER TABLE group_events ADD COLUMN symbolication TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE group_events DROP COLUMN symbolication;
