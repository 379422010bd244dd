package sentryapi

import (
	"compress/gzip"
	"crypto/sha1" //nolint:gosec // sentry-cli names chunks by SHA-1; it is an identifier, not a MAC
	"encoding/hex"
	"errors"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"strconv"
	"strings"

	"github.com/errata-dev/errata/internal/store"
)

// chunkOptions answers GET chunk-upload/: where and how to send chunks.
func (a *API) chunkOptions(w http.ResponseWriter, _ *http.Request, c *caller) error {
	writeJSON(w, http.StatusOK, map[string]any{
		"url":              a.srv.BaseURL() + "/api/0/organizations/" + c.org.Slug + "/chunk-upload/",
		"chunkSize":        ChunkSize,
		"chunksPerRequest": chunksPerRequest,
		"maxFileSize":      MaxBundleSize,
		"maxRequestSize":   maxRequestSize,
		"concurrency":      1,
		"hashAlgorithm":    "sha1",
		"compression":      []string{"gzip"},
		"accept":           []string{"artifact_bundles", "release_files", "sources", "artifact_bundles_v2"},
	})
	return nil
}

// uploadChunks takes POST chunk-upload/: multipart parts named file (or
// file_gzip), each a chunk whose file name is its SHA-1.
func (a *API) uploadChunks(w http.ResponseWriter, r *http.Request, c *caller) error {
	r.Body = http.MaxBytesReader(w, r.Body, maxRequestSize)
	mr, err := r.MultipartReader()
	if err != nil {
		return fail(http.StatusBadRequest, "chunks come as multipart/form-data")
	}
	ctx := r.Context()
	for n := 0; ; n++ {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fail(http.StatusBadRequest, "the multipart body is malformed or over "+mib(maxRequestSize))
		}
		if n >= chunksPerRequest {
			return fail(http.StatusBadRequest, "at most 4 chunks a request")
		}
		data, sum, err := readChunk(part)
		if err != nil {
			return err
		}
		if err := a.db.Write().PutChunk(ctx, c.org.ID, sum, data, a.now()); err != nil {
			return err
		}
	}
	w.WriteHeader(http.StatusOK)
	return nil
}

func readChunk(part *multipart.Part) ([]byte, string, error) {
	var src io.Reader = part
	switch part.FormName() {
	case "file":
	case "file_gzip":
		gz, err := gzip.NewReader(part)
		if err != nil {
			return nil, "", fail(http.StatusBadRequest, "a file_gzip part is not gzip")
		}
		src = gz
	default:
		return nil, "", fail(http.StatusBadRequest, "chunks are parts named file or file_gzip")
	}
	data, err := io.ReadAll(io.LimitReader(src, ChunkSize+1))
	if err != nil {
		return nil, "", fail(http.StatusBadRequest, "a chunk could not be read")
	}
	if len(data) > ChunkSize {
		return nil, "", fail(http.StatusRequestEntityTooLarge, "a chunk is over "+mib(ChunkSize))
	}
	h := sha1.Sum(data) //nolint:gosec // see the import
	sum := hex.EncodeToString(h[:])
	if name := strings.ToLower(part.FileName()); name != "" && name != sum {
		return nil, "", fail(http.StatusBadRequest, "a chunk's file name must be its SHA-1 ("+sum+")")
	}
	return data, sum, nil
}

// assembleRequest is sentry-cli's artifact bundle assembly.
type assembleRequest struct {
	Checksum string   `json:"checksum"`
	Chunks   []string `json:"chunks"`
	Projects []string `json:"projects"`
	Version  string   `json:"version"`
	Dist     string   `json:"dist"`
}

func assembled(w http.ResponseWriter, state, detail string, missing []string) {
	if missing == nil {
		missing = []string{}
	}
	out := map[string]any{"state": state, "missingChunks": missing, "detail": nil}
	if detail != "" {
		out["detail"] = detail
	}
	writeJSON(w, http.StatusOK, out)
}

// assemble answers POST artifactbundle/assemble/: the chunks still missing
// (state not_found), or the bundle assembled at once from its chunks
// (state ok, or error with the reason).
func (a *API) assemble(w http.ResponseWriter, r *http.Request, c *caller) error {
	var req assembleRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	req.Checksum = strings.ToLower(req.Checksum)
	if len(req.Chunks) == 0 || len(req.Chunks) > MaxBundleSize/ChunkSize+1 {
		return fail(http.StatusBadRequest, "chunks: name 1 to 129 chunk SHA-1s")
	}
	if !isSHA1(req.Checksum) {
		return fail(http.StatusBadRequest, "checksum: the bundle's SHA-1, 40 hexadecimal digits")
	}
	for _, ch := range req.Chunks {
		if !isSHA1(strings.ToLower(ch)) {
			return fail(http.StatusBadRequest, "chunks: each a chunk's SHA-1, 40 hexadecimal digits")
		}
	}
	if len(req.Projects) == 0 {
		return fail(http.StatusBadRequest, "projects: name at least one project")
	}
	if req.Version != "" {
		if err := checkVersion(req.Version); err != nil {
			return err
		}
	}
	if err := checkDist(req.Dist); err != nil {
		return err
	}
	ctx := r.Context()
	projects, err := a.projects(ctx, c, req.Projects)
	if err != nil {
		return err
	}
	key := bundleKey(req, projects)
	if done, err := a.db.Read().HasBundle(ctx, c.org.ID, key); err != nil || done {
		if err == nil {
			assembled(w, "ok", "", nil)
		}
		return err
	}
	var missing []string
	for _, ch := range req.Chunks {
		ok, err := a.db.Read().HasChunk(ctx, c.org.ID, strings.ToLower(ch))
		if err != nil {
			return err
		}
		if !ok {
			missing = append(missing, ch)
		}
	}
	if len(missing) > 0 {
		assembled(w, "not_found", "", missing)
		return nil
	}
	f, err := a.join(r, c.org.ID, req)
	if f != nil {
		defer os.Remove(f.Name())
		defer f.Close()
	}
	var ae *apiError
	if errors.As(err, &ae) {
		assembled(w, "error", ae.detail, nil)
		return nil
	}
	if err != nil {
		return err
	}
	if err := a.saveBundle(ctx, c, projects, req, key, f); err != nil {
		if errors.As(err, &ae) {
			assembled(w, "error", ae.detail, nil)
			return nil
		}
		return err
	}
	assembled(w, "ok", "", nil)
	return nil
}

// join writes the chunks in order to a temporary file, checking the
// bundle's size and checksum, so that a bundle is never held in memory.
func (a *API) join(r *http.Request, orgID string, req assembleRequest) (*os.File, error) {
	f, err := os.CreateTemp("", "errata-bundle-*.zip")
	if err != nil {
		return nil, err
	}
	h := sha1.New() //nolint:gosec // see the import
	var size int64
	for _, ch := range req.Chunks {
		data, err := a.db.Read().Chunk(r.Context(), orgID, strings.ToLower(ch))
		if errors.Is(err, store.ErrNotFound) {
			return f, fail(http.StatusBadRequest, "chunk "+ch+" is missing")
		}
		if err != nil {
			return f, err
		}
		if size += int64(len(data)); size > MaxBundleSize {
			return f, fail(http.StatusRequestEntityTooLarge, "the bundle is over "+mib(MaxBundleSize))
		}
		h.Write(data)
		if _, err := f.Write(data); err != nil {
			return f, err
		}
	}
	if sum := hex.EncodeToString(h.Sum(nil)); sum != req.Checksum {
		return f, fail(http.StatusBadRequest, "the chunks' SHA-1 is "+sum+", not the checksum "+req.Checksum)
	}
	return f, nil
}

func mib(n int) string {
	if n >= 1<<30 {
		return strconv.Itoa(n>>30) + " GiB"
	}
	return strconv.Itoa(n>>20) + " MiB"
}

// isSHA1 reports whether s is a SHA-1 in lower-case hex, as sentry-cli
// names bundles and chunks.
func isSHA1(s string) bool {
	if len(s) != 2*sha1.Size {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
