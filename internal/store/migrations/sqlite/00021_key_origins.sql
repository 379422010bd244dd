-- +goose Up
-- The origins a browser may send a key's Sentry requests from (CONTRACT 8):
-- a JSON array of origins ("https://app.example.com", "https://*.example.com")
-- or ["*"], every origin, which keys made before this migration keep.
ALTER TABLE api_keys ADD COLUMN allowed_origins TEXT NOT NULL DEFAULT '["*"]';

-- +goose Down
ALTER TABLE api_keys DROP COLUMN allowed_origins;
