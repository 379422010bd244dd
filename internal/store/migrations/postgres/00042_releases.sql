-- +goose Up
-- Releases of a project (CONTRACT 8): made by sentry-cli or by the first
-- event that names them; event counts kept by processing. Retention deletes
-- a release (and so its deploys and artifacts) whose last event and
-- creation are older than ERRATA_RETENTION_DAYS.
CREATE TABLE releases (
    id            TEXT PRIMARY KEY,
    project_id    TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    version       TEXT NOT NULL,
    created_at    BIGINT NOT NULL,
    date_released BIGINT,
    first_seen    BIGINT,
    last_seen     BIGINT,
    event_count   BIGINT NOT NULL DEFAULT 0,
    new_groups    BIGINT NOT NULL DEFAULT 0,
    UNIQUE (project_id, version)
);
CREATE INDEX releases_project ON releases(project_id, id);

CREATE TABLE deploys (
    id          TEXT PRIMARY KEY,
    release_id  TEXT NOT NULL REFERENCES releases(id) ON DELETE CASCADE,
    environment TEXT NOT NULL,
    name        TEXT NOT NULL,
    url         TEXT NOT NULL,
    started_at  BIGINT,
    finished_at BIGINT NOT NULL
);
CREATE INDEX deploys_release ON deploys(release_id, id);

-- Chunks of an upload (sentry-cli's chunk-upload), by SHA-1, until an
-- assembly uses them; retention deletes those older than a day.
CREATE TABLE upload_chunks (
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    sha1            TEXT NOT NULL,
    data            BYTEA NOT NULL,
    created_at      BIGINT NOT NULL,
    PRIMARY KEY (organization_id, sha1)
);
CREATE INDEX upload_chunks_created ON upload_chunks(created_at);

-- Assembled artifact bundles, by checksum, so that assembling again is "ok".
CREATE TABLE artifact_bundles (
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    checksum        TEXT NOT NULL,
    created_at      BIGINT NOT NULL,
    PRIMARY KEY (organization_id, checksum)
);

-- Files of a project: minified sources and source maps, found by debug id
-- or by release, dist and URL. release_id ties a file to its release's
-- retention; files of a bundle without a release are kept by their own
-- creation time.
CREATE TABLE artifacts (
    id          TEXT PRIMARY KEY,
    project_id  TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    release_id  TEXT REFERENCES releases(id) ON DELETE CASCADE,
    dist        TEXT NOT NULL,
    url         TEXT NOT NULL,
    debug_id    TEXT NOT NULL,
    kind        TEXT NOT NULL,
    sourcemap   TEXT NOT NULL,
    size        BIGINT NOT NULL,
    data        BYTEA NOT NULL,
    created_at  BIGINT NOT NULL
);
CREATE INDEX artifacts_release ON artifacts(release_id, dist, url);
CREATE INDEX artifacts_debug ON artifacts(project_id, debug_id, kind);
CREATE INDEX artifacts_project ON artifacts(project_id, created_at);

-- +goose Down
DROP TABLE artifacts;
DROP TABLE artifact_bundles;
DROP TABLE upload_chunks;
DROP TABLE deploys;
DROP TABLE releases;
