-- +goose Up
-- Slugs (CONTRACT 8): the URL names of organizations (unique in the
-- installation) and projects (unique in their organization), as sentry-cli
-- names them. Rows made before have their identifier with '-' for '_'.
ALTER TABLE organizations ADD COLUMN slug TEXT NOT NULL DEFAULT '';
UPDATE organizations SET slug = replace(id, '_', '-');
CREATE UNIQUE INDEX organizations_slug ON organizations(slug);
ALTER TABLE projects ADD COLUMN slug TEXT NOT NULL DEFAULT '';
UPDATE projects SET slug = replace(id, '_', '-');
CREATE UNIQUE INDEX projects_slug ON projects(organization_id, slug);

-- +goose Down
DROP INDEX projects_slug;
DROP INDEX organizations_slug;
ALTER TABLE projects DROP COLUMN slug;
ALTER TABLE organizations DROP COLUMN slug;
