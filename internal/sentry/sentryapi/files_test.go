package sentryapi_test

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/http"
	"testing"

	"github.com/errata-dev/errata/internal/apitest"
)

// TestLegacyReleaseFiles: the release file upload of sentry-cli 1.x and
// 2.x (releases files upload-sourcemaps) stores the file in the release,
// where symbolication finds it by URL.
func TestLegacyReleaseFiles(t *testing.T) {
	t.Parallel()
	apitest.Each(t, func(t *testing.T, s *apitest.Server) {
		w := s.NewWorld(t)
		tok := token(t, s, w.Member.Token, "project:releases")
		upload := func(path, name, header string, data []byte) *apitest.Response {
			var body bytes.Buffer
			mw := multipart.NewWriter(&body)
			fw, _ := mw.CreateFormFile("file", "main.js")
			_, _ = fw.Write(data)
			_ = mw.WriteField("name", name)
			if header != "" {
				_ = mw.WriteField("header", header)
			}
			_ = mw.Close()
			return s.Do(apitest.Request{Method: "POST", Path: path, Token: tok, Body: body.Bytes(), Headers: map[string]string{"Content-Type": mw.FormDataContentType()}})
		}
		files := "/api/0/projects/acme/web/releases/3.0.0/files/"
		jsAnswer := upload(files, "~/static/main.js", "Sourcemap: main.js.map", []byte("x()")).Expect(t, http.StatusCreated, "").JSON(t)
		if h, _ := jsAnswer["headers"].(map[string]any); h["Sourcemap"] != "main.js.map" {
			t.Errorf("answer headers = %v, want the Sourcemap header echoed", jsAnswer["headers"])
		}
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
