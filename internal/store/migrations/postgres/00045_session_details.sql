-- +goose Up
-- Sessions show where they came from (CONTRACT 8, GET /v1/auth/sessions):
-- the client address and user agent of the sign-in, and how it signed in
-- ('password' or 'oidc'; sso_required organizations accept only 'oidc').
-- Sessions made before this migration show an empty address and agent.
ALTER TABLE sessions ADD COLUMN ip TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN user_agent TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN method TEXT NOT NULL DEFAULT 'password';

-- +goose Down
ALTER TABLE sessions DROP COLUMN method;
ALTER TABLE sessions DROP COLUMN user_agent;
ALTER TABLE sessions DROP COLUMN ip;
