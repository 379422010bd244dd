-- +goose Up
-- Email verification (CONTRACT 8): until email_verified_at is set, an
-- account's address receives no channel email and satisfies no invitation.
-- The link's token is kept only as its hash, with when it was sent (it
-- works seven days). Accounts made before this migration count as verified
-- (docs/decisions.md).
ALTER TABLE users ADD COLUMN email_verified_at INTEGER;
ALTER TABLE users ADD COLUMN verify_token_hash BLOB;
ALTER TABLE users ADD COLUMN verify_sent_at INTEGER;
UPDATE users SET email_verified_at = created_at;
CREATE UNIQUE INDEX users_verify_token ON users(verify_token_hash) WHERE verify_token_hash IS NOT NULL;

-- +goose Down
DROP INDEX users_verify_token;
ALTER TABLE users DROP COLUMN verify_sent_at;
ALTER TABLE users DROP COLUMN verify_token_hash;
ALTER TABLE users DROP COLUMN email_verified_at;
