-- +goose Up
-- Every project has a number, a positive integer unique in the installation
-- (CONTRACT 7): Sentry DSNs name the project by it. Existing projects are
-- numbered in the order they were created; new ones take the sequence's
-- next value, which is never given twice, so a deleted project's number is
-- never reused and an old DSN cannot reach a newer project.
ALTER TABLE projects ADD COLUMN number BIGINT;
UPDATE projects SET number = r.n
    FROM (SELECT id, ROW_NUMBER() OVER (ORDER BY id) AS n FROM projects) AS r
    WHERE r.id = projects.id;
CREATE SEQUENCE project_number_seq OWNED BY projects.number;
SELECT setval('project_number_seq', COALESCE((SELECT MAX(number) FROM projects), 0) + 1, false);
ALTER TABLE projects ALTER COLUMN number SET DEFAULT nextval('project_number_seq'),
    ALTER COLUMN number SET NOT NULL;
ALTER TABLE projects ADD CONSTRAINT projects_number UNIQUE (number);

-- +goose Down
ALTER TABLE projects DROP COLUMN number;
