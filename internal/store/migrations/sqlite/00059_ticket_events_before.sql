-- +goose Up
-- The group's event count before the batch that opened a ticket: a spike
-- counts only the events that came while its ticket was open, and the
-- minute counts cannot tell the ticket's first minute's events from its
-- resolved predecessor's burst. 0 for tickets opened before: their spikes
-- count the window, as they did.
ALTER TABLE tickets ADD COLUMN events_before INTEGER NOT NULL DEFAULT 0;

-- +goose Down
ALTER TABLE tickets DROP COLUMN events_before;
