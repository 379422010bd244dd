-- +goose Up
-- Each channel's pending deliveries, oldest due first: a claim walks the
-- channels that have some and takes a few of each, without reading any
-- channel's whole backlog.
CREATE INDEX deliveries_channel_due ON deliveries(channel_id, next_attempt_at) WHERE status = 'pending';

-- +goose Down
DROP INDEX deliveries_channel_due;
