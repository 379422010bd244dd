-- +goose Up
-- One table of releases (issue 26): release_order (the order in which a
-- project first saw its releases, for "resolved in a release") merges into
-- releases, whose first_seen now counts any event that names the release.
-- A release only release_order knew gets an id of the usual form (rel_ and
-- 26 characters whose first ten encode its first_seen in milliseconds, so
-- it sorts by age like the others; the rest number it).
UPDATE releases SET first_seen = (SELECT o.first_seen FROM release_order o
        WHERE o.project_id = releases.project_id AND o.version = releases.version)
    WHERE EXISTS (SELECT 1 FROM release_order o WHERE o.project_id = releases.project_id AND o.version = releases.version
        AND (releases.first_seen IS NULL OR o.first_seen < releases.first_seen));
INSERT INTO releases (id, project_id, version, created_at, first_seen)
SELECT 'rel_' ||
       substr('0123456789abcdefghjkmnpqrstvwxyz', CAST(((first_seen) >> 45) & 31 AS INTEGER) + 1, 1) ||
       substr('0123456789abcdefghjkmnpqrstvwxyz', CAST(((first_seen) >> 40) & 31 AS INTEGER) + 1, 1) ||
       substr('0123456789abcdefghjkmnpqrstvwxyz', CAST(((first_seen) >> 35) & 31 AS INTEGER) + 1, 1) ||
       substr('0123456789abcdefghjkmnpqrstvwxyz', CAST(((first_seen) >> 30) & 31 AS INTEGER) + 1, 1) ||
       substr('0123456789abcdefghjkmnpqrstvwxyz', CAST(((first_seen) >> 25) & 31 AS INTEGER) + 1, 1) ||
       substr('0123456789abcdefghjkmnpqrstvwxyz', CAST(((first_seen) >> 20) & 31 AS INTEGER) + 1, 1) ||
       substr('0123456789abcdefghjkmnpqrstvwxyz', CAST(((first_seen) >> 15) & 31 AS INTEGER) + 1, 1) ||
       substr('0123456789abcdefghjkmnpqrstvwxyz', CAST(((first_seen) >> 10) & 31 AS INTEGER) + 1, 1) ||
       substr('0123456789abcdefghjkmnpqrstvwxyz', CAST(((first_seen) >> 5) & 31 AS INTEGER) + 1, 1) ||
       substr('0123456789abcdefghjkmnpqrstvwxyz', CAST(((first_seen) >> 0) & 31 AS INTEGER) + 1, 1) ||
       '000000' ||
       substr('0123456789abcdefghjkmnpqrstvwxyz', CAST(((n) >> 45) & 31 AS INTEGER) + 1, 1) ||
       substr('0123456789abcdefghjkmnpqrstvwxyz', CAST(((n) >> 40) & 31 AS INTEGER) + 1, 1) ||
       substr('0123456789abcdefghjkmnpqrstvwxyz', CAST(((n) >> 35) & 31 AS INTEGER) + 1, 1) ||
       substr('0123456789abcdefghjkmnpqrstvwxyz', CAST(((n) >> 30) & 31 AS INTEGER) + 1, 1) ||
       substr('0123456789abcdefghjkmnpqrstvwxyz', CAST(((n) >> 25) & 31 AS INTEGER) + 1, 1) ||
       substr('0123456789abcdefghjkmnpqrstvwxyz', CAST(((n) >> 20) & 31 AS INTEGER) + 1, 1) ||
       substr('0123456789abcdefghjkmnpqrstvwxyz', CAST(((n) >> 15) & 31 AS INTEGER) + 1, 1) ||
       substr('0123456789abcdefghjkmnpqrstvwxyz', CAST(((n) >> 10) & 31 AS INTEGER) + 1, 1) ||
       substr('0123456789abcdefghjkmnpqrstvwxyz', CAST(((n) >> 5) & 31 AS INTEGER) + 1, 1) ||
       substr('0123456789abcdefghjkmnpqrstvwxyz', CAST(((n) >> 0) & 31 AS INTEGER) + 1, 1),
       project_id, version, first_seen, first_seen
FROM (SELECT o.project_id, o.version, o.first_seen, ROW_NUMBER() OVER (ORDER BY o.project_id, o.version) AS n
      FROM release_order o
      WHERE NOT EXISTS (SELECT 1 FROM releases r WHERE r.project_id = o.project_id AND r.version = o.version)) AS missing;
DROP TABLE release_order;
CREATE INDEX releases_seen ON releases(project_id, first_seen);

-- +goose Down
DROP INDEX releases_seen;
CREATE TABLE release_order (
    project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    version    TEXT NOT NULL,
    first_seen INTEGER NOT NULL,
    PRIMARY KEY (project_id, version)
);
CREATE INDEX release_order_seen ON release_order(project_id, first_seen);
INSERT INTO release_order (project_id, version, first_seen)
SELECT project_id, version, first_seen FROM releases WHERE first_seen IS NOT NULL;
