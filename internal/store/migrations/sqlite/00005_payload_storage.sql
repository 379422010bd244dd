-- +goose Up
-- PostgreSQL stores queue payloads uncompressed from this version; SQLite
-- never compresses, so there is nothing to do here.
SELECT 1;

-- +goose Down
SELECT 1;
