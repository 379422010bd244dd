-- +goose Up
-- Every channel's filters (CONTRACT 7): the lowest severity of the tickets
-- it is sent at once, and the environments and services it takes (JSON
-- lists; empty means all). A webhook channel's format: errata (the signed
-- bodies of the interface document) or a chat tool's.
ALTER TABLE channels ADD COLUMN format TEXT NOT NULL DEFAULT 'errata';
ALTER TABLE channels ADD COLUMN min_severity TEXT NOT NULL DEFAULT 'high';
ALTER TABLE channels ADD COLUMN environments TEXT NOT NULL DEFAULT '[]';
ALTER TABLE channels ADD COLUMN services TEXT NOT NULL DEFAULT '[]';

-- A delivery's format says how its stored body becomes what is sent:
-- errata (the body as stored), a chat tool's (the stored notification,
-- rendered at each attempt) or email. A system email (an invitation) has no
-- channel: channel_id becomes nullable, and the body names the recipient.
-- SQLite cannot drop a NOT NULL, so deliveries is rebuilt, and with it
-- delivery_attempts (whose rows would otherwise go with the old table's).
CREATE TABLE deliveries_new (
    id              TEXT PRIMARY KEY,
    channel_id      TEXT REFERENCES channels(id) ON DELETE CASCADE,
    project_id      TEXT NOT NULL,
    event           TEXT NOT NULL,
    subject_id      TEXT NOT NULL,
    body            BLOB NOT NULL,
    status          TEXT NOT NULL,
    series          INTEGER NOT NULL,
    attempts        INTEGER NOT NULL,
    next_attempt_at INTEGER,
    lease_until     INTEGER NOT NULL,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL,
    format          TEXT NOT NULL DEFAULT 'errata'
);
INSERT INTO deliveries_new (id, channel_id, project_id, event, subject_id, body, status, series, attempts, next_attempt_at,
        lease_until, created_at, updated_at, format)
    SELECT d.id, d.channel_id, d.project_id, d.event, d.subject_id, d.body, d.status, d.series, d.attempts, d.next_attempt_at,
        d.lease_until, d.created_at, d.updated_at, CASE c.type WHEN 'email' THEN 'email' ELSE 'errata' END
    FROM deliveries d LEFT JOIN channels c ON c.id = d.channel_id;
CREATE TABLE delivery_attempts_new (
    delivery_id   TEXT NOT NULL REFERENCES deliveries_new(id) ON DELETE CASCADE,
    n             INTEGER NOT NULL,
    series        INTEGER NOT NULL,
    at            INTEGER NOT NULL,
    outcome       TEXT NOT NULL,
    http_status   INTEGER NOT NULL,
    error_class   TEXT NOT NULL,
    error         TEXT NOT NULL,
    duration_ms   INTEGER NOT NULL,
    next_retry_at INTEGER,
    PRIMARY KEY (delivery_id, n)
);
INSERT INTO delivery_attempts_new SELECT delivery_id, n, series, at, outcome, http_status, error_class, error, duration_ms, next_retry_at
    FROM delivery_attempts;
DROP TABLE delivery_attempts;
DROP TABLE deliveries;
-- Renaming deliveries_new also renames the reference of delivery_attempts_new.
ALTER TABLE deliveries_new RENAME TO deliveries;
ALTER TABLE delivery_attempts_new RENAME TO delivery_attempts;
CREATE INDEX deliveries_due ON deliveries(next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_channel ON deliveries(channel_id, id);
CREATE INDEX deliveries_channel_due ON deliveries(channel_id, next_attempt_at) WHERE status = 'pending';
-- System emails by what they are about (an invitation's email by the
-- invitation), for the status shown with it.
CREATE INDEX deliveries_system ON deliveries(subject_id) WHERE channel_id IS NULL;

-- +goose Down
DELETE FROM deliveries WHERE channel_id IS NULL;
DROP INDEX deliveries_system;
CREATE TABLE deliveries_old (
    id              TEXT PRIMARY KEY,
    channel_id      TEXT NOT NULL REFERENCES channels(id) ON DELETE CASCADE,
    project_id      TEXT NOT NULL,
    event           TEXT NOT NULL,
    subject_id      TEXT NOT NULL,
    body            BLOB NOT NULL,
    status          TEXT NOT NULL,
    series          INTEGER NOT NULL,
    attempts        INTEGER NOT NULL,
    next_attempt_at INTEGER,
    lease_until     INTEGER NOT NULL,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL
);
INSERT INTO deliveries_old SELECT id, channel_id, project_id, event, subject_id, body, status, series, attempts, next_attempt_at,
    lease_until, created_at, updated_at FROM deliveries;
CREATE TABLE delivery_attempts_old (
    delivery_id   TEXT NOT NULL REFERENCES deliveries_old(id) ON DELETE CASCADE,
    n             INTEGER NOT NULL,
    series        INTEGER NOT NULL,
    at            INTEGER NOT NULL,
    outcome       TEXT NOT NULL,
    http_status   INTEGER NOT NULL,
    error_class   TEXT NOT NULL,
    error         TEXT NOT NULL,
    duration_ms   INTEGER NOT NULL,
    next_retry_at INTEGER,
    PRIMARY KEY (delivery_id, n)
);
INSERT INTO delivery_attempts_old SELECT * FROM delivery_attempts;
DROP TABLE delivery_attempts;
DROP TABLE deliveries;
ALTER TABLE deliveries_old RENAME TO deliveries;
ALTER TABLE delivery_attempts_old RENAME TO delivery_attempts;
CREATE INDEX deliveries_due ON deliveries(next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_channel ON deliveries(channel_id, id);
CREATE INDEX deliveries_channel_due ON deliveries(channel_id, next_attempt_at) WHERE status = 'pending';
ALTER TABLE channels DROP COLUMN services;
ALTER TABLE channels DROP COLUMN environments;
ALTER TABLE channels DROP COLUMN min_severity;
ALTER TABLE channels DROP COLUMN format;
