-- +goose Up
-- An uploaded file's bytes are kept in pieces of at most 1 MiB (issue 26):
-- an upload streams into the store piece by piece, and a 50 MB bundle is
-- never held in memory whole. Existing files become one piece each.
CREATE TABLE artifact_parts (
    artifact_id TEXT NOT NULL REFERENCES artifacts(id) ON DELETE CASCADE,
    seq         INTEGER NOT NULL,
    data        BLOB NOT NULL,
    PRIMARY KEY (artifact_id, seq)
);
INSERT INTO artifact_parts (artifact_id, seq, data) SELECT id, 0, data FROM artifacts WHERE length(data) > 0;
ALTER TABLE artifacts DROP COLUMN data;

-- +goose Down
ALTER TABLE artifacts ADD COLUMN data BLOB NOT NULL DEFAULT x'';
UPDATE artifacts SET data = COALESCE((SELECT CAST(group_concat(p.data, '' ORDER BY p.seq) AS BLOB) FROM artifact_parts p WHERE p.artifact_id = artifacts.id), x'');
DROP TABLE artifact_parts;
