-- +goose Up
-- A project's error events per hour: the sum of its groups' group_hours,
-- kept in the same transaction as them, so the dashboard's charts read one
-- row an hour (336 for 14 days) instead of one per group and hour (336,000
-- for 1,000 busy groups).
CREATE TABLE project_hours (
    project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    hour       BIGINT NOT NULL,
    count      BIGINT NOT NULL,
    PRIMARY KEY (project_id, hour)
);
INSERT INTO project_hours (project_id, hour, count)
SELECT g.project_id, h.hour, SUM(h.count) FROM group_hours h JOIN error_groups g ON g.id = h.group_id
GROUP BY g.project_id, h.hour;

-- +goose Down
DROP TABLE project_hours;
