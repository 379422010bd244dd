-- +goose Up
-- The trace ids and SDK event ids of every error event, not only of the
-- stored samples, with the group that took the event (GET
-- /v1/orgs/{org_id}/lookup, CONTRACT 8). Processing adds a batch's ids in
-- one statement; last_seen is the receipt time of the latest event with
-- the id, and retention deletes ids unseen for ERRATA_RETENTION_DAYS.
CREATE TABLE event_refs (
    kind       TEXT NOT NULL,
    ref        TEXT NOT NULL,
    project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    group_id   TEXT NOT NULL REFERENCES error_groups(id) ON DELETE CASCADE,
    last_seen  INTEGER NOT NULL,
    PRIMARY KEY (kind, ref, project_id, group_id)
);
CREATE INDEX event_refs_last_seen ON event_refs(last_seen);
CREATE INDEX event_refs_group ON event_refs(group_id);

-- +goose Down
DROP TABLE event_refs;
