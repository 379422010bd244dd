-- +goose Up
-- A project's grouping rules (CONTRACT 8): Sentry's fingerprint rules and
-- stack trace rules as their owners wrote them, one text each; processing
-- reads them for every claim of batches, so a change applies to the events
-- processed after it.
CREATE TABLE grouping_rules (
    project_id  TEXT PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
    fingerprint TEXT NOT NULL,
    stack_trace TEXT NOT NULL,
    updated_at  INTEGER NOT NULL,
    updated_by  TEXT NOT NULL
);

-- What made each group's fingerprint, written when processing creates the
-- group (grouping.Component as JSON): "Why these events are grouped".
-- Groups made before it have none; their components are computed again
-- from their first event when asked for.
CREATE TABLE group_grouping (
    group_id   TEXT PRIMARY KEY REFERENCES error_groups(id) ON DELETE CASCADE,
    version    INTEGER NOT NULL,
    components TEXT NOT NULL
);

-- +goose Down
DROP TABLE group_grouping;
DROP TABLE grouping_rules;
