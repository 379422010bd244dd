-- +goose Up
-- The project overview counts open tickets by severity: through
-- tickets_project that read every ticket the project ever had (10,000 rows,
-- ~5 ms on SQLite); this covering index reads only the open ones.
CREATE INDEX tickets_project_status ON tickets(project_id, status, severity);

-- +goose Down
DROP INDEX tickets_project_status;
