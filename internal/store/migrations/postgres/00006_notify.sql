-- +goose Up
-- Notification channels of a project. A webhook's signing secret must be
-- kept readable to sign with (docs/decisions.md); during a rotation the old
-- one signs too until old_secret_until.
CREATE TABLE channels (
    id                   TEXT PRIMARY KEY,
    project_id           TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    member_id            TEXT NOT NULL,
    name                 TEXT NOT NULL,
    type                 TEXT NOT NULL,
    url                  TEXT NOT NULL,
    email                TEXT NOT NULL,
    enabled              BOOLEAN NOT NULL,
    secret               TEXT NOT NULL,
    old_secret           TEXT NOT NULL,
    old_secret_until     BIGINT,
    health               TEXT NOT NULL,
    consecutive_failures BIGINT NOT NULL,
    last_delivery_at     BIGINT,
    last_test_at         BIGINT,
    created_at           BIGINT NOT NULL,
    updated_at           BIGINT NOT NULL
);
CREATE INDEX channels_project ON channels(project_id, id);

-- Deliveries of tickets, digests and tests to channels. The body is frozen
-- when the delivery is queued; status is pending until delivered, failed
-- (given up) or cancelled. A redelivery starts a new series of attempts.
CREATE TABLE deliveries (
    id              TEXT PRIMARY KEY,
    channel_id      TEXT NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
    project_id      TEXT NOT NULL,
    event           TEXT NOT NULL,
    subject_id      TEXT NOT NULL,
    body            BYTEA NOT NULL,
    status          TEXT NOT NULL,
    series          BIGINT NOT NULL,
    attempts        BIGINT NOT NULL,
    next_attempt_at BIGINT,
    lease_until     BIGINT NOT NULL,
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL
);
CREATE INDEX deliveries_due ON deliveries(next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_channel ON deliveries(channel_id, id);

-- Every attempt of a delivery, for the delivery log.
CREATE TABLE delivery_attempts (
    delivery_id   TEXT NOT NULL REFERENCES deliveries(id) ON DELETE CASCADE,
    n             BIGINT NOT NULL,
    series        BIGINT NOT NULL,
    at            BIGINT NOT NULL,
    outcome       TEXT NOT NULL,
    http_status   BIGINT NOT NULL,
    error_class   TEXT NOT NULL,
    error         TEXT NOT NULL,
    duration_ms   BIGINT NOT NULL,
    next_retry_at BIGINT,
    PRIMARY KEY (delivery_id, n)
);

-- Digest schedule of a project. next_digest_at 0: not scheduled yet.
CREATE TABLE notification_settings (
    project_id     TEXT PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
    digest_enabled BOOLEAN NOT NULL,
    frequency      TEXT NOT NULL,
    hour           BIGINT NOT NULL,
    weekday        TEXT NOT NULL,
    timezone       TEXT NOT NULL,
    period_start   BIGINT NOT NULL,
    next_digest_at BIGINT NOT NULL,
    updated_at     BIGINT NOT NULL
);
CREATE INDEX notification_settings_due ON notification_settings(next_digest_at);

-- Digests sent, with the digest object as the bodies carried it.
CREATE TABLE digests (
    id           TEXT PRIMARY KEY,
    project_id   TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    period_start BIGINT NOT NULL,
    period_end   BIGINT NOT NULL,
    body         TEXT NOT NULL,
    created_at   BIGINT NOT NULL
);
CREATE INDEX digests_project ON digests(project_id, id);

-- +goose Down
DROP TABLE digests;
DROP TABLE notification_settings;
DROP TABLE delivery_attempts;
DROP TABLE deliveries;
DROP TABLE channels;
