package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
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
	// Size is the file's bytes (read; WriteArtifact sets it).
	Size int64
	// Data is the file to write by CreateArtifact; artifacts read leave
	// it nil (ArtifactData, ArtifactTail read the bytes).
	Data      []byte
	CreatedAt time.Time
}

// ArtifactPiece is the most bytes one row of artifact_parts holds: a file
// is written and read a piece at a time.
const ArtifactPiece = 1 << 20

// ErrArtifactTooLarge is WriteArtifact's answer to a file over its limit.
var ErrArtifactTooLarge = errors.New("store: the file is over its size limit")

// ErrArtifactUnreadable wraps WriteArtifact's failures to read its reader
// (a corrupt archive, a client gone), as opposed to the database's.
var ErrArtifactUnreadable = errors.New("store: the file could not be read")

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

// SaveBundle records an assembled bundle and reports whether it is new (a
// second one of the same checksum is not); the caller then writes its
// files in the same transaction.
func (c *Conn) SaveBundle(ctx context.Context, orgID, checksum string, now time.Time) (bool, error) {
	res, err := c.exec(ctx, `INSERT INTO artifact_bundles (organization_id, checksum, created_at) VALUES (?, ?, ?)
		ON CONFLICT (organization_id, checksum) DO NOTHING`, orgID, checksum, ms(now))
	if err != nil {
		return false, fmt.Errorf("store: save bundle: %w", err)
	}
	n, _ := res.RowsAffected()
	return n > 0, nil
}

// CreateArtifact inserts a with its Data.
func (c *Conn) CreateArtifact(ctx context.Context, a Artifact) error {
	_, err := c.WriteArtifact(ctx, a, bytes.NewReader(a.Data), int64(len(a.Data)))
	return err
}

// WriteArtifact inserts a (not a.Data) and its bytes read from r, a piece
// at a time, so that a file is never held in memory whole. Over limit
// bytes is ErrArtifactTooLarge. Run it in a transaction: a failure leaves
// a partial file otherwise.
func (c *Conn) WriteArtifact(ctx context.Context, a Artifact, r io.Reader, limit int64) (int64, error) {
	var rel any
	if a.ReleaseID != "" {
		rel = a.ReleaseID
	}
	if _, err := c.exec(ctx, `INSERT INTO artifacts (id, project_id, release_id, dist, url, debug_id, kind, sourcemap, size, created_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, ?)`, a.ID, a.ProjectID, rel, a.Dist, a.URL, a.DebugID, a.Kind, a.SourceMap, ms(a.CreatedAt)); err != nil {
		return 0, fmt.Errorf("store: create artifact: %w", err)
	}
	buf := make([]byte, ArtifactPiece)
	var size int64
	for seq := 0; ; seq++ {
		n, err := io.ReadFull(r, buf)
		if n > 0 {
			if size += int64(n); size > limit {
				return size, ErrArtifactTooLarge
			}
			if _, err := c.exec(ctx, `INSERT INTO artifact_parts (artifact_id, seq, data) VALUES (?, ?, ?)`, a.ID, seq, buf[:n]); err != nil {
				return size, fmt.Errorf("store: write artifact: %w", err)
			}
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return size, fmt.Errorf("%w: %s: %w", ErrArtifactUnreadable, a.URL, err)
		}
	}
	if _, err := c.exec(ctx, `UPDATE artifacts SET size = ? WHERE id = ?`, size, a.ID); err != nil {
		return size, fmt.Errorf("store: write artifact: %w", err)
	}
	return size, nil
}

// ArtifactData reads a file's bytes into one buffer of its size.
func (c *Conn) ArtifactData(ctx context.Context, a Artifact) ([]byte, error) {
	return c.artifactParts(ctx, a.ID, make([]byte, 0, a.Size), `SELECT data FROM artifact_parts WHERE artifact_id = ? ORDER BY seq`)
}

// ArtifactTail reads at least the last n bytes of a file (n at most
// ArtifactPiece), or all of it when it is shorter.
func (c *Conn) ArtifactTail(ctx context.Context, artifactID string, n int) ([]byte, error) {
	b, err := c.artifactParts(ctx, artifactID, nil, `SELECT data FROM (SELECT seq, data FROM artifact_parts WHERE artifact_id = ? ORDER BY seq DESC LIMIT 2) AS last ORDER BY seq`)
	if err != nil {
		return nil, err
	}
	return b[max(0, len(b)-n):], nil
}

func (c *Conn) artifactParts(ctx context.Context, artifactID string, out []byte, q string) ([]byte, error) {
	rows, err := c.query(ctx, q, artifactID)
	if err != nil {
		return nil, fmt.Errorf("store: artifact %s: %w", artifactID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var piece sql.RawBytes
		if err := rows.Scan(&piece); err != nil {
			return nil, fmt.Errorf("store: artifact %s: %w", artifactID, err)
		}
		out = append(out, piece...)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: artifact %s: %w", artifactID, err)
	}
	return out, nil
}

const artifactCols = `id, project_id, COALESCE(release_id, ''), dist, url, debug_id, kind, sourcemap, size, created_at`

func scanArtifact(s interface{ Scan(...any) error }) (Artifact, error) {
	var a Artifact
	var cr int64
	if err := s.Scan(&a.ID, &a.ProjectID, &a.ReleaseID, &a.Dist, &a.URL, &a.DebugID, &a.Kind, &a.SourceMap, &a.Size, &cr); err != nil {
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

// LockReleaseFiles holds, until c's transaction ends, the right to add a
// file to the release: two uploads of one name at once then find each
// other's (on PostgreSQL; SQLite's writer is one at a time already), where
// each would otherwise find none and both be stored.
func (c *Conn) LockReleaseFiles(ctx context.Context, releaseID string) error {
	if c.tx == nil {
		return nil
	}
	if err := c.drv.lockName(ctx, c, 4, releaseID); err != nil {
		return fmt.Errorf("store: lock release %s: %w", releaseID, err)
	}
	return nil
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
