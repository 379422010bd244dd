-- +goose Up
-- The audit log of an organization (CONTRACT 8): who did what, from where,
-- written in the transaction of the change it records and kept one year.
-- actor_id is a user id or '' (Errata itself, or an unknown address's
-- failed sign-in); it is no foreign key, so entries outlive their actor.
-- data is a JSON object.
CREATE TABLE audit_log (
    id              TEXT PRIMARY KEY,
    organization_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
    actor_id        TEXT NOT NULL,
    actor_email     TEXT NOT NULL,
    action          TEXT NOT NULL,
    target          TEXT NOT NULL,
    ip              TEXT NOT NULL,
    user_agent      TEXT NOT NULL,
    data            TEXT NOT NULL,
    created_at      INTEGER NOT NULL
);
CREATE INDEX audit_log_org ON audit_log(organization_id, id);
CREATE INDEX audit_log_org_action ON audit_log(organization_id, action, id);
CREATE INDEX audit_log_org_actor ON audit_log(organization_id, actor_id, id);
CREATE INDEX audit_log_created ON audit_log(created_at);

-- +goose Down
DROP TABLE audit_log;
