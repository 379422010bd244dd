-- +goose Up
-- A group merged by hand into another keeps its row (its tickets still point
-- at it) with merged_into set: its counts and samples moved to the target,
-- and events that still compute its fingerprint go to the target.
ALTER TABLE error_groups ADD COLUMN merged_into TEXT;
-- Groups made by an older fingerprint version keep receiving the events whose
-- fingerprint under that version matches theirs; this index tells cheaply
-- whether any such group is left.
CREATE INDEX error_groups_version ON error_groups(fingerprint_version);

-- +goose Down
DROP INDEX error_groups_version;
ALTER TABLE error_groups DROP COLUMN merged_into;
