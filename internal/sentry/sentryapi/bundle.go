package sentryapi

import (
	"archive/zip"
	"context"
	"crypto/sha1" //nolint:gosec // sentry-cli names bundles by SHA-1
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/store"
)

// manifest is the manifest.json of a source bundle (sentry-cli writes it
// with symbolic's SourceBundleWriter).
type manifest struct {
	Files map[string]struct {
		Type    string            `json:"type"`
		URL     string            `json:"url"`
		Headers map[string]string `json:"headers"`
	} `json:"files"`
}

func header(h map[string]string, name string) string {
	for k, v := range h {
		if strings.EqualFold(k, name) {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// bundleFile is a file of an assembled bundle: what the manifest says of
// it and where it is in the ZIP archive.
type bundleFile struct {
	art store.Artifact
	zf  *zip.File
}

// readBundle lists the files of an assembled bundle; their contents stay
// in the archive until saveBundle streams them to the store.
func readBundle(f *os.File) ([]bundleFile, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	zr, err := zip.NewReader(f, st.Size())
	if err != nil {
		return nil, fail(http.StatusBadRequest, "the bundle is not a ZIP archive")
	}
	byName := map[string]*zip.File{}
	for _, zf := range zr.File {
		byName[zf.Name] = zf
	}
	mf := byName["manifest.json"]
	if mf == nil {
		return nil, fail(http.StatusBadRequest, "the bundle has no manifest.json")
	}
	var m manifest
	if b, err := readZipFile(mf, 16<<20); err != nil {
		return nil, err
	} else if err := json.Unmarshal(b, &m); err != nil {
		return nil, fail(http.StatusBadRequest, "the bundle's manifest.json is not JSON")
	}
	var out []bundleFile
	var total uint64 // the files' sizes once unpacked (archive/zip holds each to its declared size)
	for path, info := range m.Files {
		zf := byName["files/"+path]
		if zf == nil {
			zf = byName[path]
		}
		if zf == nil || info.URL == "" {
			continue
		}
		if err := checkText("url of "+path, info.URL, "type of "+path, info.Type); err != nil {
			return nil, err
		}
		for k, v := range info.Headers {
			if err := checkText("header of "+path, k+": "+v); err != nil {
				return nil, err
			}
		}
		if zf.UncompressedSize64 > MaxFileSize {
			return nil, tooLarge(zf.Name)
		}
		if total += zf.UncompressedSize64; total > MaxBundleSize {
			// A small archive of files that compress well (zeros) would
			// otherwise store many times the 1 GiB a bundle may hold.
			return nil, fail(http.StatusRequestEntityTooLarge, "the bundle's files are over "+mib(MaxBundleSize)+" once unpacked")
		}
		out = append(out, bundleFile{zf: zf, art: store.Artifact{URL: info.URL, Kind: info.Type,
			DebugID:   strings.ToLower(header(info.Headers, "debug-id")),
			SourceMap: header(info.Headers, "sourcemap")}})
	}
	return out, nil
}

func tooLarge(name string) error {
	return fail(http.StatusRequestEntityTooLarge, name+" is over the "+mib(MaxFileSize)+" a file")
}

func readZipFile(zf *zip.File, limit int64) ([]byte, error) {
	if zf.UncompressedSize64 > uint64(limit) {
		return nil, fail(http.StatusRequestEntityTooLarge, zf.Name+" is over the "+mib(int(limit))+" a file")
	}
	rc, err := zf.Open()
	if err != nil {
		return nil, fail(http.StatusBadRequest, zf.Name+" cannot be read from the bundle")
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, limit+1))
	if err != nil || int64(len(b)) > limit {
		return nil, fail(http.StatusBadRequest, zf.Name+" cannot be read from the bundle, or is over "+mib(int(limit)))
	}
	return b, nil
}

// writeZipFile streams one file of the bundle into the store.
func writeZipFile(ctx context.Context, tx *store.Conn, f bundleFile) error {
	rc, err := f.zf.Open()
	if err != nil {
		return fail(http.StatusBadRequest, f.zf.Name+" cannot be read from the bundle")
	}
	defer rc.Close()
	_, err = tx.WriteArtifact(ctx, f.art, rc, MaxFileSize)
	switch {
	case errors.Is(err, store.ErrArtifactTooLarge):
		return tooLarge(f.zf.Name)
	case errors.Is(err, store.ErrArtifactUnreadable):
		return fail(http.StatusBadRequest, f.zf.Name+" cannot be read from the bundle")
	}
	return err
}

// saveBundle stores the files of a bundle for each of its projects, under
// the release when one is named, streaming each from the archive, marked
// assembled by key (bundleKey).
func (a *API) saveBundle(ctx context.Context, c *caller, projects []store.Project, req assembleRequest, key string, f *os.File) error {
	files, err := readBundle(f)
	if err != nil {
		return err
	}
	now := a.now().UTC()
	defer func() {
		for _, p := range projects {
			a.uploaded(p.ID)
		}
	}()
	return a.db.Tx(ctx, func(tx *store.Conn) error {
		fresh, err := tx.SaveBundle(ctx, c.org.ID, key, now)
		if err != nil || !fresh {
			return err
		}
		for _, p := range projects {
			relID := ""
			if req.Version != "" {
				rel, err := tx.EnsureRelease(ctx, p.ID, req.Version, id.New(id.Release), now)
				if err != nil {
					return err
				}
				relID = rel.ID
			}
			for _, file := range files {
				file.art.ID, file.art.ProjectID, file.art.ReleaseID, file.art.Dist, file.art.CreatedAt = id.New(id.Artifact), p.ID, relID, req.Dist, now
				if err := writeZipFile(ctx, tx, file); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// bundleKey is what marks a bundle assembled (store.SaveBundle): its
// checksum with the projects, release and dist it was stored for, so that
// the same archive assembled for another project or release is stored
// there too, not answered ok with nothing stored.
func bundleKey(req assembleRequest, projects []store.Project) string {
	ids := make([]string, len(projects))
	for i, p := range projects {
		ids[i] = p.ID
	}
	slices.Sort(ids)
	sum := sha1.Sum([]byte(req.Checksum + "\n" + strings.Join(ids, ",") + "\n" + req.Version + "\n" + req.Dist)) //nolint:gosec // a key, as the checksum it extends
	return hex.EncodeToString(sum[:])
}
