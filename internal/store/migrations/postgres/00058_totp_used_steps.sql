-- +goose Up
-- The TOTP time steps whose codes were accepted, each once (RFC 6238
-- section 5.2), replacing users.totp_last_step (no longer written): a
-- high-water mark refused an unused code of the step before one accepted,
-- which CONTRACT 8's ±1 step accepts. Steps older than the skew are
-- deleted as new ones are recorded, so a user keeps at most three.
CREATE TABLE totp_used_steps (
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    step    BIGINT NOT NULL,
    PRIMARY KEY (user_id, step)
);
-- The step the old column says was used stays used: a code accepted just
-- before the upgrade is not accepted again after it.
INSERT INTO totp_used_steps (user_id, step)
    SELECT id, totp_last_step FROM users WHERE totp_secret <> '' AND totp_last_step > 0;

-- +goose Down
DROP TABLE totp_used_steps;
