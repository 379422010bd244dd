-- +goose Up
-- What a ticket's group looked like when the ticket was resolved: a resolved
-- ticket's facts and summary (event count, last seen, environment, release,
-- sample, trace) stay those of its episode, while the group goes on counting
-- for its next ticket. NULL while the ticket is open, and for tickets
-- resolved before this was kept (they read the group as they did).
ALTER TABLE tickets ADD COLUMN closed_event_count INTEGER;
ALTER TABLE tickets ADD COLUMN closed_last_seen INTEGER;
ALTER TABLE tickets ADD COLUMN closed_level INTEGER;
ALTER TABLE tickets ADD COLUMN closed_environment TEXT;
ALTER TABLE tickets ADD COLUMN closed_release TEXT;
ALTER TABLE tickets ADD COLUMN closed_sample TEXT;
ALTER TABLE tickets ADD COLUMN closed_trace_id TEXT;

-- +goose Down
ALTER TABLE tickets DROP COLUMN closed_trace_id;
ALTER TABLE tickets DROP COLUMN closed_sample;
ALTER TABLE tickets DROP COLUMN closed_release;
ALTER TABLE tickets DROP COLUMN closed_environment;
ALTER TABLE tickets DROP COLUMN closed_level;
ALTER TABLE tickets DROP COLUMN closed_last_seen;
ALTER TABLE tickets DROP COLUMN closed_event_count;
