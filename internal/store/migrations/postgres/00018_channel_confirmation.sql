-- +goose Up
-- An email channel to an address that is not a member's own waits for its
-- recipient to open a confirmation link before anything is sent to it
-- (CONTRACT 8): confirmation is 'pending' until then, 'confirmed' after, and
-- the link's token is kept only as its hash. Channels made before this
-- migration stay confirmed (docs/decisions.md). unsubscribed_at is when the
-- recipient stopped the channel with an email's one-click unsubscribe link
-- (the channel is then disabled).
ALTER TABLE channels ADD COLUMN confirmation TEXT NOT NULL DEFAULT 'confirmed';
ALTER TABLE channels ADD COLUMN confirm_token_hash BYTEA;
ALTER TABLE channels ADD COLUMN unsubscribed_at BIGINT;
CREATE UNIQUE INDEX channels_confirm_token ON channels(confirm_token_hash) WHERE confirm_token_hash IS NOT NULL;

-- +goose Down
DROP INDEX channels_confirm_token;
ALTER TABLE channels DROP COLUMN unsubscribed_at;
ALTER TABLE channels DROP COLUMN confirm_token_hash;
ALTER TABLE channels DROP COLUMN confirmation;
