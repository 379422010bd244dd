-- +goose Up
-- How the session that made a personal API token had signed in: an
-- organization with sso_required accepts a token only when it was made
-- from a session that signed in through OpenID Connect, as it accepts only
-- such sessions (a password session could otherwise make a token to get
-- round the rule). Tokens made before are 'password'.
ALTER TABLE api_tokens ADD COLUMN sign_in_method TEXT NOT NULL DEFAULT 'password';

-- +goose Down
ALTER TABLE api_tokens DROP COLUMN sign_in_method;
