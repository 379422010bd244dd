-- +goose Up
-- Free words of a search (CONTRACT 8) are answered from an FTS5 index of
-- each group's title, culprit and latest sample message. The trigram
-- tokenizer keeps the words' meaning: a phrase of three characters or more
-- matches wherever it occurs inside a column, in any case (docs/search.md).
-- The index holds no copy of the text (contentless, rows deletable); its
-- rowid is the group's rowid, so that a search reads each group it finds
-- by one primary-key look-up. error_groups has indexes, and SQLite keeps
-- the rowids of such a table through VACUUM and VACUUM INTO (backups;
-- TestSearchAfterBackup checks it). Triggers keep the index in step with
-- error_groups in the writing statement's transaction; an update that
-- leaves the three columns as they were (most of processing's) touches it
-- not at all.
CREATE VIRTUAL TABLE group_search USING fts5(
    title, culprit, message, content='', contentless_delete=1, tokenize='trigram'
);
INSERT INTO group_search (rowid, title, culprit, message)
    SELECT rowid, title, culprit, sample_message FROM error_groups;
-- +goose StatementBegin
CREATE TRIGGER group_search_insert AFTER INSERT ON error_groups
BEGIN
    INSERT INTO group_search (rowid, title, culprit, message) VALUES (NEW.rowid, NEW.title, NEW.culprit, NEW.sample_message);
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER group_search_update AFTER UPDATE OF title, culprit, sample_message ON error_groups
WHEN OLD.title <> NEW.title OR OLD.culprit <> NEW.culprit OR OLD.sample_message <> NEW.sample_message
BEGIN
    UPDATE group_search SET title = NEW.title, culprit = NEW.culprit, message = NEW.sample_message WHERE rowid = NEW.rowid;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER group_search_delete AFTER DELETE ON error_groups
BEGIN
    DELETE FROM group_search WHERE rowid = OLD.rowid;
END;
-- +goose StatementEnd

-- +goose Down
DROP TRIGGER group_search_delete;
DROP TRIGGER group_search_update;
DROP TRIGGER group_search_insert;
DROP TABLE group_search;
