-- +goose Up
-- The ticket list sorted by its group's last seen or event count
-- (store.ListTicketsBy) reads the project's groups and, for each, the ids
-- of its tickets from this index alone, instead of every ticket row and its
-- group's row. Its columns never change after a ticket is made, so it costs
-- nothing on the write path but the insert; an index on the groups'
-- last_seen or event_count would be rewritten by every processed batch.
CREATE INDEX tickets_project_group ON tickets(project_id, group_id, id);

-- +goose Down
DROP INDEX tickets_project_group;
