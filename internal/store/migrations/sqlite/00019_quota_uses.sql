-- +goose Up
-- Uses of the limits that must hold across processes and restarts
-- (CONTRACT 8): invitations of an organization, successful sign-ins of an
-- account, "send the digest now" of a project, confirmation emails. One row
-- per use; a use is counted while it is within the longest window of its
-- quota, and retention deletes rows older than two days.
CREATE TABLE quota_uses (
    quota   TEXT NOT NULL,
    subject TEXT NOT NULL,
    at      INTEGER NOT NULL
);
CREATE INDEX quota_uses_subject ON quota_uses(quota, subject, at);
CREATE INDEX quota_uses_at ON quota_uses(at);

-- +goose Down
DROP TABLE quota_uses;
