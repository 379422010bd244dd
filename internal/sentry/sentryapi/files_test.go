package sentryapi_test

import (
	"bytes"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
)

// uploadFile posts a release file as sentry-cli's legacy upload does:
// multipart with file, name, dist and header ("" for none) fields.
func uploadFile(s *apitest.Server, tok, path, name, dist, header string, data []byte) *apitest.Response {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, _ := mw.CreateFormFile("file", "main.js")
	_, _ = fw.Write(data)
	_ = mw.WriteField("name", name)
	if dist != "" {
		_ = mw.WriteField("dist", dist)
	}
	if header != "" {
		_ = mw.WriteField("header", header)
	}
	_ = mw.Close()
	return s.Do(apitest.Request{Method: "POST", Path: path, Token: tok, Body: body.Bytes(), Headers: map[string]string{"Content-Type": mw.FormDataContentType()}})
}

// TestLegacyReleaseFiles: the release file upload of sentry-cli 1.x and
// 2.x (releases files upload-sourcemaps) stores the file in the release,
// where symbolication finds it by URL.
func TestLegacyReleaseFiles(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		tok := token(t, s, w.Member.Token, "project:releases")
		upload := func(path, name, header string, data []byte) *apitest.Response {
			return uploadFile(s, tok, path, name, "", header, data)
		}
		files := "/api/0/projects/acme/web/releases/3.0.0/files/"
		// As on Sentry, the release must exist first (sentry-cli creates it).
		upload(files, "~/static/main.js", "", []byte("x()")).Expect(t, http.StatusNotFound, "")
		s.Do(apitest.Request{Method: "POST", Path: "/api/0/organizations/acme/releases/", Token: tok,
			Body: map[string]any{"version": "3.0.0", "projects": []string{"web"}}}).Expect(t, http.StatusCreated, "")
		jsAnswer := upload(files, "~/static/main.js", "Sourcemap: main.js.map", []byte("x()")).Expect(t, http.StatusCreated, "").JSON(t)
		if h, _ := jsAnswer["headers"].(map[string]any); h["Sourcemap"] != "main.js.map" {
			t.Errorf("answer headers = %v, want the Sourcemap header echoed", jsAnswer["headers"])
		}
		if jsAnswer["sha1"] != sha1Hex("x()") {
			t.Errorf("answer sha1 = %v, want the file's SHA-1 %s (sentry-cli reads it)", jsAnswer["sha1"], sha1Hex("x()"))
		}
		// A second file of one name in a release is 409, as on Sentry.
		upload(files, "~/static/main.js", "", []byte("y()")).Expect(t, http.StatusConflict, "")
		r := upload(files, "~/static/main.js.map", "", []byte(`{"version":3,"sources":[],"mappings":""}`)).Expect(t, http.StatusCreated, "")
		if r.Str(t, "name") != "~/static/main.js.map" {
			t.Errorf("answer = %s, want the file's name", r.Body)
		}
		upload("/api/0/projects/acme/nope/releases/3.0.0/files/", "~/a.js", "", []byte("x")).Expect(t, http.StatusNotFound, "")
		upload("/api/0/organizations/acme/releases/4.0.0/files/", "~/a.js", "", []byte("x")).Expect(t, http.StatusNotFound, "")

		ctx := context.Background()
		rel, err := s.App.DB.Read().ReleaseByVersion(ctx, w.ProjectID, "3.0.0")
		if err != nil || rel.ArtifactCount != 2 {
			t.Fatalf("release = %+v, %v; want 2 files", rel, err)
		}
		js, err := s.App.DB.Read().ArtifactByURL(ctx, rel.ID, "", "~/static/main.js")
		if err != nil || js.Kind != "minified_source" || js.SourceMap != "main.js.map" {
			t.Errorf("minified file = %+v, %v; want its Sourcemap header", js, err)
		}
		sm, err := s.App.DB.Read().ArtifactByURL(ctx, rel.ID, "", "~/static/main.js.map")
		if err != nil || sm.Kind != "source_map" {
			t.Errorf("map = %+v, %v", sm, err)
		}
	})
}

func sha1Hex(s string) string {
	sum := sha1.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

// TestLegacyFilesAbsoluteMapReference: a minified file whose Sourcemap
// header names its map by absolute URL finds the map uploaded in the
// "~/path" form, as the file itself is found.
func TestLegacyFilesAbsoluteMapReference(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w, tok, key, num := sendingWorld(t, s)
		out := buildSource(t, t.TempDir(), callsSource)
		s.Do(apitest.Request{Method: "POST", Path: "/api/0/organizations/acme/releases/", Token: tok,
			Body: map[string]any{"version": "6.1.0", "projects": []string{"web"}}}).Expect(t, http.StatusCreated, "")
		files := "/api/0/projects/acme/web/releases/6.1.0/files/"
		for _, f := range []struct{ file, name, header string }{
			{"main.js", "~/static/main.js", "Sourcemap: http://shop.example.com/maps/main.js.map"},
			{"main.js.map", "~/maps/main.js.map", ""},
		} {
			data, err := os.ReadFile(filepath.Join(out, f.file))
			if err != nil {
				t.Fatal(err)
			}
			var body bytes.Buffer
			mw := multipart.NewWriter(&body)
			fw, _ := mw.CreateFormFile("file", f.file)
			_, _ = fw.Write(data)
			_ = mw.WriteField("name", f.name)
			if f.header != "" {
				_ = mw.WriteField("header", f.header)
			}
			_ = mw.Close()
			s.Do(apitest.Request{Method: "POST", Path: files, Token: tok, Body: body.Bytes(), Headers: map[string]string{"Content-Type": mw.FormDataContentType()}}).
				Expect(t, http.StatusCreated, "")
		}
		sendError(t, s, num, key, map[string]any{"frames": crash(t, out), "release": "6.1.0"})
		if trace, _ := latestTrace(t, s, w.ProjectID); !strings.Contains(trace, "at parseAmount (app.js:7:") {
			t.Errorf("stack trace = %q, want it mapped through the map its absolute reference names", trace)
		}
	})
}

// TestUnknownRoutesAnswerInSentrysForm: a path or method under /api/ that
// Errata does not serve answers {"detail": …}, the form sentry-cli and the
// SDKs read, not a problem document.
func TestUnknownRoutesAnswerInSentrysForm(t *testing.T) {
	t.Parallel()
	s := apitest.Start(t, "sqlite")
	for _, c := range []struct {
		method, path string
		status       int
	}{
		{"GET", "/api/0/projects/acme/web/releases/1.0.0/files/", http.StatusMethodNotAllowed},
		{"POST", "/api/0/organizations/acme/releases/1.0.0/assemble/", http.StatusNotFound},
		{"GET", "/api/1/envelope/", http.StatusMethodNotAllowed},
	} {
		r := s.Do(apitest.Request{Method: c.method, Path: c.path, Headers: map[string]string{"Content-Type": "application/json"}})
		var body map[string]any
		if err := json.Unmarshal(r.Body, &body); err != nil || r.Status != c.status || body["detail"] == nil || body["type"] != nil ||
			!strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
			t.Errorf("%s %s: %d %s (%s), want %d with Sentry's {\"detail\": …}", c.method, c.path, r.Status, r.Body, r.Header.Get("Content-Type"), c.status)
		}
	}
}

// TestNodeAbsolutePathFindsItsRelease: a Node frame's absolute path
// (/srv/app/dist/main.js, no RewriteFrames, no debug id) finds the file
// sentry-cli uploaded with --url-prefix '~/srv/app/dist', as on Sentry.
func TestNodeAbsolutePathFindsItsRelease(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w, tok, key, num := sendingWorld(t, s)
		out := buildSource(t, t.TempDir(), callsSource)
		s.Do(apitest.Request{Method: "POST", Path: "/api/0/organizations/acme/releases/", Token: tok,
			Body: map[string]any{"version": "6.2.0", "projects": []string{"web"}}}).Expect(t, http.StatusCreated, "")
		files := "/api/0/projects/acme/web/releases/6.2.0/files/"
		for _, f := range []struct{ file, name, header string }{
			{"main.js", "~/srv/app/dist/main.js", "Sourcemap: main.js.map"},
			{"main.js.map", "~/srv/app/dist/main.js.map", ""},
		} {
			data, err := os.ReadFile(filepath.Join(out, f.file))
			if err != nil {
				t.Fatal(err)
			}
			uploadFile(s, tok, files, f.name, "", f.header, data).Expect(t, http.StatusCreated, "")
		}
		frames := crash(t, out)
		for _, f := range frames {
			f["abs_path"], f["filename"] = "/srv/app/dist/main.js", "/srv/app/dist/main.js"
		}
		sendError(t, s, num, key, map[string]any{"frames": frames, "release": "6.2.0"})
		if trace, _ := latestTrace(t, s, w.ProjectID); !strings.Contains(trace, "at parseAmount (app.js:7:") {
			t.Errorf("stack trace = %q, want it mapped through the file uploaded as ~/srv/app/dist/main.js", trace)
		}
	})
}
