-- +goose Up
-- Personal API tokens (CONTRACT 8): a token acts as its user within its
-- scopes (space-separated). Only a hash of its secret is kept; deleting a
-- token revokes it.
CREATE TABLE api_tokens (
    id           TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    scopes       TEXT NOT NULL,
    secret_hash  BLOB NOT NULL,
    created_at   INTEGER NOT NULL,
    expires_at   INTEGER,
    last_used_at INTEGER
);
CREATE INDEX api_tokens_user ON api_tokens(user_id, id);

-- +goose Down
DROP TABLE api_tokens;
