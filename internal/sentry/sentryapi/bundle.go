package sentryapi

import (
	"archive/zip"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
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

// readBundle lists the files of an assembled bundle with their contents.
func readBundle(f *os.File) ([]store.Artifact, error) {
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
	var out []store.Artifact
	for path, info := range m.Files {
		zf := byName["files/"+path]
		if zf == nil {
			zf = byName[path]
		}
		if zf == nil || info.URL == "" {
			continue
		}
		data, err := readZipFile(zf, MaxFileSize)
		if err != nil {
			return nil, err
		}
		out = append(out, store.Artifact{URL: info.URL, Kind: info.Type, Data: data,
			DebugID:   strings.ToLower(header(info.Headers, "debug-id")),
			SourceMap: header(info.Headers, "sourcemap")})
	}
	return out, nil
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

// saveBundle stores the files of a bundle for each of its projects, under
// the release when one is named.
func (a *API) saveBundle(ctx context.Context, c *caller, projects []store.Project, req assembleRequest, f *os.File) error {
	files, err := readBundle(f)
	if err != nil {
		return err
	}
	now := a.now().UTC()
	return a.db.Tx(ctx, func(tx *store.Conn) error {
		var all []store.Artifact
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
				file.ID, file.ProjectID, file.ReleaseID, file.Dist, file.CreatedAt = id.New(id.Artifact), p.ID, relID, req.Dist, now
				all = append(all, file)
			}
		}
		return tx.SaveBundle(ctx, c.org.ID, req.Checksum, all, now)
	})
}
