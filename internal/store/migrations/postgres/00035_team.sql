-- +goose Up
-- Working the errors as a team (CONTRACT 8). A group's assignee is a member
-- of its organization (null when none; store.DeleteMember unassigns it).
-- ignore_rule is the JSON condition of an ignored group (tickets.IgnoreRule,
-- '' for none) with the figures processing keeps to test it without a
-- scan; resolved_in the release a group was resolved in ('' for none).
ALTER TABLE error_groups ADD COLUMN assignee_id TEXT;
ALTER TABLE error_groups ADD COLUMN ignore_rule TEXT NOT NULL DEFAULT '';
ALTER TABLE error_groups ADD COLUMN resolved_in TEXT NOT NULL DEFAULT '';
-- The time of an ignore-until condition, so that processing finds the groups
-- whose time has come without events (and without a scan).
ALTER TABLE error_groups ADD COLUMN ignore_until BIGINT;
CREATE INDEX error_groups_ignore_until ON error_groups(ignore_until) WHERE ignore_until IS NOT NULL;
CREATE INDEX error_groups_assignee ON error_groups(assignee_id) WHERE assignee_id IS NOT NULL;

-- What happened to a group, newest last by id: written in the transaction
-- of the change it records. actor_member_id is null for Errata itself; the
-- actor's name is kept as it was; a comment's entry names the comment.
CREATE TABLE group_activity (
    id              TEXT PRIMARY KEY,
    group_id        TEXT NOT NULL REFERENCES error_groups(id) ON DELETE CASCADE,
    kind            TEXT NOT NULL,
    actor_member_id TEXT,
    actor_name      TEXT NOT NULL,
    comment_id      TEXT,
    data            TEXT NOT NULL,
    created_at      BIGINT NOT NULL
);
CREATE INDEX group_activity_group ON group_activity(group_id, id);

-- People's comments on a group.
CREATE TABLE group_comments (
    id               TEXT PRIMARY KEY,
    group_id         TEXT NOT NULL REFERENCES error_groups(id) ON DELETE CASCADE,
    author_member_id TEXT NOT NULL,
    author_name      TEXT NOT NULL,
    body             TEXT NOT NULL,
    created_at       BIGINT NOT NULL,
    updated_at       BIGINT NOT NULL
);
CREATE INDEX group_comments_group ON group_comments(group_id, id);

-- The distinct user.id values of an ignored group's events since it was
-- ignored with a "users" condition (emptied when the condition changes).
CREATE TABLE group_ignore_users (
    group_id TEXT NOT NULL REFERENCES error_groups(id) ON DELETE CASCADE,
    user_id  TEXT NOT NULL,
    PRIMARY KEY (group_id, user_id)
);

-- The order in which a project first saw its releases, for "resolved in a
-- release" when versions are not semver.
CREATE TABLE release_order (
    project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    version    TEXT NOT NULL,
    first_seen BIGINT NOT NULL,
    PRIMARY KEY (project_id, version)
);
CREATE INDEX release_order_seen ON release_order(project_id, first_seen);

-- +goose Down
DROP TABLE release_order;
DROP TABLE group_ignore_users;
DROP TABLE group_comments;
DROP TABLE group_activity;
DROP INDEX error_groups_assignee;
DROP INDEX error_groups_ignore_until;
ALTER TABLE error_groups DROP COLUMN ignore_until;
ALTER TABLE error_groups DROP COLUMN resolved_in;
ALTER TABLE error_groups DROP COLUMN ignore_rule;
ALTER TABLE error_groups DROP COLUMN assignee_id;
