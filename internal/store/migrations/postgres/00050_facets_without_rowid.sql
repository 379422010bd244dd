-- +goose Up
-- Nothing on PostgreSQL: the SQLite migration of the same number makes
-- group_facets and event_refs WITHOUT ROWID tables (issue 28), which
-- PostgreSQL's heap tables have no counterpart of. The number is kept in
-- step with SQLite's.
SELECT 1;

-- +goose Down
SELECT 1;
