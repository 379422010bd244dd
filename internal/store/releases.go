package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Release is a version of a project's code, with what processing counted
// of its events.
type Release struct {
	ID, ProjectID, Version string
	CreatedAt              time.Time
	DateReleased           *time.Time
	FirstSeen, LastSeen    *time.Time
	EventCount, NewGroups  int64
	// ArtifactCount is the number of files uploaded for it (read only).
	ArtifactCount int64
}

// Deploy is a deployment of a release to an environment.
type Deploy struct {
	ID, ReleaseID, Environment, Name, URL string
	StartedAt                             *time.Time
	FinishedAt                            time.Time
}

const releaseCols = `r.id, r.project_id, r.version, r.created_at, r.date_released, r.first_seen, r.last_seen, r.event_count, r.new_groups,
	(SELECT COUNT(*) FROM artifacts a WHERE a.release_id = r.id)`

func scanRelease(s interface{ Scan(...any) error }) (Release, error) {
	var r Release
	var cr int64
	var dr, fs, ls sql.NullInt64
	if err := s.Scan(&r.ID, &r.ProjectID, &r.Version, &cr, &dr, &fs, &ls, &r.EventCount, &r.NewGroups, &r.ArtifactCount); err != nil {
		return Release{}, err
	}
	r.CreatedAt, r.DateReleased, r.FirstSeen, r.LastSeen = fromMS(cr), fromNullMS(dr), fromNullMS(fs), fromNullMS(ls)
	return r, nil
}

// EnsureRelease returns the project's release of version, making it with
// id newID when there is none.
func (c *Conn) EnsureRelease(ctx context.Context, projectID, version, newID string, now time.Time) (Release, error) {
	if _, err := c.exec(ctx, `INSERT INTO releases (id, project_id, version, created_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (project_id, version) DO NOTHING`, newID, projectID, version, ms(now)); err != nil {
		return Release{}, fmt.Errorf("store: create release: %w", err)
	}
	return c.ReleaseByVersion(ctx, projectID, version)
}

// ReleaseByVersion returns the project's release of version.
func (c *Conn) ReleaseByVersion(ctx context.Context, projectID, version string) (Release, error) {
	r, err := scanRelease(c.queryRow(ctx, `SELECT `+releaseCols+` FROM releases r WHERE r.project_id = ? AND r.version = ?`, projectID, version))
	if err != nil {
		return Release{}, fmt.Errorf("store: release %s: %w", version, translate(err))
	}
	return r, nil
}

// ReleaseByID returns one release.
func (c *Conn) ReleaseByID(ctx context.Context, id string) (Release, error) {
	r, err := scanRelease(c.queryRow(ctx, `SELECT `+releaseCols+` FROM releases r WHERE r.id = ?`, id))
	if err != nil {
		return Release{}, fmt.Errorf("store: release %s: %w", id, translate(err))
	}
	return r, nil
}

// ListReleases lists a project's releases, newest first.
func (c *Conn) ListReleases(ctx context.Context, projectID, before string, limit int) ([]Release, error) {
	rows, err := c.query(ctx, `SELECT `+releaseCols+` FROM releases r WHERE r.project_id = ? AND (? = '' OR r.id < ?) ORDER BY r.id DESC LIMIT ?`,
		projectID, before, before, limit)
	if err != nil {
		return nil, fmt.Errorf("store: list releases: %w", err)
	}
	return collect(rows, scanRelease)
}

// SetReleaseDate records when a release was released (finalized).
func (c *Conn) SetReleaseDate(ctx context.Context, id string, at time.Time) error {
	if err := c.execOne(ctx, `UPDATE releases SET date_released = ? WHERE id = ?`, ms(at), id); err != nil {
		return fmt.Errorf("store: release %s: %w", id, err)
	}
	return nil
}

// CountReleaseEvents adds n events (newGroups of them opening a group),
// received from first to last, to the project's release of version, making
// the release when it is new.
func (c *Conn) CountReleaseEvents(ctx context.Context, projectID, version, newID string, first, last time.Time, n, newGroups int64) error {
	if _, err := c.exec(ctx, `INSERT INTO releases (id, project_id, version, created_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (project_id, version) DO NOTHING`, newID, projectID, version, ms(first)); err != nil {
		return fmt.Errorf("store: create release: %w", err)
	}
	_, err := c.exec(ctx, `UPDATE releases SET event_count = event_count + ?, new_groups = new_groups + ?,
		first_seen = CASE WHEN first_seen IS NULL OR first_seen > ? THEN ? ELSE first_seen END,
		last_seen = CASE WHEN last_seen IS NULL OR last_seen < ? THEN ? ELSE last_seen END
		WHERE project_id = ? AND version = ?`, n, newGroups, ms(first), ms(first), ms(last), ms(last), projectID, version)
	if err != nil {
		return fmt.Errorf("store: count release events: %w", err)
	}
	return nil
}

// CreateDeploy inserts d.
func (c *Conn) CreateDeploy(ctx context.Context, d Deploy) error {
	_, err := c.exec(ctx, `INSERT INTO deploys (id, release_id, environment, name, url, started_at, finished_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		d.ID, d.ReleaseID, d.Environment, d.Name, d.URL, nullMS(d.StartedAt), ms(d.FinishedAt))
	if err != nil {
		return fmt.Errorf("store: create deploy: %w", err)
	}
	return nil
}

// DeploysOf lists a release's deploys, oldest first (at most 100).
func (c *Conn) DeploysOf(ctx context.Context, releaseID string) ([]Deploy, error) {
	rows, err := c.query(ctx, `SELECT id, release_id, environment, name, url, started_at, finished_at FROM deploys
		WHERE release_id = ? ORDER BY id LIMIT 100`, releaseID)
	if err != nil {
		return nil, fmt.Errorf("store: deploys: %w", err)
	}
	return collect(rows, func(s interface{ Scan(...any) error }) (Deploy, error) {
		var d Deploy
		var st sql.NullInt64
		var fin int64
		if err := s.Scan(&d.ID, &d.ReleaseID, &d.Environment, &d.Name, &d.URL, &st, &fin); err != nil {
			return Deploy{}, err
		}
		d.StartedAt, d.FinishedAt = fromNullMS(st), fromMS(fin)
		return d, nil
	})
}

// OrgReleases lists the releases of version in every project of an
// organization (Sentry's releases are the organization's).
func (c *Conn) OrgReleases(ctx context.Context, orgID, version string) ([]Release, error) {
	rows, err := c.query(ctx, `SELECT `+releaseCols+` FROM releases r JOIN projects p ON p.id = r.project_id
		WHERE p.organization_id = ? AND r.version = ? ORDER BY r.id`, orgID, version)
	if err != nil {
		return nil, fmt.Errorf("store: releases of %s: %w", version, err)
	}
	return collect(rows, scanRelease)
}
