-- +goose Up
-- Error groups: one per project, service and fingerprint.
CREATE TABLE error_groups (
    id                  TEXT PRIMARY KEY,
    project_id          TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    service             TEXT NOT NULL,
    fingerprint         TEXT NOT NULL,
    fingerprint_version INTEGER NOT NULL,
    fingerprint_rule    TEXT NOT NULL,
    title               TEXT NOT NULL,
    exception_type      TEXT NOT NULL,
    culprit             TEXT NOT NULL,
    level               INTEGER NOT NULL,
    status              TEXT NOT NULL,
    first_seen          INTEGER NOT NULL,
    last_seen           INTEGER NOT NULL,
    event_count         INTEGER NOT NULL,
    environments        TEXT NOT NULL,
    releases            TEXT NOT NULL,
    first_release       TEXT NOT NULL,
    last_release        TEXT NOT NULL,
    last_environment    TEXT NOT NULL,
    sample_message      TEXT NOT NULL,
    last_trace_id       TEXT NOT NULL,
    ticket_id           TEXT,
    resolved_at         INTEGER,
    updated_at          INTEGER NOT NULL,
    UNIQUE (project_id, service, fingerprint)
);
CREATE INDEX error_groups_project ON error_groups(project_id, id);

-- Sample events of a group: its first and its latest few.
CREATE TABLE group_events (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    group_id    TEXT NOT NULL REFERENCES error_groups(id) ON DELETE CASCADE,
    first       INTEGER NOT NULL,
    received_at INTEGER NOT NULL,
    timestamp   INTEGER NOT NULL,
    level       INTEGER NOT NULL,
    message     TEXT NOT NULL,
    stack_trace TEXT NOT NULL,
    environment TEXT NOT NULL,
    release     TEXT NOT NULL,
    trace_id    TEXT NOT NULL,
    span_id     TEXT NOT NULL,
    attributes  TEXT NOT NULL
);
CREATE INDEX group_events_group ON group_events(group_id, id);

-- Event counts of a group per minute (kept 14 days) and per hour (a year),
-- by receipt time.
CREATE TABLE group_minutes (
    group_id TEXT NOT NULL REFERENCES error_groups(id) ON DELETE CASCADE,
    minute   INTEGER NOT NULL,
    count    INTEGER NOT NULL,
    PRIMARY KEY (group_id, minute)
);
CREATE TABLE group_hours (
    group_id TEXT NOT NULL REFERENCES error_groups(id) ON DELETE CASCADE,
    hour     INTEGER NOT NULL,
    count    INTEGER NOT NULL,
    PRIMARY KEY (group_id, hour)
);

CREATE TABLE tickets (
    id          TEXT PRIMARY KEY,
    project_id  TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    group_id    TEXT NOT NULL REFERENCES error_groups(id) ON DELETE CASCADE,
    severity    TEXT NOT NULL,
    status      TEXT NOT NULL,
    reason      TEXT NOT NULL,
    title       TEXT NOT NULL,
    first_seen  INTEGER NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    resolved_at INTEGER
);
CREATE INDEX tickets_project ON tickets(project_id, id);
CREATE UNIQUE INDEX tickets_one_open ON tickets(group_id) WHERE status = 'open';

-- INFO summaries: one per project and window.
CREATE TABLE info_summaries (
    id           TEXT PRIMARY KEY,
    project_id   TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    window_start INTEGER NOT NULL,
    window_end   INTEGER NOT NULL,
    event_count  INTEGER NOT NULL,
    debug_count  INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL,
    UNIQUE (project_id, window_start)
);
CREATE INDEX info_summaries_project ON info_summaries(project_id, id);
CREATE TABLE info_services (
    summary_id TEXT NOT NULL REFERENCES info_summaries(id) ON DELETE CASCADE,
    service    TEXT NOT NULL,
    count      INTEGER NOT NULL,
    PRIMARY KEY (summary_id, service)
);
CREATE TABLE info_templates (
    summary_id TEXT NOT NULL REFERENCES info_summaries(id) ON DELETE CASCADE,
    hash       TEXT NOT NULL,
    template   TEXT NOT NULL,
    sample     TEXT NOT NULL,
    count      INTEGER NOT NULL,
    PRIMARY KEY (summary_id, hash)
);

-- +goose Down
DROP TABLE info_templates;
DROP TABLE info_services;
DROP TABLE info_summaries;
DROP TABLE tickets;
DROP TABLE group_hours;
DROP TABLE group_minutes;
DROP TABLE group_events;
DROP TABLE error_groups;
