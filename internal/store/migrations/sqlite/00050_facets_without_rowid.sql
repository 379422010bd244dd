-- +goose Up
-- group_facets and event_refs become WITHOUT ROWID tables (issue 28): their
-- rows are found and written by their primary key alone, so the key's
-- B-tree is the table. Processing upserts thousands of these rows a
-- transaction; a rowid table writes each to two B-trees (the rowid table
-- and the primary key's index) and a new row to three, which made
-- processing about a fifth slower. group_facet_keys keeps its rowid: a
-- row's users sketch (up to 16 KB) is too large for a WITHOUT ROWID table.
CREATE TABLE group_facets_new (
    group_id TEXT NOT NULL REFERENCES error_groups(id) ON DELETE CASCADE,
    key      TEXT NOT NULL,
    value    TEXT NOT NULL,
    count    INTEGER NOT NULL,
    PRIMARY KEY (group_id, key, value)
) WITHOUT ROWID;
INSERT INTO group_facets_new (group_id, key, value, count) SELECT group_id, key, value, count FROM group_facets;
DROP TABLE group_facets;
ALTER TABLE group_facets_new RENAME TO group_facets;
CREATE INDEX group_facets_value ON group_facets(key, value, group_id);

CREATE TABLE event_refs_new (
    kind       TEXT NOT NULL,
    ref        TEXT NOT NULL,
    project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    group_id   TEXT NOT NULL REFERENCES error_groups(id) ON DELETE CASCADE,
    last_seen  INTEGER NOT NULL,
    PRIMARY KEY (kind, ref, project_id, group_id)
) WITHOUT ROWID;
INSERT INTO event_refs_new (kind, ref, project_id, group_id, last_seen) SELECT kind, ref, project_id, group_id, last_seen FROM event_refs;
DROP TABLE event_refs;
ALTER TABLE event_refs_new RENAME TO event_refs;
CREATE INDEX event_refs_last_seen ON event_refs(last_seen);
CREATE INDEX event_refs_group ON event_refs(group_id);

-- +goose Down
CREATE TABLE group_facets_old (
    group_id TEXT NOT NULL REFERENCES error_groups(id) ON DELETE CASCADE,
    key      TEXT NOT NULL,
    value    TEXT NOT NULL,
    count    INTEGER NOT NULL,
    PRIMARY KEY (group_id, key, value)
);
INSERT INTO group_facets_old (group_id, key, value, count) SELECT group_id, key, value, count FROM group_facets;
DROP TABLE group_facets;
ALTER TABLE group_facets_old RENAME TO group_facets;
CREATE INDEX group_facets_value ON group_facets(key, value, group_id);

CREATE TABLE event_refs_old (
    kind       TEXT NOT NULL,
    ref        TEXT NOT NULL,
    project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    group_id   TEXT NOT NULL REFERENCES error_groups(id) ON DELETE CASCADE,
    last_seen  INTEGER NOT NULL,
    PRIMARY KEY (kind, ref, project_id, group_id)
);
INSERT INTO event_refs_old (kind, ref, project_id, group_id, last_seen) SELECT kind, ref, project_id, group_id, last_seen FROM event_refs;
DROP TABLE event_refs;
ALTER TABLE event_refs_old RENAME TO event_refs;
CREATE INDEX event_refs_last_seen ON event_refs(last_seen);
CREATE INDEX event_refs_group ON event_refs(group_id);
