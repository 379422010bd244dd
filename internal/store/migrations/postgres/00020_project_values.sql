-- +goose Up
-- The environments and services a project's events carried in the last 30
-- days, with when (to the hour): a channel filter naming a value none of
-- them carried gets a warning (filter_warnings). Processing adds a row when
-- a value is first seen and moves last_seen at most once an hour after, so
-- a batch costs a read of its few distinct values; norm is the value
-- lower-cased without spaces, to suggest "production" for "Production".
-- Retention deletes rows unseen for 30 days.
CREATE TABLE project_values (
    project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    kind       TEXT NOT NULL,
    value      TEXT NOT NULL,
    norm       TEXT NOT NULL,
    last_seen  BIGINT NOT NULL,
    PRIMARY KEY (project_id, kind, value)
);
CREATE INDEX project_values_norm ON project_values(project_id, kind, norm);

-- +goose Down
DROP TABLE project_values;
