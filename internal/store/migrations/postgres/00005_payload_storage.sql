-- +goose Up
-- Payloads are written once and read once: compressing them (pglz, the
-- default for large values) costs more CPU on the ingest path than it saves.
ALTER TABLE ingest_payloads ALTER COLUMN payload SET STORAGE EXTERNAL;

-- +goose Down
ALTER TABLE ingest_payloads ALTER COLUMN payload SET STORAGE EXTENDED;
