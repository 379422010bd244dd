-- +goose Up
-- Every project has a number, a positive integer unique in the installation
-- (CONTRACT 7): Sentry DSNs name the project by it. Existing projects are
-- numbered in the order they were created. A new project takes
-- project_number_seq's next value in its INSERT statement (one writer: the
-- statement is the transaction's only step); the trigger moves the counter
-- on, and it never goes back, so a deleted project's number is never given
-- again and an old DSN cannot reach a newer project.
ALTER TABLE projects ADD COLUMN number INTEGER;
UPDATE projects SET number = r.n
    FROM (SELECT id, ROW_NUMBER() OVER (ORDER BY id) AS n FROM projects) AS r
    WHERE r.id = projects.id;
CREATE UNIQUE INDEX projects_number ON projects(number);
CREATE TABLE project_number_seq (last INTEGER NOT NULL);
INSERT INTO project_number_seq (last) SELECT COALESCE(MAX(number), 0) FROM projects;
-- +goose StatementBegin
CREATE TRIGGER projects_number_taken AFTER INSERT ON projects
BEGIN
    UPDATE project_number_seq SET last = NEW.number WHERE NEW.number > last;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER projects_number_taken;
DROP TABLE project_number_seq;
DROP INDEX projects_number;
ALTER TABLE projects DROP COLUMN number;
