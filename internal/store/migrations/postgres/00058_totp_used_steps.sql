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

-- +goose Down
DROP TABLE totp_used_steps;
