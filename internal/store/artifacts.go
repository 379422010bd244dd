package store

import (
	"context"
	"fmt"
	"time"
)

// Artifact is an uploaded file of a project: a minified source or a source
// map, found by debug id or by release, dist and URL.
type Artifact struct {
	ID, ProjectID string
	ReleaseID     string // "" for none
	Dist, URL     string
	DebugID       string // lower-case UUID, "" for none
	// Kind is sentry-cli's file type: minified_source, source_map, source.
	Kind string
	// SourceMap is the sourcemap reference of a minified source ("" for none).
	SourceMap string
	Data      []byte
	CreatedAt time.Time
}

// PutChunk keeps one uploaded chunk; a chunk already kept stays.
func (c *Conn) PutChunk(ctx context.Context, orgID, sha1 string, data []byte, now time.Time) error {
	if data == nil {
		data = []byte{} // an empty chunk is bytes, not NULL
	}
	if _, err := c.exec(ctx, `INSERT INTO upload_chunks (organization_id, sha1, data, created_at) VALUES (?, ?, ?, ?)
		ON CONFLICT (organization_id, sha1) DO NOTHING`, orgID, sha1, data, ms(now)); err != nil {
		return fmt.Errorf("store: put chunk: %w", err)
	}
	return nil
}

// HasChunk reports whether the organization has a chunk.
func (c *Conn) HasChunk(ctx context.Context, orgID, sha1 string) (bool, error) {
	var n int
	if err := c.queryRow(ctx, `SELECT COUNT(*) FROM upload_chunks WHERE organization_id = ? AND sha1 = ?`, orgID, sha1).Scan(&n); err != nil {
		return false, fmt.Errorf("store: chunk: %w", err)
	}
	return n > 0, nil
}

// Chunk returns one chunk's bytes.
func (c *Conn) Chunk(ctx context.Context, orgID, sha1 string) ([]byte, error) {
	var b []byte
	if err := c.queryRow(ctx, `SELECT data FROM upload_chunks WHERE organization_id = ? AND sha1 = ?`, orgID, sha1).Scan(&b); err != nil {
		return nil, fmt.Errorf("store: chunk %s: %w", sha1, translate(err))
	}
	return b, nil
}

// HasBundle reports whether a bundle of this checksum was assembled.
func (c *Conn) HasBundle(ctx context.Context, orgID, checksum string) (bool, error) {
	var n int
	if err := c.queryRow(ctx, `SELECT COUNT(*) FROM artifact_bundles WHERE organization_id = ? AND checksum = ?`, orgID, checksum).Scan(&n); err != nil {
		return false, fmt.Errorf("store: bundle: %w", err)
	}
	return n > 0, nil
}

// SaveBundle records an assembled bundle (a second one of the same checksum
// is a no-op) and inserts its files.
func (c *Conn) SaveBundle(ctx context.Context, orgID, checksum string, files []Artifact, now time.Time) error {
	res, err := c.exec(ctx, `INSERT INTO artifact_bundles (organization_id, checksum, created_at) VALUES (?, ?, ?)
		ON CONFLICT (organization_id, checksum) DO NOTHING`, orgID, checksum, ms(now))
	if err != nil {
		return fmt.Errorf("store: save bundle: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil
	}
	for _, a := range files {
		if err := c.CreateArtifact(ctx, a); err != nil {
			return err
		}
	}
	return nil
}

// CreateArtifact inserts a.
func (c *Conn) CreateArtifact(ctx context.Context, a Artifact) error {
	if a.Data == nil {
		a.Data = []byte{}
	}
	var rel any
	if a.ReleaseID != "" {
		rel = a.ReleaseID
	}
	_, err := c.exec(ctx, `INSERT INTO artifacts (id, project_id, release_id, dist, url, debug_id, kind, sourcemap, size, data, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, a.ID, a.ProjectID, rel, a.Dist, a.URL, a.DebugID, a.Kind, a.SourceMap, len(a.Data), a.Data, ms(a.CreatedAt))
	if err != nil {
		return fmt.Errorf("store: create artifact: %w", err)
	}
	return nil
}

const artifactCols = `id, project_id, COALESCE(release_id, ''), dist, url, debug_id, kind, sourcemap, data, created_at`

func scanArtifact(s interface{ Scan(...any) error }) (Artifact, error) {
	var a Artifact
	var cr int64
	if err := s.Scan(&a.ID, &a.ProjectID, &a.ReleaseID, &a.Dist, &a.URL, &a.DebugID, &a.Kind, &a.SourceMap, &a.Data, &cr); err != nil {
		return Artifact{}, err
	}
	a.CreatedAt = fromMS(cr)
	return a, nil
}

// ArtifactByDebugID returns the project's newest file of a kind with a
// debug id.
func (c *Conn) ArtifactByDebugID(ctx context.Context, projectID, debugID, kind string) (Artifact, error) {
	a, err := scanArtifact(c.queryRow(ctx, `SELECT `+artifactCols+` FROM artifacts WHERE project_id = ? AND debug_id = ? AND kind = ?
		ORDER BY id DESC LIMIT 1`, projectID, debugID, kind))
	if err != nil {
		return Artifact{}, fmt.Errorf("store: artifact %s: %w", debugID, translate(err))
	}
	return a, nil
}

// ArtifactByURL returns a release's newest file with a dist and URL.
func (c *Conn) ArtifactByURL(ctx context.Context, releaseID, dist, url string) (Artifact, error) {
	a, err := scanArtifact(c.queryRow(ctx, `SELECT `+artifactCols+` FROM artifacts WHERE release_id = ? AND dist = ? AND url = ?
		ORDER BY id DESC LIMIT 1`, releaseID, dist, url))
	if err != nil {
		return Artifact{}, fmt.Errorf("store: artifact %s: %w", url, translate(err))
	}
	return a, nil
}
