package sentryapi

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/errata-dev/errata/internal/id"
	"github.com/errata-dev/errata/internal/ingest"
	"github.com/errata-dev/errata/internal/store"
	"github.com/errata-dev/errata/internal/text"
	"github.com/errata-dev/errata/internal/view"
)

// releaseInfo is Sentry's release object, as sentry-cli reads it.
type releaseInfo struct {
	Version      string          `json:"version"`
	ShortVersion string          `json:"shortVersion"`
	URL          *string         `json:"url"`
	DateCreated  view.Timestamp  `json:"dateCreated"`
	DateReleased *view.Timestamp `json:"dateReleased"`
	LastEvent    *view.Timestamp `json:"lastEvent"`
	NewGroups    int64           `json:"newGroups"`
	Projects     []projectInfo   `json:"projects"`
}

type projectInfo struct {
	Slug string `json:"slug"`
	Name string `json:"name"`
}

func (a *API) releaseInfo(ctx context.Context, version string, rels []store.Release) (releaseInfo, error) {
	out := releaseInfo{Version: version, ShortVersion: version, Projects: []projectInfo{}}
	var created time.Time
	var released, last *time.Time
	for i, r := range rels {
		p, err := a.db.Read().ProjectByID(ctx, r.ProjectID)
		if err != nil {
			return out, err
		}
		out.Projects = append(out.Projects, projectInfo{p.Slug, p.Name})
		out.NewGroups += r.NewGroups
		if i == 0 || r.CreatedAt.Before(created) {
			created = r.CreatedAt
		}
		if r.DateReleased != nil {
			released = r.DateReleased
		}
		if r.LastSeen != nil && (last == nil || r.LastSeen.After(*last)) {
			last = r.LastSeen
		}
	}
	// As every timestamp of the API: UTC, to the millisecond, always
	// three digits (CONTRACT 2).
	out.DateCreated, out.DateReleased, out.LastEvent = view.TS(created), view.TSPtr(released), view.TSPtr(last)
	return out, nil
}

// checkText refuses a string field (pairs of name and value) with a
// control character other than tab and newline, or bytes that are not
// UTF-8 (text.Fault), with 400 and Sentry's {"detail"} naming the field:
// PostgreSQL refuses U+0000, and the others hide or forge text where
// releases and files are shown.
func checkText(fields ...string) error {
	for i := 0; i+1 < len(fields); i += 2 {
		if f := text.Fault(fields[i+1]); f != "" {
			return fail(http.StatusBadRequest, fields[i]+": "+f)
		}
	}
	return nil
}

// maxDistLen bounds a dist, as Sentry's (64 characters).
const maxDistLen = 64

// checkDist refuses a dist that no event could name.
func checkDist(d string) error {
	if utf8.RuneCountInString(d) > maxDistLen {
		return fail(http.StatusBadRequest, "dist: at most "+strconv.Itoa(maxDistLen)+" characters")
	}
	return checkText("dist", d)
}

func checkVersion(v string) error {
	if text.Fault(v) != "" || v == "" || utf8.RuneCountInString(v) > ingest.MaxReleaseLen || strings.ContainsAny(v, "\n\t/") || v == "." || v == ".." || v == "latest" {
		return fail(http.StatusBadRequest, "version: 1 to "+strconv.Itoa(ingest.MaxReleaseLen)+" characters (events keep no more), no slash, control character or the names ., .. and latest")
	}
	return nil
}

// newRelease answers POST releases/ {version, projects, dateReleased?}:
// the release is made in each project (201), or found (208 like Sentry's
// when all existed).
func (a *API) newRelease(w http.ResponseWriter, r *http.Request, c *caller) error {
	var req struct {
		Version      string     `json:"version"`
		Projects     []string   `json:"projects"`
		DateReleased *time.Time `json:"dateReleased"`
	}
	if err := decode(r, &req); err != nil {
		return err
	}
	if err := checkVersion(req.Version); err != nil {
		return err
	}
	ctx := r.Context()
	var projects []store.Project
	if ref := r.PathValue("project"); ref != "" {
		p, err := a.projectOf(ctx, c, ref) // named by the path: 404
		if err != nil {
			return err
		}
		projects = []store.Project{p}
	} else {
		if len(req.Projects) == 0 {
			return fail(http.StatusBadRequest, "projects: name at least one project")
		}
		var err error
		if projects, err = a.projects(ctx, c, req.Projects); err != nil {
			return err
		}
	}
	var rels []store.Release
	err := a.db.Tx(ctx, func(tx *store.Conn) error {
		for _, p := range projects {
			rel, err := tx.EnsureRelease(ctx, p.ID, req.Version, id.New(id.Release), a.now().UTC())
			if err != nil {
				return err
			}
			if req.DateReleased != nil {
				if err := tx.SetReleaseDate(ctx, rel.ID, *req.DateReleased); err != nil {
					return err
				}
				rel.DateReleased = req.DateReleased
			}
			rels = append(rels, rel)
		}
		return nil
	})
	if err != nil {
		return err
	}
	info, err := a.releaseInfo(ctx, req.Version, rels)
	if err == nil {
		writeJSON(w, http.StatusCreated, info)
	}
	return err
}

// orgRelease finds {version} in the caller's organization, or in
// {project} when the path names one (404 otherwise).
func (a *API) orgRelease(r *http.Request, c *caller) (string, []store.Release, error) {
	version := r.PathValue("version")
	rels, err := a.db.Read().OrgReleases(r.Context(), c.org.ID, version)
	if ref := r.PathValue("project"); ref != "" && err == nil {
		var p store.Project
		if p, err = a.projectOf(r.Context(), c, ref); err == nil {
			rels = slices.DeleteFunc(rels, func(rel store.Release) bool { return rel.ProjectID != p.ID })
		}
	}
	if err == nil && len(rels) == 0 {
		err = fail(http.StatusNotFound, "release "+version+" does not exist")
	}
	return version, rels, err
}

func (a *API) getRelease(w http.ResponseWriter, r *http.Request, c *caller) error {
	version, rels, err := a.orgRelease(r, c)
	if err != nil {
		return err
	}
	info, err := a.releaseInfo(r.Context(), version, rels)
	if err == nil {
		writeJSON(w, http.StatusOK, info)
	}
	return err
}

// updateRelease answers PUT releases/{version}/: sentry-cli's finalize sets
// dateReleased; other fields (refs, commits) are accepted and ignored.
func (a *API) updateRelease(w http.ResponseWriter, r *http.Request, c *caller) error {
	var req struct {
		DateReleased *time.Time `json:"dateReleased"`
	}
	if err := decode(r, &req); err != nil {
		return err
	}
	version, rels, err := a.orgRelease(r, c)
	if err != nil {
		return err
	}
	if req.DateReleased != nil {
		for i := range rels {
			if err := a.db.Write().SetReleaseDate(r.Context(), rels[i].ID, *req.DateReleased); err != nil {
				return err
			}
			rels[i].DateReleased = req.DateReleased
		}
	}
	info, err := a.releaseInfo(r.Context(), version, rels)
	if err == nil {
		writeJSON(w, http.StatusOK, info)
	}
	return err
}

// deployInfo is Sentry's deploy object.
type deployInfo struct {
	ID           string          `json:"id"`
	Environment  string          `json:"environment"`
	Name         *string         `json:"name"`
	URL          *string         `json:"url"`
	DateStarted  *view.Timestamp `json:"dateStarted"`
	DateFinished view.Timestamp  `json:"dateFinished"`
}

func deployView(d store.Deploy) deployInfo {
	out := deployInfo{ID: d.ID, Environment: d.Environment, DateStarted: view.TSPtr(d.StartedAt), DateFinished: view.TS(d.FinishedAt)}
	if d.Name != "" {
		out.Name = &d.Name
	}
	if d.URL != "" {
		out.URL = &d.URL
	}
	return out
}

// newDeploy answers POST releases/{version}/deploys/: one deploy recorded
// on the release in each of its projects (or those named).
func (a *API) newDeploy(w http.ResponseWriter, r *http.Request, c *caller) error {
	var req struct {
		Environment  string     `json:"environment"`
		Name         string     `json:"name"`
		URL          string     `json:"url"`
		DateStarted  *time.Time `json:"dateStarted"`
		DateFinished *time.Time `json:"dateFinished"`
		Projects     []string   `json:"projects"`
	}
	if err := decode(r, &req); err != nil {
		return err
	}
	if req.Environment == "" || utf8.RuneCountInString(req.Environment) > ingest.MaxEnvironmentLen || text.Fault(req.Environment) != "" || strings.ContainsAny(req.Environment, "\n\t") {
		return fail(http.StatusBadRequest, "environment: 1 to "+strconv.Itoa(ingest.MaxEnvironmentLen)+" characters, no control character")
	}
	if utf8.RuneCountInString(req.Name) > 200 || utf8.RuneCountInString(req.URL) > 2000 {
		return fail(http.StatusBadRequest, "name: at most 200 characters; url: at most 2000")
	}
	if err := checkText("name", req.Name, "url", req.URL); err != nil {
		return err
	}
	_, rels, err := a.orgRelease(r, c)
	if err != nil {
		return err
	}
	// Times as the store keeps them (UTC, milliseconds), so that this
	// answer and a later GET's agree.
	d := store.Deploy{Environment: req.Environment, Name: req.Name, URL: req.URL, FinishedAt: storedTime(a.now())}
	if req.DateStarted != nil {
		started := storedTime(*req.DateStarted)
		d.StartedAt = &started
	}
	if req.DateFinished != nil {
		d.FinishedAt = storedTime(*req.DateFinished)
	}
	if d.StartedAt != nil && d.FinishedAt.Before(*d.StartedAt) {
		return fail(http.StatusBadRequest, "dateFinished: before dateStarted")
	}
	for _, rel := range rels {
		if len(req.Projects) > 0 && !a.named(r.Context(), c, rel.ProjectID, req.Projects) {
			continue
		}
		d.ID, d.ReleaseID = id.New(id.Deploy), rel.ID
		if err := a.db.Write().CreateDeploy(r.Context(), d); err != nil {
			return err
		}
	}
	writeJSON(w, http.StatusCreated, deployView(d))
	return nil
}

func (a *API) named(ctx context.Context, c *caller, projectID string, refs []string) bool {
	ps, err := a.projects(ctx, c, refs)
	if err != nil {
		return false
	}
	for _, p := range ps {
		if p.ID == projectID {
			return true
		}
	}
	return false
}

func (a *API) listDeploys(w http.ResponseWriter, r *http.Request, c *caller) error {
	_, rels, err := a.orgRelease(r, c)
	if err != nil {
		return err
	}
	out := []deployInfo{}
	for _, rel := range rels {
		ds, err := a.db.Read().DeploysOf(r.Context(), rel.ID)
		if err != nil {
			return err
		}
		for _, d := range ds {
			out = append(out, deployView(d))
		}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// uploadReleaseFile takes the legacy release file upload: multipart with
// file, name (the URL, ~/… style), dist and header fields ("Sourcemap:
// x.map"). Organization-level uploads go to every project with the release.
func (a *API) uploadReleaseFile(w http.ResponseWriter, r *http.Request, c *caller) error {
	r.Body = http.MaxBytesReader(w, r.Body, MaxFileSize+1<<20)
	if err := r.ParseMultipartForm(8 << 20); err != nil {
		if _, over := errors.AsType[*http.MaxBytesError](err); over {
			return fail(http.StatusRequestEntityTooLarge, "file: over "+mib(MaxFileSize))
		}
		return fail(http.StatusBadRequest, "release files come as multipart/form-data of at most "+mib(MaxFileSize))
	}
	defer r.MultipartForm.RemoveAll()
	f, fh, err := r.FormFile("file")
	if err != nil {
		return fail(http.StatusBadRequest, "file: missing")
	}
	defer f.Close()
	if fh.Size > MaxFileSize {
		return fail(http.StatusRequestEntityTooLarge, "file: over "+mib(MaxFileSize))
	}
	name := r.FormValue("name")
	if name == "" {
		name = fh.Filename
	}
	if err := checkText("name", name); err != nil {
		return err
	}
	art := store.Artifact{URL: name, Dist: r.FormValue("dist"), Kind: "source", CreatedAt: a.now().UTC()}
	if err := checkDist(art.Dist); err != nil {
		return err
	}
	headers := map[string]string{} // echoed as Sentry does
	for _, h := range r.MultipartForm.Value["header"] {
		if err := checkText("header", h); err != nil {
			return err
		}
		k, v, _ := strings.Cut(h, ":")
		if k = strings.TrimSpace(k); k != "" {
			headers[k] = strings.TrimSpace(v)
		}
		switch strings.ToLower(k) {
		case "sourcemap", "x-sourcemap":
			art.SourceMap = strings.TrimSpace(v)
		case "debug-id":
			art.DebugID = strings.ToLower(strings.TrimSpace(v))
		}
	}
	if strings.HasSuffix(name, ".map") {
		art.Kind = "source_map"
	} else if art.SourceMap != "" || strings.HasSuffix(name, ".js") {
		art.Kind = "minified_source"
	}
	// The release must exist, as on Sentry (sentry-cli creates it first).
	_, rels, err := a.orgRelease(r, c)
	if err != nil {
		return err
	}
	sum := sha1.New() // sentry-cli reads the answer's sha1
	if _, err := io.Copy(sum, f); err != nil {
		return err
	}
	// The file is in memory up to 8 MiB, else in ParseMultipartForm's
	// temporary file: it streams to the store from there, once a project.
	err = a.db.Tx(r.Context(), func(tx *store.Conn) error {
		for _, rel := range rels {
			if err := tx.LockReleaseFiles(r.Context(), rel.ID); err != nil {
				return err
			}
			if _, err := tx.ArtifactByURL(r.Context(), rel.ID, art.Dist, name); err == nil {
				return fail(http.StatusConflict, "a file named "+name+" is already in release "+rel.Version)
			} else if !errors.Is(err, store.ErrNotFound) {
				return err
			}
			art.ID, art.ProjectID, art.ReleaseID = id.New(id.Artifact), rel.ProjectID, rel.ID
			if _, err := f.Seek(0, io.SeekStart); err != nil {
				return err
			}
			if _, err := tx.WriteArtifact(r.Context(), art, f, MaxFileSize); err != nil {
				return err
			}
		}
		return nil
	})
	if errors.Is(err, store.ErrArtifactTooLarge) {
		return fail(http.StatusRequestEntityTooLarge, "file: over "+mib(MaxFileSize))
	}
	if err != nil {
		return err
	}
	for _, rel := range rels {
		a.uploaded(rel.ProjectID)
	}
	writeJSON(w, http.StatusCreated, map[string]any{"id": art.ID, "name": name, "dist": nilIfEmpty(art.Dist), "size": fh.Size,
		"sha1": hex.EncodeToString(sum.Sum(nil)), "dateCreated": view.TS(art.CreatedAt), "headers": headers})
	return nil
}

// storedTime is t as the store keeps it: UTC, to the millisecond.
func storedTime(t time.Time) time.Time { return t.UTC().Truncate(time.Millisecond) }

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}
